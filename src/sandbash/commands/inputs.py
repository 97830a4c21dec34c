"""The file-operand loop of the commands that read files (`ctx.inputs(files)`).

    inputs = ctx.inputs(files)
    for name, stream in inputs:
        with inputs.reading():
            ...  # read `stream`
    return inputs.status

No operand means `-`, which is stdin; each operand is opened in turn and closed (unless it is
stdin or /dev/fd/N) when the loop moves on; one that cannot be opened or read is named on
stderr in the tool's own wording, the loop goes on with the next, and `status` becomes 1.
A directory opens in GNU and fails at its first read, so it is reported with the read wording.

The wordings are format strings over `{f}` (the name quoted only when needed, GNU quotef),
`{af}` (always quoted, quoteaf), `{name}` (as given) and `{err}` (strerror of the error).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType

from ..stdio.streams import DirStream, Stream, StreamError
from ..vfs.errors import FsError, strerror
from .context import Ctx, _dev_fd
from .gnuquote import quoteaf, quotef

GNU_ERROR = "{f}: {err}"


def close_input(ctx: Ctx, name: str, stream: Stream) -> None:
    """Close an input the command opened (never stdin or an inherited fd)."""
    if stream is not ctx.stdin and _dev_fd(name) is None:
        stream.close()


def format_error(template: str, name: str, err: int | None) -> str:
    return template.format(f=quotef(name), af=quoteaf(name), name=name, err=strerror(err or errno.EIO))


class Inputs:
    """The operands one command reads, in order; see the module docstring."""

    __slots__ = (
        "ctx",
        "dash_is_stdin",
        "names",
        "open_error",
        "read_error",
        "current",
        "read_failed",
        "on_read_error",
        "tried",
        "opened",
        "failures",
        "stdin_name",
        "flush",
        "stop_on_read_error",
        "on_open_error",
        "stream",
        "dir_errno",
        "dirs_open",
        "open_errors",
    )

    def __init__(
        self,
        ctx: Ctx,
        names: Sequence[str],
        open_error: str = GNU_ERROR,
        read_error: str | None = None,
        flush: Callable[[], None] | None = None,
    ) -> None:
        self.ctx = ctx
        # gnulib's error() flushes stdout before it writes: a tool's buffered output comes first
        self.flush = flush
        self.names = list(names) or ["-"]
        self.open_error = open_error
        self.read_error = open_error if read_error is None else read_error
        self.current = ""
        self.stream: Stream | None = None  # the operand open now
        # operands reached, opened (a directory opens in GNU), and named on stderr
        self.tried = self.opened = self.failures = 0
        self.read_failed = False  # an operand opened but could not be read (iconv stops there)
        # what the tool still writes, before the message, for an operand it opened but could not
        # read (paste -s: the line's newline; head: the `==> d <==` header)
        self.on_read_error: Callable[[], None] | None = None
        self.stdin_name = "-"  # how messages name stdin (head, tail: "standard input")
        self.dash_is_stdin = True  # False: an operand `-` names a file (util-linux rev)
        self.on_open_error: Callable[[], None] | None = None  # sed: the status it leaves
        # iconv and sed stop at an operand they cannot read (they do not even open the next)
        self.stop_on_read_error = False
        # what reading a directory operand fails with (EISDIR; GNU tac seeks first: EINVAL)
        self.dir_errno = errno.EISDIR
        # a directory operand is handed to the body as a stream whose reads fail, for a tool that
        # reads as if the failure were the end of its input (cksum's crc: `cksum d` sums nothing)
        self.dirs_open = False
        # a wording of its own for some errnos (binutils strings: only ENOENT is "No such file";
        # a refused name is named with its refusal and rule, never as missing)
        self.open_errors: dict[int, str] = {}

    def fail(self, template: str, err: int | None) -> None:
        """Name the current operand on stderr in `template`'s words; the status becomes 1."""
        shown = self.stdin_name if self.current == "-" else self.current
        if self.flush is not None:
            self.flush()
        self.ctx.error(format_error(template, shown, err))
        self.failures += 1

    @property
    def status(self) -> int:
        """1 once any operand could not be opened or read."""
        return 1 if self.failures else 0

    def fail_reading(self, err: int | None) -> None:
        self.read_failed = True
        if self.on_read_error is not None:
            self.on_read_error()
        self.fail(self.read_error, err)

    def __iter__(self) -> Iterator[tuple[str, Stream]]:
        for name in self.names:
            if self.read_failed and self.stop_on_read_error:
                return
            self.current = name
            self.tried += 1
            try:
                stream = self.ctx.open_in(name if self.dash_is_stdin or name != "-" else "./-")
            except FsError as e:
                if e.errno != errno.EISDIR:
                    if self.on_open_error is not None:
                        self.on_open_error()
                    self.fail(self.open_errors.get(e.errno or 0, self.open_error), e.errno)
                    continue
                if not self.dirs_open:
                    self.opened += 1
                    self.fail_reading(self.dir_errno)
                    continue
                stream = DirStream()
            self.opened += 1
            self.stream = stream
            try:
                yield name, stream
            finally:
                self.close()

    def close(self) -> None:
        """Close the operand being read now (the loop does it when it moves on; a command that
        leaves the loop early and keeps running, as sed does, calls this)."""
        if self.stream is not None:
            stream, self.stream = self.stream, None
            close_input(self.ctx, self.current, stream)

    def reading(self) -> Inputs:
        """`with inputs.reading():` around the body that reads the current operand: a read error
        names it and the loop goes on (a plain context manager: it runs once per operand)."""
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if isinstance(error, (FsError, StreamError)):
            # (stdin redirected from a directory fails as a directory operand does)
            self.fail_reading(self.dir_errno if error.errno == errno.EISDIR else error.errno)
            return True
        if error is not None:  # a limit or a write error ends the command: free the file now
            self.close()
        return False
