"""The Python API: `Bash`, `Session`, `ExecResult`.

A `Bash` owns a filesystem; each `exec` runs a script in a fresh shell over
that filesystem. A `Session` keeps the shell (cwd, variables, functions,
options, traps) between calls, the way a model's bash tool expects.
"""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import codecs
import posixpath
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from .audit import Audit, OutsideRunRecorder, begin_run, end_run
from .commands.registry import CommandTable
from .errors import ExecutionCancelled, ExecutionLimitError
from .interp.control import ControlFlow, ExitShell
from .interp.framestack import with_room
from .interp.runtime import CommandGate, Identity, Runtime
from .interp.shell import Shell
from .interp.state import SET_OPTIONS, SHOPT_OPTIONS, ShellState
from .limits import (
    Budget,
    Cancelled,
    CancelToken,
    DeadlineExpired,
    JobSignal,
    LimitExceeded,
    LimitKind,
    Limits,
)
from .result import ExecResult as ExecResult  # re-exported: its public home stays sandbash.api
from .shvars.vars import Params, params_size
from .stdio.hostin import HostInput
from .stdio.streams import BufferWriter, BytesReader, SigPipe, Stream
from .vfs.base import Backend
from .vfs.bindir import SHELL_NAMES, mount_command_dirs
from .vfs.errors import FsError
from .vfs.facade import FsView, Vfs
from .vfs.memory import DiskQuota, FileContent, MemoryFs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .aio import ExecStream, OnChunk
    from .check import CheckReport
    from .commands.record import CommandRecord
    from .custom import Command
    from .host import HostAccess
    from .net.config import NetworkConfig
    from .policy import Gate, Policy

# deep bash recursion (functions, nested substitutions) needs Python frames;
# the limits (max_call_depth, max_ast_depth) keep it well below this
if sys.getrecursionlimit() < 20_000:
    sys.setrecursionlimit(20_000)

DEFAULT_ENV = {
    "HOME": "/home/user",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "USER": "user",
    "LOGNAME": "user",
    "SHELL": "/bin/bash",
    "LANG": "C.UTF-8",
    "TERM": "dumb",
}


def clean_text(s: str) -> str:
    """Text from the caller as the sandbox holds it: lone surrogates (a JSON
    `"\\ud800"` decodes to one) become the bytes they would encode to, so no
    later encode can fail. Bytes already escaped (U+DC80..U+DCFF) stay as they are."""
    try:
        s.encode("utf-8", "surrogateescape")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "sandbash.lone_surrogates").decode("utf-8", "surrogateescape")


def _lone_surrogates(e: UnicodeError) -> tuple[bytes, int]:
    """The `clean_text` encode's error handler: an escaped byte (U+DC80..U+DCFF) is that byte,
    any other surrogate its three UTF-8 bytes (`surrogatepass` alone would turn an escaped byte
    into three when the string also held a lone surrogate)."""
    assert isinstance(e, UnicodeEncodeError)
    out = bytearray()
    for c in e.object[e.start : e.end]:
        n = ord(c)
        out += bytes((n - 0xDC00,)) if 0xDC80 <= n <= 0xDCFF else c.encode("utf-8", "surrogatepass")
    return bytes(out), e.end


codecs.register_error("sandbash.lone_surrogates", _lone_surrogates)


def _stdin_stream(stdin: bytes | str | Stream, budget: Budget) -> Stream:
    """The run's fd 0: text or bytes held in memory, or a stream the embedder hands over
    (a HostInput waits for data only as long as the run's deadline allows)."""
    if isinstance(stdin, Stream):
        if isinstance(stdin, HostInput):
            stdin.checkpoint = budget.check_time
        return stdin
    return BytesReader(
        clean_text(stdin).encode("utf-8", "surrogateescape") if isinstance(stdin, str) else stdin
    )


def set_shell_options(state: ShellState, options: Mapping[str, bool]) -> None:
    """`set -o NAME` / `shopt -s NAME` (or their opposites) for names already checked."""
    for name, on in options.items():
        (state.opts if name in SET_OPTIONS else state.shopts)[name] = bool(on)


def _detach_stdin(stdin: object) -> None:
    """The embedder's input stream no longer checks the finished run's deadline."""
    if isinstance(stdin, HostInput):
        stdin.checkpoint = None


