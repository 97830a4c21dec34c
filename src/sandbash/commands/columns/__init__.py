"""paste, comm, join, column, fold, fmt, expand, unexpand and pr."""

from .column import cmd_column
from .comm import cmd_comm, cmd_join
from .expand import cmd_expand, cmd_unexpand
from .fold import cmd_fmt, cmd_fold
from .paste import cmd_paste
from .pr import cmd_pr

__all__ = [
    "cmd_column",
    "cmd_comm",
    "cmd_expand",
    "cmd_fmt",
    "cmd_fold",
    "cmd_join",
    "cmd_paste",
    "cmd_pr",
    "cmd_unexpand",
]
