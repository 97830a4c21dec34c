"""iconv, numfmt, tsort, split, csplit and factor."""

from .iconv import cmd_iconv
from .numfmt import cmd_numfmt
from .small import cmd_factor, cmd_tsort
from .split import cmd_csplit, cmd_split

__all__ = ["cmd_csplit", "cmd_factor", "cmd_iconv", "cmd_numfmt", "cmd_split", "cmd_tsort"]
