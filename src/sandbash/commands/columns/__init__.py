"""paste, comm, join, column, fold, fmt, expand, unexpand and pr.

Nothing is imported here: the registry imports each command's module, so a first paste does not
load pr's page engine or column's.
"""
