"""curl and wget: present only when the embedding program configures network access."""

from .curl import cmd_curl
from .wget import cmd_wget

__all__ = ["cmd_curl", "cmd_wget"]
