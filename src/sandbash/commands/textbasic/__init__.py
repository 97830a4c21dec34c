"""cat, tac, head, tail, tee, wc, rev and nl (and helpers shared by the text commands)."""

from .cat import cmd_cat, cmd_rev, cmd_tac, cmd_tee
from .headtail import cmd_head, cmd_tail
from .nl import cmd_nl
from .wc import cmd_wc

__all__ = ["cmd_cat", "cmd_head", "cmd_nl", "cmd_rev", "cmd_tac", "cmd_tail", "cmd_tee", "cmd_wc"]
