"""sort (GNU coreutils): keys, in-memory sorting and external merge through the virtual /tmp."""

from .main import cmd_sort

__all__ = ["cmd_sort"]
