"""One box command: a fresh sandbash run (its own in-memory /tmp and other paths, the agent's home,
workspace and granted host directories mounted at their own paths), HOME = the agent's home,
cwd = the workspace, the seed's limits, and host programs through the `[tool.<name>]` tables."""

from __future__ import annotations

import errno
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NoReturn

from ..api import Bash
from ..errors import ExecutionCancelled, ExecutionLimitError
from ..interp.runtime import Identity
from ..limits import CancelToken, LimitExceeded, LimitKind, Limits
from ..policy import REMEDIATION, Action, Decision, Gate, Policy, under
from ..stdio.streams import Stream
from ..vfs.errors import OPERATION_WORDING, FsError, RefusedCode
from ..vfs.memory import MemoryFs
from ..vfs.mount import MountFs
from ..vfs.ops import FileOp
from ..vfs.quota import DiskQuota
from ..vfs.readwrite import ReadWriteFs
from .config import BoxConfig, ToolTable
from .egress import EgressProxy
from .spawn import (
    Sandbox,
    SpawnUnavailable,
    Staging,
    Streams,
    bwrap_argv,
    bwrap_path,
    program_env,
    resolve_program,
    run_contained,
)

if TYPE_CHECKING:
    from ..audit import Audit, Recorder
    from ..interp.runtime import Runtime
    from ..interp.shell import Shell
    from ..vfs.base import FileHandle

RULE_REACH = "reachable-paths"
OnChunk = Callable[[bytes], None]


class _Tripwire:
    """Which per-command limit a run hit (the service prints the seed's line for it)."""

    def __init__(self) -> None:
        self.hit: str | None = None


class _EntryQuota(DiskQuota):
    """The in-memory entries (files, directories, links) of one command."""

    def __init__(self, max_bytes: int, max_files: int, trip: _Tripwire) -> None:
        super().__init__(max_bytes, max_files)
        self.trip = trip

    def check(self, nbytes: int, nfiles: int = 0) -> None:
        if nfiles > 0 and self.used_files + nfiles > self.max_files:
            # the run ends here, so the seed's message is the only one (no ENOSPC from the command first)
            self.trip.hit = self.trip.hit or "entries"
            raise LimitExceeded(LimitKind.MAX_FILESYSTEM_FILES, self.max_files)
        super().check(nbytes, nfiles)


class _CappedHandle:
    """A file handle of the in-memory filesystem that refuses to grow a file past the cap (EFBIG)."""

    def __init__(
        self, inner: FileHandle, size: Callable[[], int], cap: int, append: bool, trip: _Tripwire
    ) -> None:
        self.inner, self.size, self.cap, self.append, self.trip = inner, size, cap, append, trip
        self.pos = 0

    def _over(self, end: int) -> None:
        if end > self.cap:
            _file_too_large(self.trip, self.cap)

    def read(self, n: int = -1) -> bytes:
        data = self.inner.read(n)
        self.pos += len(data)
        return data

    def write(self, data: bytes) -> int:
        start = self.size() if self.append else self.pos
        self._over(start + len(data))
        n = self.inner.write(data)
        self.pos = start + n
        return n

    def seek(self, pos: int, whence: int = 0) -> int:
        self.pos = self.inner.seek(pos, whence)
        return self.pos

    def truncate(self, size: int) -> None:
        self._over(size)
        self.inner.truncate(size)

    def close(self) -> None:
        self.inner.close()


class _CappedMemoryFs(MemoryFs):
    """The memory root of one command: no file past `cap` bytes."""

    def __init__(self, quota: DiskQuota, cap: int, trip: _Tripwire) -> None:
        super().__init__(quota=quota)
        self.cap, self.trip = cap, trip

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> FileHandle:  # type: ignore[override]
        inner = super().open(path, flags, mode, uid, gid)
        return _CappedHandle(inner, lambda: self.lstat(path).size, self.cap, "a" in flags, self.trip)

    def truncate(self, path: str, size: int) -> None:
        if size > self.cap:
            _file_too_large(self.trip, self.cap)
        super().truncate(path, size)


