"""File information commands: stat du df file realpath readlink basename dirname tree pathchk
mkfifo.

Nothing is imported here: the registry imports each command's module, so a first basename does
not load file's magic tables, stat's formats or tree.
"""
