"""echo, and the write every output builtin makes: a module of its own, for start-up (nearly every
script echoes, and `echo hi` then needs neither io.py's printf, read and mapfile nor the option
parser they share with the commands)."""

from __future__ import annotations

from ..posix.echo import echo_text
from ..vfs.errors import strerror
from . import builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell


def write_out(sh: Shell, name: str, data: bytes, fd: int = 1) -> int:
    stream = sh.io.get(fd)
    if stream is None or not stream.writable:
        sh.builtin_error(name, "write error: Bad file descriptor")
        return 1
    try:
        stream.write(data)
    except OSError as e:
        sh.builtin_error(name, f"write error: {strerror(e.errno or 0)}")
        return 1
    return 0


@builtin("echo")
def bi_echo(sh: Shell, argv: list[str]) -> int:
    xpg = sh.state.shopts["xpg_echo"]
    text, _ = echo_text(
        argv[1:], xpg, options=not (xpg and sh.state.opts["posix"]), byte_locale=sh.locale_bytes
    )
    return write_out(sh, "echo", text.encode("utf-8", "surrogateescape"))