def _file_too_large(trip: _Tripwire, cap: int) -> NoReturn:
    """A file past the cap ends the run (before the write, so nothing past it is kept), and the
    seed's message is the only one: no `File too large` from the command first."""
    trip.hit = trip.hit or "file"
    raise LimitExceeded(
        LimitKind.MAX_FILESYSTEM_BYTES, cap, "one in-memory file past the box's file size limit"
    )


@dataclass(frozen=True)
class Match:
    """What a first word resolves to: the table, the host program and its arguments; or a refusal."""

    tool: ToolTable | None
    program: str
    args: tuple[str, ...]


def match_tool(config: BoxConfig, argv: list[str]) -> Match | None:
    """The table for argv (None: no host program of that name, so `command not found`). A table
    named argv[0] runs its command; otherwise the tables and exec entries whose program is argv[0]'s
    resolved path, the longest whose fixed arguments lead argv's; `tool=None`: the program exists
    but no table allows it (or these arguments)."""
    named = next((t for t in config.tools if t.name == argv[0]), None)
    if named is not None:
        program = resolve_program(named.command[0])
        return None if program is None else Match(named, program, (*named.command[1:], *argv[1:]))
    program = resolve_program(argv[0])
    if program is None:
        return None
    tables = [*config.tools, *(ToolTable(e[0], e) for e in config.exec_entries)]
    fits = [
        t
        for t in tables
        if resolve_program(t.command[0]) == program and tuple(argv[1 : len(t.command)]) == t.command[1:]
    ]
    if not fits:
        return Match(None, program, tuple(argv[1:]))
    return Match(max(fits, key=lambda t: len(t.command)), program, tuple(argv[1:]))


class BoxRunner:
    """Runs one command at a time per call (thread-safe: each call builds its own run)."""

    def __init__(self, config: BoxConfig) -> None:
        self.config = config
        self.host_programs = HostPrograms(config)
        base = config.policy or Policy()
        # writes anywhere by default (in memory, or a mounted root): the reachable-paths check refuses the rest
        paths = base.grants if base.grants is not None else ["/:rw"]
        self.policy = base.replace(mode=base.mode or REMEDIATION, paths=paths, decide=self._decider(base))

    def _decider(self, base: Policy) -> Callable[[Action], Decision | bool | tuple[bool, str] | None]:
        """The reachable-paths check (deny-only, after the policy's own `decide`)."""
        own = self.config.own_paths
        host = tuple(self._mounts())
        roots = self.config.roots()
        inner = base.decide

        def decide(action: Action) -> Decision | bool | tuple[bool, str] | None:
            path = action.path
            if path:
                if any(under(path, p) for p in own):
                    return Decision.deny(RULE_REACH, f"{path} belongs to the box")
                if any(under(path, m) for m, _ in host) and not any(under(path, r) for r in roots):
                    return Decision.deny(RULE_REACH, f"{path} is outside the agent's reachable paths")
            return inner(action) if inner is not None else None

        return decide

    def _mounts(self) -> list[tuple[str, bool]]:
        """(host path, writable) mounted at its own path in every run."""
        cfg = self.config
        rw = [p for p in (*cfg.roots(), *cfg.write)]
        return [(p, True) for p in rw] + [(p, False) for p in cfg.read if p not in rw]

    def _filesystem(self, trip: _Tripwire) -> MountFs:
        lim = self.config.limits
        quota = _EntryQuota(Limits().max_filesystem_bytes, lim.max_entries, trip)
        root = _CappedMemoryFs(quota, lim.max_file_bytes, trip)
        fs = MountFs(root)
        for path, writable in self._mounts():
            _parents(root, path)  # /tmp above a workspace in /tmp/...: a real directory of the memory root
            try:
                fs.mount(path, ReadWriteFs(path), read_only=not writable)
            except (OSError, FsError):
                continue  # a grant naming a missing directory: nothing to mount
        return fs

    def run(
        self,
        script: str,
        on_stdout: OnChunk,
        on_stderr: OnChunk,
        *,
        script_path: str | None = None,
        cancel: CancelToken | None = None,
        stdin: bytes | Stream = b"",
    ) -> int:
        """Run `script` (or the file `script_path`, read through the sandbox's rules); returns the
        status (130 when `cancel` stopped it: the client went away)."""
        cfg, lim = self.config, self.config.limits
        prefix = lim.prefix
        if len(script.encode("utf-8", "surrogateescape")) > lim.max_command_bytes:
            on_stderr(f"{prefix}: input too large\n".encode())
            return 1
        trip = _Tripwire()
        bash = _BoxBash(
            self,
            fs=self._filesystem(trip),
            cwd=cfg.workspace,
            policy=self.policy,
            network=cfg.network,
            identity=Identity(home=cfg.home),
            limits=Limits().with_overrides(timeout=lim.timeout, max_filesystem_files=lim.max_entries),
        )
        mode, arg0 = "c", "bash"
        if script_path is not None:
            try:
                script = bash.fs.read_file(script_path).decode("utf-8", "surrogateescape")
            except FsError as e:
                on_stderr(f"bash: {script_path}: {e.strerror}\n".encode())
                return 126 if e.code == errno.EACCES else 127  # as bash: a file it may not read is 126
            mode, arg0 = "file", script_path
        try:
            result = bash.exec(
                script,
                on_stdout=on_stdout,
                on_stderr=on_stderr,
                keep_output=False,
                mode=mode,
                arg0=arg0,
                cancel=cancel,
                stdin=stdin,
            )
        except ExecutionCancelled:
            return 130
        except ExecutionLimitError as e:
            on_stderr(f"{prefix}: {self._limit_text(trip.hit, e)}\n".encode())
            return 1
        return result.exit_code

    def _limit_text(self, hit: str | None, e: ExecutionLimitError) -> str:
        """The seed's line for the limit that ended the run."""
        lim = self.config.limits
        if hit == "file":
            return f"file size limit exceeded ({lim.max_file_bytes} bytes)"
        if hit == "entries":
            return f"in-memory entry limit exceeded ({lim.max_entries} entries)"
        return "execution timeout exceeded" if e.limit == "timeout" else e.message


