"""The command line: `sandbash` (main), its REPL and check/serve front ends."""

from .app import main, program

__all__ = ["main", "program"]
