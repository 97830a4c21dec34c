"""How the sqlite3 shell stops: raised by its statements (sqlite.py) and its dot-commands
(sqlite_dot.py), caught by the shell's input loop. Its own module so that neither of those two
needs the other at run time."""

from __future__ import annotations


class ShellExit(Exception):
    """.quit / .exit: stop reading input; the shell ends with `status`."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class SqlFailed(Exception):
    """A statement failed: the message is printed, `status` is what the shell would exit with."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status