class HostPrograms:
    """The executor's hook (Runtime.spawner) for a name that is no builtin, function or command:
    a host program from a [tool.<name>] table, run in bubblewrap."""

    def __init__(self, config: BoxConfig) -> None:
        self.config = config

    def finds(self, name: str) -> bool:
        """Whether `name` is a host program (for env, timeout, xargs, exec: they look before they
        run). A path is one only where a table runs it (see run)."""
        found = match_tool(self.config, [name])
        return found is not None and ("/" not in name or found.tool is not None)

    def run(self, sh: Shell, argv: list[str], env: Mapping[str, str]) -> int | None:
        """The executor's hook for a name that is no builtin, function or command: None when no
        host program has that name (command not found); else its status. An absolute path the
        sandbox does not hold (`/usr/bin/git`) runs when a table runs the program it names, and is
        not found otherwise: a refusal would tell whether any host path is an executable file."""
        found = match_tool(self.config, argv)
        if found is None or ("/" in argv[0] and found.tool is None):
            return None
        name = argv[0]
        if found.tool is None:
            return self._refuse(sh, name, found.program, "[default-deny]")
        gate = sh.rt.policy_gate
        if gate is not None:
            decision = gate.spawn(argv, found.program)
            if not decision.allowed:
                return self._refuse(sh, name, found.program, f"[policy: {decision.rule}]")
        tool = found.tool
        staging: Staging | None = None
        proxy: EgressProxy | None = None
        try:
            bwrap = bwrap_path()
            staging = Staging() if tool.list or tool.contain_egress else None
            if tool.contain_egress and staging is not None:
                proxy = _proxy(staging.file("egress.sock"), sh)
            box = Sandbox(self.config.workspace, self.config.home, sh.state.fs.cwd)
            cmd = bwrap_argv(
                bwrap,
                tool,
                found.program,
                found.args,
                box,
                staging,
                proxy.path if proxy is not None else None,
            )
            return self._spawn(sh, cmd, tool, box, env)
        except SpawnUnavailable as e:
            sh.write_err(f"{sh.err_prefix()}{name}: {e}\n")
            return 125
        except OSError as e:  # bwrap itself could not be started: E2BIG, as bash says it, is 126
            sh.write_err(f"{sh.err_prefix()}{name}: {e.strerror or e}\n")
            return 126
        finally:
            if proxy is not None:
                proxy.close()
            if staging is not None:
                staging.close()

    def _spawn(self, sh: Shell, cmd: list[str], tool: ToolTable, box: Sandbox, env: Mapping[str, str]) -> int:
        """Run the bubblewrap command line with the stage's streams; its status."""
        fds = sh.state.fds
        streams = Streams(_reader(fds.get(0)), _writer(fds.get(1)), _writer(fds.get(2)))
        budget = sh.rt.budget
        status = run_contained(
            cmd,
            program_env(tool, box, env.get("LANG")),
            streams,
            budget.remaining,
            budget.check_time,
            feed_stdin=fds.get(0) is not None,
        )
        if status is None:
            budget.check_time()  # the run's (or a `timeout` command's) deadline: raises its limit
            return 124
        return 128 - status if status < 0 else status

    @staticmethod
    def _refuse(sh: Shell, name: str, program: str, why: str) -> int:
        sh.write_err(
            f"{sh.err_prefix()}{name}: effect denied: policy denied this operation on '{program}' {why}\n"
        )
        return 126