class _CappedWriter(BufferWriter):
    """One of the run's output streams under `max_output_size` (shared with the other): a write
    that crosses the cap keeps (and passes on) the part that fits, then ends the run."""

    def __init__(
        self, total: list[int], cap: int, on_write: Callable[[bytes], None] | None, keep: bool
    ) -> None:
        super().__init__(None, on_write, keep)
        self.total = total
        self.cap = cap

    def write(self, data: bytes) -> None:
        room = self.cap - self.total[0]
        if len(data) > room:
            if room > 0:
                self.total[0] += room
                super().write(data[:room])
            raise LimitExceeded(LimitKind.MAX_OUTPUT_SIZE, self.cap)
        self.total[0] += len(data)
        super().write(data)


def _records(commands: Iterable[CommandRecord | Command]) -> list[CommandRecord]:
    """Bash(commands=...): records, or `Command` objects made records (sandbash.custom)."""
    items = list(commands)
    if not items:
        return []  # (commands/record.py, with the command context and option parser, only for custom commands)
    from .commands.record import CommandRecord

    records = [c for c in items if isinstance(c, CommandRecord)]
    if len(records) == len(items):
        return records
    from .custom import as_record  # the class form only (custom reads importlib.metadata)

    return [as_record(c) for c in items]


def _limits(value: Limits | str | Mapping[str, float] | None) -> Limits:
    if value is None:
        return Limits()
    if isinstance(value, str):
        return Limits.profile(value)
    if isinstance(value, Mapping):  # overrides of the defaults, as exec(limits={...}) takes them
        return Limits().with_overrides(**value)
    if not isinstance(value, Limits):
        raise TypeError(f"limits: expected Limits, a profile name or a mapping, not {type(value).__name__}")
    return value


# limits the Bash applies when it is built, for every run (the in-memory filesystem's quota)
_BUILT_LIMITS = ("max_filesystem_bytes", "max_filesystem_files")


def _absolute(path: str, base: str) -> str:
    """`path` counted from `base` as an absolute, normal name (no `.`, `..`, doubled or trailing
    slashes)."""
    return "/" + posixpath.normpath(posixpath.join(base, path)).lstrip("/")


