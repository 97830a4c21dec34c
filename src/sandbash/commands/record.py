"""One declaration per command: `@declare(...)` over its function.

A `CommandRecord` carries everything the rest of sandbash needs to know about a command: the
function, the names it answers to, the option spec it parses with, the family it spells or the
engines it uses (policy identity), whether it needs a network, and what it does with files,
sub-commands and URLs for the static check (`effects`). The check, `--help`, the policy's identity
rules and the lazy index (`commands/index.py`, generated from these records) all read it, so a
command cannot be added without being checkable.

Why the effects are a named shape (`Effects`) and not a function here: the models are the static
check's own code (they parse argv into file actions, and some parse sed, awk or jq programs), and
commands must not import the check. The enum is the contract between the two layers; a test
asserts that every member has a model in `check/models.py` and that every record names one.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterable

from ..leanclass import str_enum
from ..stdio.streams import STDIO_BLOCK
from ..vfs.errors import strerror
from .context import CommandFn, Ctx
from .options import CommandSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from enum import StrEnum
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass, field

    StrEnum = object  # (str_enum makes the class a StrEnum)


@str_enum
class Effects(StrEnum):
    """What a command does with files, sub-commands and the network, as the static check models it.

    Shared shapes first; then one member per command whose model is its own."""

    NONE = "none"  # touches no file, runs nothing
    READS = "reads"  # reads its operands (or stdin)
    STAT = "stat"  # looks at its operands (stat, readlink, realpath, df)
    LIST_TREE = "list-tree"  # walks the trees under its operands (du)
    OUTPUTS = "outputs"  # reads its operands; writes the file of -o/--output (sort, shuf, iconv)
    IN_OUT = "in-out"  # [INPUT [OUTPUT]] (uniq, xxd)
    OPAQUE = "opaque"  # only the run knows (a program text the check cannot read): indeterminate
    HASHSUM = "hashsum"
    CP = "cp"
    MV = "mv"
    INSTALL = "install"
    LN = "ln"
    RM = "rm"
    SHRED = "shred"
    RMDIR = "rmdir"
    MKDIR = "mkdir"  # mkdir, mkfifo: create the operands, not following a last symlink
    MKNOD = "mknod"  # creates its first operand (the others are its type and device numbers)
    TOUCH = "touch"  # touch, truncate
    CHMOD = "chmod"  # chmod, chown, chgrp: MODE/OWNER first, then the files
    MKTEMP = "mktemp"
    SPLIT = "split"
    CSPLIT = "csplit"
    TEE = "tee"
    COMPRESS = "compress"  # gzip, gunzip, bzip2, ...: replace each file by its (de)compressed form
    DECOMPRESS_CAT = "decompress-cat"  # zcat, bzcat, xzcat: read only
    PATCH = "patch"
    TAR = "tar"
    ZIP = "zip"
    UNZIP = "unzip"
    DATE = "date"
    LS = "ls"
    DIFF = "diff"
    FILE = "file"
    TREE = "tree"
    ENV = "env"
    NICE = "nice"
    NOHUP = "nohup"
    STDBUF = "stdbuf"
    TIMEOUT = "timeout"
    WATCH = "watch"  # runs its operands through `sh -c` (or, with -x, as a program), repeatedly
    TIME = "time"
    XARGS = "xargs"
    FIND = "find"
    GREP = "grep"
    SED = "sed"
    AWK = "awk"
    JQ = "jq"
    CURL = "curl"
    WGET = "wget"
    TEST = "test"
    OD = "od"  # reads its operands, but for the offsets among them (od FILE +N)

    @property
    def writes(self) -> bool:
        """A command whose purpose is changing files (`help` lists it under remediation mode)."""
        return self in _WRITERS


_WRITERS = frozenset(
    {
        Effects.CP,
        Effects.MV,
        Effects.INSTALL,
        Effects.LN,
        Effects.RM,
        Effects.SHRED,
        Effects.RMDIR,
        Effects.MKDIR,
        Effects.MKNOD,
        Effects.TOUCH,
        Effects.CHMOD,
        Effects.MKTEMP,
        Effects.SPLIT,
        Effects.CSPLIT,
        Effects.TEE,
        Effects.COMPRESS,
        Effects.PATCH,
        Effects.TAR,
        Effects.ZIP,
        Effects.UNZIP,
    }
)


@dataclass(frozen=True)
class WriteFailure:
    """How a tool reports standard output it could not write (a full filesystem, /dev/full, a
    closed descriptor) and the status it exits with. A tool finds the failure either as it exits,
    when its output still fits glibc's first buffer (coreutils' close_stdout: `at_exit`), or when
    it writes a full buffer while it runs (its own check: `in_flight`, "" for the same lines);
    `closed`: the lines for a closed descriptor where they differ from `at_exit`. Each is the whole
    text, formatted with {name} (the tool's name), {err} (the C library's wording of the error)
    and {close_err}: `: ERR` when closing the stream failed too (a closed descriptor), else ""
    (gnulib's close_stream clears errno when only an earlier write had failed: `wc: write error`)."""

    status: int = 1
    at_exit: str = "{name}: write error: {err}\n"
    in_flight: str = ""
    in_flight_status: int | None = None
    closed: str = ""

    def report(self, name: str, code: int, size: int) -> tuple[str, int]:
        """The lines and the status for a write of `size` bytes that failed with errno `code`."""
        err = strerror(code)
        close_err = f": {err}" if code == errno.EBADF else ""
        status, form = self.status, self.at_exit
        if size >= STDIO_BLOCK and self.in_flight:
            form = self.in_flight
            if self.in_flight_status is not None:
                status = self.in_flight_status
        elif code == errno.EBADF and self.closed:
            form = self.closed
        return form.format(name=name, err=err, close_err=close_err), status


# coreutils' close_stdout: `NAME: write error: ERR`, status 1
WRITE_ERROR = WriteFailure()
# a tool whose failed write comes before its close (wc, the checksum tools): close_stdout's errno is gone
WRITE_ERROR_BARE = WriteFailure(at_exit="{name}: write error{close_err}\n")
# a tool whose own write check reports first, then close_stdout again (tr, paste)
WRITE_ERROR_TWICE = WriteFailure(in_flight="{name}: write error: {err}\n{name}: write error{close_err}\n")
# close_stdout at exit; without errno when the tool's own write finds it (tac, rev)
LOSES_ERRNO = WriteFailure(in_flight="{name}: write error{close_err}\n")
# GNU diffutils: `diff: standard output: ERR`, trouble status
STDOUT_STATUS_2 = WriteFailure(status=2, at_exit="{name}: standard output: {err}\n")


@dataclass(frozen=True, eq=False)
class CommandRecord:
    """A command: call it with a `Ctx` for its status.

    `names`: every name it answers to. `spells`: the implementation these names spell (`egrep`
    spells `grep`: the policy decides on the family); None when the names are their own program.
    `uses`: implementations whose engine it runs behind a front end of its own (`rg` uses grep).
    `network`: exists only when the sandbox has a network. `host_only`: exists only in host mode
    (a `HostAccess`: ps, ss, systemctl). `host_variant`: the host-mode implementation of its names,
    run instead of the sandbox's own when the Bash has a HostAccess (the real uname, uptime, df).
    `stdin_close`: what the tool's failed close of a closed standard input names, when it closes
    fd 0 at exit after reading `-` as coreutils' tools do (`cat 0<&-`: `cat: closing standard
    input: Bad file descriptor`); None for tools that never close it (invoke's `_close_stdin`).
    `write_failure`: how it reports standard output it could not write (WriteFailure).
    `module`/`attr`: where the record is bound, for the lazy index (None for a record built at run
    time, e.g. a custom command)."""

    names: tuple[str, ...]
    run: CommandFn
    effects: Effects | None
    spec: CommandSpec | None = None
    spells: str | None = None
    uses: frozenset[str] = frozenset()
    network: bool = False
    host_only: bool = False
    host_variant: bool = False
    summary: str = ""
    stdin_close: str | None = None
    write_failure: WriteFailure = WRITE_ERROR
    module: str | None = field(default=None, compare=False)
    attr: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.names:
            raise ValueError("a command needs a name")
        for n in self.names:
            if not n or any(c in n for c in " \t\n/=$"):
                raise ValueError(f"invalid command name: {n!r}")

    @property
    def name(self) -> str:
        return self.names[0]

    def family(self, name: str) -> str:
        """The implementation `name` spells (itself when the record spells nothing)."""
        return self.spells or name

    def __call__(self, ctx: Ctx) -> int:
        return self.run(ctx)


def declare(
    *names: str,
    effects: Effects,
    spec: CommandSpec | None = None,
    spells: str | None = None,
    uses: Iterable[str] = (),
    network: bool = False,
    host_only: bool = False,
    host_variant: bool = False,
    summary: str = "",
    stdin_close: str | None = None,
    write_failure: WriteFailure = WRITE_ERROR,
) -> Callable[[CommandFn], CommandRecord]:
    """The decorator over a built-in command's function: `@declare("rev", spec=SPEC, effects=Effects.READS)`.
    The record replaces the function in its module (it is callable the same way)."""

    def wrap(fn: CommandFn) -> CommandRecord:
        doc = summary or (spec.summary if spec is not None else "")
        return CommandRecord(
            tuple(names),
            fn,
            effects,
            spec,
            spells,
            frozenset(uses),
            network,
            host_only,
            host_variant,
            doc,
            stdin_close,
            write_failure,
            module=fn.__module__,
            attr=fn.__name__,
        )

    return wrap
