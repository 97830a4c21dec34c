"""diff, cmp, patch, diff3 and sdiff."""

from .cmp import cmd_cmp
from .main import cmd_diff
from .patch import cmd_patch
from .three import cmd_diff3, cmd_sdiff

__all__ = ["cmd_cmp", "cmd_diff", "cmd_diff3", "cmd_patch", "cmd_sdiff"]
