"""Archives and compressors: tar, gzip/gunzip/zcat, bzip2/bunzip2/bzcat,
xz/unxz/xzcat, zip/unzip. Everything works on bytes in memory or in streams
and reaches files only through the virtual filesystem.

Nothing is imported here: the registry imports each command's module, so a first gzip does not
load tarfile and zipfile.
"""