class Bash:
    """A sandboxed bash. One `Bash` may serve concurrent runs (`exec`/`aexec`/`astream`, sessions)
    from several threads and the embedder's own file calls at once: what belongs to a run (its
    deadline, its policy gate and audit recorder, its network hooks) travels with the run, so no
    run can stop, observe or steer another through the `Bash` (docs/threat-model.md, Tenancy).
    The runs share the filesystem: two runs writing the same file race as two processes would.

    `fs` is a backend from `sandbash.vfs` (`MemoryFs`, `OverlayFs`,
    `ReadWriteFs`, `SqliteFs`, or a `MountFs` combining them) or a ready
    `Vfs`; by default a `MemoryFs` whose quota comes from `limits`. A backend
    given here keeps its own quota. `/dev` is always served from memory.
    `bash.fs` is the filesystem seen from `cwd` (read_file, write_file, stat,
    chmod, symlink, listdir, walk, ...).

    `policy` (`sandbash.policy.Policy`) decides every command and file operation
    (and network request); `audit` (`sandbash.audit.Audit`) sends the events to
    its sinks. `ExecResult.events` always holds the run's events (run start/end,
    decisions, limits); `bash.check(script)` is the static check.

    `commands` are this sandbox's own commands (`sandbash.custom.command` records or `Command`
    objects), beside the built-ins (one of the same name replaces the built-in); `bash.commands` is
    the table it runs."""

    def __init__(
        self,
        *,
        files: Mapping[str, FileContent] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str = "/home/user",
        fs: Backend | Vfs | None = None,
        limits: Limits | str | Mapping[str, float] | None = None,
        identity: Identity | None = None,
        clock: Callable[[], float] | None = None,
        seed: int | None = None,
        command_gate: CommandGate | None = None,
        network: NetworkConfig | None = None,
        policy: Policy | None = None,
        audit: Audit | None = None,
        host: HostAccess | None = None,
        commands: Iterable[CommandRecord | Command] = (),
    ) -> None:
        self.limits = _limits(limits)
        self.commands = CommandTable(_records(commands))
        self.host = host
        self.host_warnings: list[str] = []
        if host is not None:  # host mode: granted host directories mounted, grants and services in the policy
            fs, policy, identity, self.host_warnings = host.configure(fs, policy, identity, self.limits)
        self.network = network
        self._network_base = network  # before the policy's hooks: each run attaches its own
        self.identity = identity or Identity()
        self.clock = clock or time.time
        if isinstance(fs, Vfs):
            self.vfs = fs
        else:
            backend = fs
            if backend is None:
                quota = DiskQuota(self.limits.max_filesystem_bytes, self.limits.max_filesystem_files)
                backend = MemoryFs(
                    quota=quota, clock=self.clock, uid=self.identity.uid, gid=self.identity.gid
                )
            self.vfs = Vfs(backend, uid=self.identity.uid, gid=self.identity.gid, clock=self.clock, seed=seed)
        self.env = dict(DEFAULT_ENV if env is None else env)
        if env is None:
            self.env["HOME"] = self.identity.home
            self.env["USER"] = self.env["LOGNAME"] = self.identity.user
        if host is not None:
            self.env.setdefault("ALLOWED_PATHS", ":".join(host.roots()))  # as rshell sets it
        # (an absolute, normal name: `cwd="work"` or "/tmp/../w/" named $PWD as given)
        self.cwd = cwd = _absolute(cwd, "/")
        self.seed = seed
        self.command_gate = command_gate
        for path in files or {}:
            # a file given where the working directory is to be (or above it): the cwd is what
            # conflicts, not the file (else the file's write fails on the directory made for cwd)
            here = posixpath.normpath(posixpath.join("/", cwd))
            full = posixpath.normpath(posixpath.join(here, path))
            if here == full or here.startswith(full.rstrip("/") + "/"):
                raise ValueError(f"cwd {cwd!r}: {path!r} in files is a file there, not a directory")
        view = self.vfs.view("/")
        for d in ("/tmp", "/home", self.identity.home, "/bin", "/usr/bin", cwd):
            try:
                # (a mount below it leaves a read-only stand-in there: made a real directory)
                self.vfs.tree.materialize(d, 0o755, self.identity.uid, self.identity.gid)
                view.mkdir(d, parents=True)
            except FsError:
                pass
        # over the directories just made (so /usr stays an ordinary directory of the backend)
        mount_command_dirs(
            self.vfs.tree, self._command_listed, lambda: [*SHELL_NAMES, *self.commands.names()]
        )
        try:
            view.chmod("/tmp", 0o1777)
        except FsError:
            pass
        if not view.is_dir(cwd):  # created above when it can be: a file there, or a read-only mount
            raise ValueError(f"cwd {cwd!r}: not a directory in the sandbox and cannot be created")
        for path, content in (files or {}).items():
            try:
                self.write_file(path, content)
            except (
                FsError
            ) as e:  # the embedder's own argument (a directory there, the cwd, a read-only mount)
                raise ValueError(f"files: {path!r}: {e.message}") from None
        self._init_policy(policy, audit)

    def _workdir(self, cwd: str | None) -> str:
        """Where a run or a session starts: the Bash's cwd, or `cwd` counted from it (as `cd` would),
        made when missing as the Bash's own is; ValueError when it cannot be a directory (a file
        there, a read-only mount). Never a relative or unnormalised $PWD, never a missing one."""
        if cwd is None:
            return self.cwd
        place = _absolute(cwd, self.cwd)
        view = self.vfs.view("/")
        try:
            self.vfs.tree.materialize(place, 0o755, self.identity.uid, self.identity.gid)
        except FsError:
            pass  # (a file on the way: the checks below say so)
        if not view.is_dir(place):
            try:
                view.mkdir(place, parents=True)
            except FsError as e:
                raise ValueError(
                    f"cwd {cwd!r}: not a directory in the sandbox and cannot be created: {e.message}"
                ) from None
        return place

    def _command_listed(self, name: str) -> bool:
        """Whether /bin and /usr/bin show `name`: a command this sandbox runs (curl and wget only
        with a network) that the policy does not hide."""
        if name not in SHELL_NAMES:
            if not self.commands.known(name):
                return False
            if self._network_base is None and self.commands.needs_network(name):
                return False
            if self.host is None and self.commands.needs_host(name):
                return False
        gate = getattr(self, "gate", None)  # None until the policy is installed
        return gate is None or gate.visible(name, "command", name)

    def _init_policy(self, policy: Policy | None, audit: Audit | None) -> None:
        """Install the policy's gates (after the initial files: the embedder's own writes are not
        the script's). `mode=None` is settled against this filesystem."""
        self.audit = audit
        self.policy = policy.effective(self.vfs) if policy is not None else None
        self.gate: Gate | None = None
        if self.policy is None:
            return
        from .policy import Gate  # only a sandbox with a policy needs it

        # the shared gate serves the embedder's own file calls (recorded to the sinks only);
        # each run gets `gate.bind(its recorder)` (see _audited)
        self.gate = Gate(self.policy, OutsideRunRecorder(audit) if audit is not None else None)
        self.vfs.gate = self.gate.fs
        self.vfs.gate_entries = self.policy.decide is not None
        if self.network is not None:
            self.network = self.gate.attach_network(self.network)

    def check(self, script: str) -> CheckReport:
        """The static check of `script` against this sandbox's policy, files and directory."""
        from .check import check
        from .policy import Policy

        return check(
            script,
            self.policy or Policy(),
            fs=self.vfs,
            cwd=self.cwd,
            env=self.env,
            commands=self.commands,
            warnings=self.host_warnings,
        )

    def _audited(
        self, rt: Runtime, script: str, limits: Limits, cwd: str, run: Callable[[], ExecResult]
    ) -> ExecResult:
        """Run with the run's audit recorder: run start/end (and limit) events, ExecResult.events."""
        rec = begin_run(self.audit, script, limits, self.policy.describe() if self.policy else None, cwd)
        gate = self.gate.bind(rec) if self.gate is not None else None
        rt.audit = rec
        rt.policy_gate = gate
        rt.audit_commands = self.audit is not None or self.gate is not None
        # the run's own hooks, on the run's own Vfs (T-TEN-1): never on self.vfs
        rt.vfs.gate = gate.fs if gate is not None else self.vfs.gate
        rt.vfs.checkpoint = rt.budget.check_time
        try:
            result = run()
        except ExecutionLimitError as e:
            e.result.events = end_run(
                rec,
                e.result.exit_code,
                len(e.result.stdout_bytes),
                len(e.result.stderr_bytes),
                limit=e.limit,
                limit_value=e.value,
                message=e.message,
            )
            raise
        except ExecutionCancelled as e:
            e.result.events = end_run(
                rec,
                e.result.exit_code,
                len(e.result.stdout_bytes),
                len(e.result.stderr_bytes),
                cancelled=True,
            )
            raise
        finally:
            rt.vfs.checkpoint = None  # a session's Vfs outlives this run's budget
        result.events = end_run(rec, result.exit_code, len(result.stdout_bytes), len(result.stderr_bytes))
        return result

    # ------------------------------------------------------------ files

    @property
    def fs(self) -> FsView:
        return self.vfs.view(self.cwd)

    def write_file(self, path: str, content: FileContent) -> None:
        view = self.fs
        full = view.abspath(path)
        parent = full.rsplit("/", 1)[0] or "/"
        view.mkdir(parent, parents=True)
        if callable(content):
            content = content()
        data = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else bytes(content)
        view.write_bytes(full, data)

    def read_file(self, path: str) -> bytes:
        """The file's exact bytes (relative paths count from `cwd`); `read_text` decodes them."""
        return self.fs.read_bytes(path)

    def read_text(self, path: str, encoding: str = "utf-8", errors: str = "replace") -> str:
        """The file as text (invalid UTF-8 shown as U+FFFD unless `errors` says otherwise)."""
        return self.read_file(path).decode(encoding, errors)

    # ------------------------------------------------------------ running

    def _new_shell(
        self,
        limits: Limits,
        cancel: CancelToken | None,
        env: Mapping[str, str],
        cwd: str,
        stdin: bytes | str | Stream,
        out: Stream,
        err: Stream,
        mode: str,
    ) -> tuple[Shell, Runtime]:
        budget = Budget(limits, cancel)
        run_vfs = self.vfs.bind(self.vfs.gate, None)  # its hooks are set per run (_audited)
        rt = Runtime(
            run_vfs,
            limits,
            budget,
            identity=self.identity,
            clock=self.clock,
            command_gate=self.command_gate,
            network=self.network,
        )
        rt.host = self.host
        rt.commands = self.commands
        if self.gate is not None and self._network_base is not None:
            # the run's requests are decided (and recorded) by the gate of the run using rt
            rt.network = self.gate.attach_network(self._network_base, lambda: rt.policy_gate)
        view = run_vfs.view(cwd)
        state = ShellState(view, {0: _stdin_stream(stdin, budget), 1: out, 2: err})
        state.vars.acct.budget = budget  # what the shell's variables hold counts towards max_memory
        if self.seed is not None:
            # reproducible from the seed and the order of runs, yet no two runs share a sequence:
            # one run must not know another's $RANDOM or mktemp names (T-TEN-6)
            state.rng.seed(run_vfs.rng.getrandbits(128))
        state.mode = mode
        if mode == "file":
            state.shell_name = "bash"
        sh = Shell(state, rt)
        sh.init_variables(dict(env))
        sh.va.import_options(env)  # (SHELLOPTS=errexit in the run's environment: as a bash started so)
        return sh, rt

    def exec(
        self,
        script: str,
        *,
        stdin: bytes | str | Stream = b"",
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        args: Sequence[str] | None = None,
        replace_env: bool = False,
        limits: Limits | str | Mapping[str, float] | None = None,
        cancel: CancelToken | None = None,
        on_stdout: Callable[[bytes], None] | None = None,
        on_stderr: Callable[[bytes], None] | None = None,
        keep_output: bool = True,
        mode: str = "c",
        arg0: str = "bash",
        positional: Sequence[str] = (),
        options: Mapping[str, bool] | None = None,
    ) -> ExecResult:
        """Run `script` in a fresh shell. `args` are appended, unexpanded, to
        the first command the script runs. `options` turns `set -o`/`shopt`
        options on or off first (`{"errexit": True, "pipefail": True}`, as
        `bash -e -o pipefail`; an unknown name is a ValueError). Raises
        ExecutionLimitError (with the partial result) when a limit is hit."""
        bad = [name for name in options or () if name not in SET_OPTIONS and name not in SHOPT_OPTIONS]
        if bad:
            raise ValueError(f"unknown shell option {bad[0]!r} (the names of set -o and shopt)")
        run_limits = self._run_limits(limits)
        environment = dict(env or {}) if replace_env else {**self.env, **(env or {})}
        environment = {clean_text(k): clean_text(v) for k, v in environment.items()}
        script = clean_text(script)
        out, err = self._writers(run_limits, on_stdout, on_stderr, keep_output)
        cwd = self._workdir(cwd)
        sh, rt = self._new_shell(run_limits, cancel, environment, cwd, stdin, out, err, mode)
        sh.state.arg0 = arg0
        sh.state.positional = list(positional)
        set_shell_options(sh.state, options or {})
        if args:
            sh.pending_args = [clean_text(a) for a in args]
        try:
            return self._audited(rt, script, run_limits, cwd, lambda: _run(sh, rt, script, out, err))
        finally:
            _detach_stdin(stdin)

    def _run_limits(self, limits: Limits | str | Mapping[str, float] | None) -> Limits:
        if limits is None:
            return self.limits
        if isinstance(limits, Mapping):
            # the filesystem quota is fixed when the Bash is built (its files are shared by every
            # run): a run's own value would be ignored, so naming one is an error, not a no-op
            for name in _BUILT_LIMITS:
                if name in limits and limits[name] != getattr(self.limits, name):
                    raise ValueError(
                        f"{name} is the shared filesystem's quota, fixed when the Bash is built: "
                        f"pass it to Bash(limits=...), not to one run"
                    )
            return self.limits.with_overrides(**limits)
        return _limits(limits)

    @staticmethod
    def _writers(
        limits: Limits,
        on_stdout: Callable[[bytes], None] | None,
        on_stderr: Callable[[bytes], None] | None,
        keep: bool,
    ) -> tuple[BufferWriter, BufferWriter]:
        total = [0]  # stdout and stderr share the cap
        cap = limits.max_output_size
        return _CappedWriter(total, cap, on_stdout, keep), _CappedWriter(total, cap, on_stderr, keep)

    # ------------------------------------------------------------ asyncio

    async def aexec(self, script: str, *, timeout: float | None = None, **kw: Any) -> ExecResult:
        """`exec` in a worker thread. Cancelling the awaiting task (or
        `asyncio.timeout`) cancels the run; `timeout` (seconds) is the run's own
        wall-clock limit (ExecutionLimitError with the partial result).
        `on_stdout`/`on_stderr` callbacks are called from the worker thread."""
        kw = _with_timeout(self, kw, timeout)
        cancel = kw.pop("cancel", None)
        from .aio import run_cancellable  # asyncio loads only for async callers (startup time)

        return await run_cancellable(lambda token: self.exec(script, **kw, cancel=token), cancel)

    def astream(self, script: str, *, timeout: float | None = None, **kw: Any) -> ExecStream:
        """Run `script`, yielding its output as it is written (`async for
        chunk in bash.astream(...)`); `.result` holds the ExecResult after."""
        kw = _with_timeout(self, kw, timeout)

        def start(out: OnChunk, err: OnChunk, token: CancelToken) -> ExecResult:
            return self.exec(script, **kw, on_stdout=out, on_stderr=err, cancel=token)

        from .aio import ExecStream

        return ExecStream(start)

    def session(self, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> Session:
        return Session(self, env=env, cwd=cwd)

    def restore(self, data: bytes) -> Session:
        """A session from `Session.snapshot()` bytes (docs/snapshots.md). Its in-memory files replace
        this sandbox's, so restore into a `Bash` made for it; limits, policy, network, identity and
        host mounts are this `Bash`'s. A damaged, oversized or incompatible snapshot raises
        `SnapshotError` and changes nothing."""
        from .sessions.snapshot import restore

        return restore(self, data)


class Session:
    """A shell that lives across `exec` calls.

    Calls run in turn: a call made while another thread's call is running waits for it, as
    long as the waiting call's own timeout allows (then ExecutionLimitError "timeout", status
    124, nothing run) and until its CancelToken is set (ExecutionCancelled). A call from inside
    the session's own running call (an output callback, a custom command) is refused with
    RuntimeError: it could never get its turn."""

    def __init__(self, bash: Bash, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> None:
        self.bash = bash
        environment = {**bash.env, **(env or {})}
        out = BufferWriter()
        err = BufferWriter()
        self.shell, self.rt = bash._new_shell(
            bash.limits, None, environment, bash._workdir(cwd), b"", out, err, "c"
        )
        # the status of an `exit` the script ran (the session's shell is finished), else None
        self.exited: int | None = None
        self._lock = _thread.allocate_lock()
        self._owner: int | None = None  # the thread whose call is running

    @property
    def cwd(self) -> str:
        return self.shell.state.fs.cwd

    def snapshot(self) -> bytes:
        """The whole session (shell state and in-memory files) as compact, versioned bytes."""
        from .sessions.snapshot import snapshot

        return snapshot(self)

    def fork(self) -> Session:
        """An independent copy: its own shell and in-memory files (host-backed mounts stay shared)."""
        from .sessions.snapshot import fork

        return fork(self)

    def exec(
        self,
        script: str,
        *,
        stdin: bytes | str | Stream = b"",
        args: Sequence[str] | None = None,
        limits: Limits | str | Mapping[str, float] | None = None,
        cancel: CancelToken | None = None,
        on_stdout: Callable[[bytes], None] | None = None,
        on_stderr: Callable[[bytes], None] | None = None,
    ) -> ExecResult:
        run_limits = self.bash._run_limits(limits)
        self._take_turn(run_limits, cancel)
        try:
            return self._exec(script, stdin, args, run_limits, cancel, on_stdout, on_stderr)
        finally:
            self._give_turn()

    def _take_turn(self, limits: Limits, cancel: CancelToken | None) -> None:
        """Hold the session for one call (T-TEN-4), waiting as the class docstring says; the caller
        gives it back (a try/finally: contextlib is not imported at start-up, ~1.7 M instructions)."""
        me = _thread.get_ident()
        if self._owner == me:
            raise RuntimeError("Session.exec: called from inside this session's own running call")
        end = time.monotonic() + limits.timeout if limits.timeout > 0 else float("inf")
        while not self._lock.acquire(timeout=0.02):
            if cancel is not None and cancel.cancelled:
                raise ExecutionCancelled(ExecResult(b"", b"", 130))
            if time.monotonic() >= end:
                e = LimitExceeded(LimitKind.TIMEOUT, limits.timeout)
                raise ExecutionLimitError(e.limit, e.value, ExecResult(b"", b"", 124), e.message())
        self._owner = me

    def _give_turn(self) -> None:
        self._owner = None
        self._lock.release()

    def _exec(
        self,
        script: str,
        stdin: bytes | str | Stream,
        args: Sequence[str] | None,
        run_limits: Limits,
        cancel: CancelToken | None,
        on_stdout: Callable[[bytes], None] | None,
        on_stderr: Callable[[bytes], None] | None,
    ) -> ExecResult:
        bash = self.bash
        out, err = bash._writers(run_limits, on_stdout, on_stderr, True)
        sh = self.shell
        rt = self.rt
        rt.budget = Budget(run_limits, cancel)
        rt.limits = run_limits
        sh.state.vars.acct.rebind(rt.budget)  # what the session kept counts towards this run's max_memory
        sh.state.fds = {0: _stdin_stream(stdin, rt.budget), 1: out, 2: err}
        script = clean_text(script)
        if args:
            sh.pending_args = [clean_text(a) for a in args]
        try:
            return bash._audited(
                rt,
                script,
                run_limits,
                self.cwd,
                lambda: _run(sh, rt, script, out, err, keep_exit_trap=True, session=self),
            )
        except (ExecutionLimitError, ExecutionCancelled):
            # a run ended by another limit or a cancellation keeps no more than one that ends
            # normally: else ending each call on a limit kept up to max_memory between calls
            self._drop_if_over()
            raise
        finally:
            _detach_stdin(stdin)

    def _check_retained(self, result: ExecResult) -> None:
        """`max_session_memory`: what the session keeps after a run (its variables, arrays and
        functions). Over the limit, the run ends with ExecutionLimitError (its result as usual) and
        the session starts over with a fresh shell in the same directory, so it holds nothing more."""
        cap = self.rt.limits.max_session_memory  # (this run's: the fresh shell has the Bash's)
        if self._drop_if_over():
            raise ExecutionLimitError(
                "max_session_memory", cap, result, LimitExceeded(LimitKind.MAX_SESSION_MEMORY, cap).message()
            )

    @property
    def held(self) -> int:
        """Bytes the session keeps between runs (its variables, arrays, functions, aliases, hash
        table and completions, as charged, and its positional parameters): what
        `max_session_memory` bounds."""
        st = self.shell.state
        pos = st.positional  # (charged to the account when the shell made it: Params)
        return st.vars.held() + (0 if type(pos) is Params else params_size(pos))

    def _drop_if_over(self) -> bool:
        """Start over with a fresh shell in the same directory when the session holds more than
        `max_session_memory` (variables, arrays and function definitions); whether it did."""
        sh = self.shell
        if self.held <= self.rt.limits.max_session_memory:
            return False
        cwd = self.cwd
        sh.state.vars.acct.close()
        fresh = Session(self.bash, cwd=cwd)
        self.shell, self.rt = fresh.shell, fresh.rt
        return True

    async def aexec(self, script: str, *, timeout: float | None = None, **kw: Any) -> ExecResult:
        """`exec` in a worker thread, cancellable like `Bash.aexec`."""
        kw = _with_timeout(self.bash, kw, timeout)
        cancel = kw.pop("cancel", None)
        from .aio import run_cancellable  # asyncio loads only for async callers (startup time)

        return await run_cancellable(lambda token: self.exec(script, **kw, cancel=token), cancel)

    def astream(self, script: str, *, timeout: float | None = None, **kw: Any) -> ExecStream:
        """`Bash.astream` in this session."""
        kw = _with_timeout(self.bash, kw, timeout)

        def start(out: OnChunk, err: OnChunk, token: CancelToken) -> ExecResult:
            return self.exec(script, **kw, on_stdout=out, on_stderr=err, cancel=token)

        from .aio import ExecStream

        return ExecStream(start)


def _with_timeout(bash: Bash, kw: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """Fold `timeout=` into the run's limits."""
    kw = dict(kw)
    if timeout is not None:
        kw["limits"] = bash._run_limits(kw.get("limits")).with_overrides(timeout=timeout)
    return kw


def _stray_status(e: BaseException) -> int:
    """The status of a run an interpreter-internal exception escaped from: a shell
    killed by SIGPIPE or by a job's signal, a sub-command's expired deadline, or the control
    flow's own."""
    if isinstance(e, SigPipe):
        return 141
    if isinstance(e, JobSignal):
        return 128 + e.signal
    if isinstance(e, DeadlineExpired):
        return 124
    status = getattr(e, "status", 1)
    return status if isinstance(status, int) else 1


def _run(
    sh: Shell,
    rt: Runtime,
    script: str,
    out: BufferWriter,
    err: BufferWriter,
    keep_exit_trap: bool = False,
    session: Session | None = None,
) -> ExecResult:
    started = time.monotonic()
    status = 0
    # a syntax error names where the text came from: `bash: -c: line 1:`, `script.sh: line 8:`
    source = "-c" if sh.state.mode == "c" else None
    try:
        try:
            if keep_exit_trap:
                if source:  # (run_toplevel sets it itself; inside the try: it is charged)
                    sh.set_execution_string(script)
                try:
                    status = with_room(sh.run_text, script, source, toplevel=True)  # (see framestack)
                except SigPipe:
                    status = 141
                except ExitShell as e:
                    status = sh.run_exit_trap(e.status)
                    if session is not None:
                        session.exited = status
            else:
                status = sh.run_toplevel(script, source)
            # a script that ends past its deadline ends as the timeout it is: the clock is read
            # every 64 commands, so one call that held on in C (a SQL function, a regex) and a few
            # quick commands after it would otherwise return late with a status 0. Read before the
            # grace of the jobs left running: a deadline during that grace drops them, and the
            # script's own result stands
            late = time.monotonic() > rt.budget.deadline
            sh.wait_all_jobs()
            if rt.budget.failure is not None or late:  # (a job's limit ends the run too)
                rt.budget.check_time()
        except LimitExceeded as e:
            result = ExecResult(
                out.getvalue(),
                err.getvalue(),
                124 if e.limit == "timeout" else 126,
                time.monotonic() - started,
            )
            raise ExecutionLimitError(e.limit, e.value, result, e.message()) from None
        except Cancelled:
            result = ExecResult(out.getvalue(), err.getvalue(), 130, time.monotonic() - started)
            raise ExecutionCancelled(result) from None
        except (SigPipe, ControlFlow, DeadlineExpired, JobSignal) as e:
            status = _stray_status(e)  # nothing internal leaves a run (T-TEN-2)
    except (ExecutionLimitError, ExecutionCancelled):
        raise
    except (MemoryError, RecursionError, OverflowError) as e:
        # whatever slipped past the charged seams ends the run as the limit it is nearest to
        limit = LimitKind.MAX_CALL_DEPTH if isinstance(e, RecursionError) else LimitKind.MAX_MEMORY
        value = getattr(rt.limits, limit)
        del e  # let the traceback's frames (and what they held) go before building the result
        result = ExecResult(out.getvalue(), err.getvalue(), 126, time.monotonic() - started)
        raise ExecutionLimitError(limit, value, result, LimitExceeded(limit, value).message()) from None
    except Exception as e:
        # a bug in the interpreter (a command's own is its `NAME: internal error` and the script
        # goes on: commands/invoke.py) ends the run with a result, never a traceback for the embedder
        # (the message cut short: an exception's text may hold a value of any size)
        line = f"sandbash: internal error ({type(e).__name__}: {str(e)[:200]})\n"
        del e
        try:
            err.write(line.encode("utf-8", "surrogateescape"))
        except LimitExceeded:
            pass  # (max_output_size already reached: the status still says it)
        status = 1
    finally:
        rt.end_run()  # nothing the run started outlives it (background jobs, stray pipeline stages)
    result = ExecResult(out.getvalue(), err.getvalue(), status & 0xFF, time.monotonic() - started)
    if session is not None:
        session._check_retained(result)
    return result
