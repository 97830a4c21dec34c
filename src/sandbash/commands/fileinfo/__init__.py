"""File information commands: stat du df file realpath readlink basename
dirname tree pathchk mkfifo."""

from .magic import cmd_file
from .paths import cmd_basename, cmd_dirname, cmd_mkfifo, cmd_pathchk, cmd_readlink, cmd_realpath
from .stat import cmd_stat
from .tree import cmd_tree
from .usage import cmd_df, cmd_du

__all__ = [
    "cmd_basename",
    "cmd_df",
    "cmd_dirname",
    "cmd_du",
    "cmd_file",
    "cmd_mkfifo",
    "cmd_pathchk",
    "cmd_readlink",
    "cmd_realpath",
    "cmd_stat",
    "cmd_tree",
]