def _proxy(path: str, sh: Shell) -> EgressProxy:
    """The egress proxy of one spawn: the run's network rules (its gate and audit attached)."""
    try:
        return EgressProxy(path, sh.rt.network, sh.rt.budget.remaining)
    except OSError as e:
        raise SpawnUnavailable(f"cannot start the egress proxy at {path}: {e.strerror or e}") from None


def _parents(root: MemoryFs, path: str) -> None:
    parts = path.strip("/").split("/")[:-1]
    for i in range(1, len(parts) + 1):
        try:
            root.mkdir("/" + "/".join(parts[:i]), 0o1777 if parts[:i] == ["tmp"] else 0o755, 0, 0)
        except FsError:
            pass  # already there


def _reader(stream: object) -> Callable[[int], bytes]:
    read = getattr(stream, "read", None)
    return read if callable(read) else (lambda n: b"")


def _writer(stream: object) -> OnChunk:
    write = getattr(stream, "write", None)
    return write if callable(write) else (lambda data: None)


class _BoxGate(Gate):
    """The policy's gate with box mode's wording of a refused file operation (the seed's
    `policy denied this operation on '<path>' [policy: <id>]`, naming the path the policy saw)."""

    __slots__ = ()

    def fs(self, action: FileOp, path: str) -> None:
        try:
            super().fs(action, path)
        except FsError as e:
            if not isinstance(e.code, RefusedCode):
                raise
            raise FsError(e.code.worded(OPERATION_WORDING, path), e.path) from None

    def bind(self, recorder: Recorder | None) -> Gate:
        return _BoxGate(self.policy, recorder)


class _BoxBash(Bash):
    """A Bash whose runs send unknown names to the box's host programs, and whose policy gate
    words file refusals as the seed does."""

    def __init__(self, runner: BoxRunner, **kw: object) -> None:
        self._runner = runner
        super().__init__(**kw)  # type: ignore[arg-type]

    def _init_policy(self, policy: Policy | None, audit: Audit | None) -> None:
        super()._init_policy(policy, audit)
        if self.gate is not None:  # every run's gate is `self.gate.bind(...)`: a _BoxGate too
            self.gate = _BoxGate(self.gate.policy, self.gate.recorder)
            self.vfs.gate = self.gate.fs

    def _new_shell(self, *a: object, **kw: object) -> tuple[Shell, Runtime]:
        sh, rt = super()._new_shell(*a, **kw)  # type: ignore[arg-type]
        rt.spawner = self._runner.host_programs
        return sh, rt


def with_config(runner: BoxRunner, **changes: object) -> BoxRunner:
    """A runner over the same config with some fields changed (tests, the service's overrides)."""
    return BoxRunner(replace(runner.config, **changes))  # type: ignore[arg-type]
