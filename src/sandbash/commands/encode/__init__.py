"""od, xxd, hexdump, base64, base32, basenc and strings.

Nothing is imported here: the registry imports each command's module, so a first base64 does not
load od's and xxd's.
"""
