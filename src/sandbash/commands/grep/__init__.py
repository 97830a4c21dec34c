"""grep, egrep, fgrep (GNU grep 3.8) and rg (the common ripgrep options).

core.py holds the chunked searcher and grep's command line; rg.py maps
ripgrep's options onto the same searcher.
"""

from __future__ import annotations

from .core import cmd_egrep, cmd_fgrep, cmd_grep
from .rg import cmd_rg

__all__ = ["cmd_egrep", "cmd_fgrep", "cmd_grep", "cmd_rg"]
