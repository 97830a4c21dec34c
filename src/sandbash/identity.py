"""`Identity`: the virtual user and host a script sees (`id`, `whoami`, `hostname`, `$UID`, `~`).

Its own module at the bottom of the package, so the interpreter and the commands (through
`Ctx.identity`) name one type."""

from __future__ import annotations

from .leanclass import Declared

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from .leanclass import dataclass


@dataclass(frozen=True, slots=True)
class Identity(metaclass=Declared):
    """The virtual host and user a script sees."""

    user: str = "user"
    uid: int = 1000
    gid: int = 1000
    group: str = "user"
    hostname: str = "sandbox"
    home: str = "/home/user"
    pid: int = 4242
    ppid: int = 4241
