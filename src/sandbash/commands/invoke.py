"""The one place that starts a command: build its `Ctx`, run it, map what it raises to a status.

The executor (interp/executor.py) and `sandbash.testing.run_command` both come here, so a command
sees the same context and ends the same way under the shell and under the unit tests.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable, Mapping

from ..identity import Identity
from ..leanclass import Declared
from ..limits import Budget, LimitExceeded, LimitKind
from ..stdio.streams import ClosedStream, SigPipe, Stream, StreamError, StreamReadError
from ..vfs.errors import FsError, strerror
from ..vfs.facade import FsView
from .context import CommandExit, Ctx, DiedOfSignal, Finder, Runner, ScriptRunner, WriteError
from .record import CommandRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random
    from dataclasses import dataclass

    from ..net.config import NetworkConfig
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass

# why a command without a static-check model is refused under a policy
UNMODELLED = "refused by policy: the command declares no effects for the static check"


@dataclass(slots=True)
class Capabilities(metaclass=Declared):
    """What a run lends the commands it starts (sub-command runners, clock, identity, network)."""

    budget: Budget
    runner: Runner | None = None
    script_runner: ScriptRunner | None = None
    finder: Finder | None = None
    clock: Callable[[], float] = time.time
    identity: Identity | None = None
    network: NetworkConfig | None = None
    host: object | None = None  # the HostAccess of host mode
    gate: object | None = None  # the run's policy gate
    died: Callable[[int], None] | None = None  # told the signal a command's own process died of


def invoke(
    record: CommandRecord,
    argv: list[str],
    fds: Mapping[int, Stream],
    fs: FsView,
    env: Mapping[str, str],
    caps: Capabilities,
    rng_of: Callable[[], random.Random] | None = None,
    prefix: Callable[[bool], str] = lambda with_line: "",
    label: str | None = None,
) -> int:
    """Run `record` as `argv` (argv[0] the name it was called by, a path allowed) over `fds`.

    A command's own exit (CommandExit) is its status; SIGPIPE is 141 (silent); a file or stream
    error it did not handle is one GNU-style line and status 1; a Python bug is one line,
    `NAME: internal error (...)`, never a traceback. Limits, cancellation and the shell's own
    control flow (BaseExceptions) pass through. `prefix(with_line)` is the shell's error prefix
    (`bash: line 3: `), asked only when an error is printed; `label` names the command in those
    lines (the program a hashed or aliased name resolved to), argv[0]'s base name by default.
    `rng_of` gives the run's random generator when the command first asks for one (Ctx.rng)."""
    base = argv[0].rsplit("/", 1)[-1] if "/" in argv[0] else argv[0]
    err = fds.get(2)
    extra: dict[str, object] = {"host": caps.host, "gate": caps.gate}
    ctx = Ctx(
        base,
        argv[1:],
        fds.get(0) or ClosedStream(),
        fds.get(1) or ClosedStream(),
        err or ClosedStream(),
        fs,
        env,
        caps.budget,
        fds=dict(fds),
        runner=caps.runner,
        script_runner=caps.script_runner,
        clock=caps.clock,
        rng_of=rng_of,
        extra=extra,
        finder=caps.finder,
        identity=caps.identity,
        net=caps.network,
        argv0=argv[0],
    )

    # the name its messages start with: the program a hashed or aliased name resolved to, else as
    # the tool itself would say it (a path for GNU's, progname.py), read when a message is written
    def name() -> str:
        return label if label is not None and label != base else ctx.prog

    try:
        try:
            status = record.run(ctx)
        except CommandExit as e:
            status = e.status
        except DiedOfSignal as e:
            if caps.died is not None:
                caps.died(e.signal)
            return 128 + e.signal
        finally:
            if ctx.reopened:
                _close_reopened(ctx)
        return _close_stdin(record, ctx, err, status)
    except MemoryError:
        # what slipped past the charged seams is still the memory limit, never an internal error
        raise LimitExceeded(LimitKind.MAX_MEMORY, caps.budget.limits.max_memory) from None
    except RecursionError:
        _say(err, f"{prefix(True)}{name()}: internal error (recursion too deep)\n")
        return 1
    except SigPipe:
        return 141  # the command, a process of its own in bash, dies of SIGPIPE; the shell goes on
    except FsError as e:
        if isinstance(e, StreamError):  # its output file's write failed (a full filesystem)
            return _write_failed(record, name(), e.errno, e.size, err)
        _say(err, f"{name()}: {e.path}: {e.message}\n")
        return 1
    except StreamReadError as e:  # `cmd < dir`: a read that failed, in the words most GNU tools use
        _say(err, f"{name()}: read error: {e.strerror}\n")
        return _close_stdin(record, ctx, err, 1)
    except StreamError as e:  # stdout closed (`>&-`) or not writable: the tool's write error
        return _write_failed(record, name(), e.errno, e.size, err)
    except WriteError as e:  # the same, found by a buffered writer (textbasic's Out)
        return _write_failed(record, name(), e.errno, e.size, err)
    except Exception as e:  # a bug in a command must not reach the caller as a traceback
        _say(err, f"{prefix(False)}{name()}: internal error ({type(e).__name__}: {e})\n")
        return 1


def _write_failed(record: CommandRecord, name: str, code: int | None, size: int, err: Stream | None) -> int:
    """The tool's report of `size` bytes of output it could not write, and its status (its record's)."""
    text, status = record.write_failure.report(name, code or errno.EIO, size)
    _say(err, text)
    return status


def _close_reopened(ctx: Ctx) -> None:
    """Close the files /dev/fd/N operands opened anew (Ctx._reopen), as the process's exit would."""
    for stream in ctx.reopened:
        try:
            stream.close()
        except (FsError, StreamError):
            pass
    ctx.reopened.clear()


def _close_stdin(record: CommandRecord, ctx: Ctx, err: Stream | None, status: int) -> int:
    """The status after the tool's close of standard input (its record's `stdin_close`): closing a
    closed fd 0 fails with EBADF, `PROG: WHAT: Bad file descriptor` after its output, status 1."""
    what = record.stdin_close
    if what is None or not ctx.read_stdin or not isinstance(ctx.stdin, ClosedStream):
        return status
    _say(err, f"{ctx.prog}: {what}: {strerror(errno.EBADF)}\n")  # the tool's own line: its own name
    return status or 1


def _say(stream: Stream | None, text: str) -> None:
    """An error line on the command's stderr; a closed stderr loses it, as in bash."""
    if stream is None:
        return
    try:
        stream.write(text.encode("utf-8", "surrogateescape"))
    except OSError:
        pass
