"""Run one hostile script in a forked child and report how it ended.

Each case runs in its own child process so that a hang, a crash (segfault
from deep recursion) or a memory blow-up in the interpreter is *observed*
instead of taking the test session down: the parent kills the child at a
hard deadline (the run's timeout plus a grace period, counted from when the
child starts the run) or when its resident memory passes MEMORY_KILL. The
child reports back one of:

- ``result``: ``Bash.exec`` returned an ``ExecResult``;
- ``limit``: it raised ``ExecutionLimitError`` (``limit`` names which);
- ``cancelled``: it raised ``ExecutionCancelled``;
- ``exception``: any other Python exception escaped (a bug; ``error`` holds
  the traceback);
- ``crash``: the child died without reporting (signal, hard exit);
- ``hang``: the child was still running at the hard deadline;
- ``memory``: the child's resident memory passed MEMORY_KILL (killed).

The child also runs under an address-space rlimit (AS_LIMIT, 1 GB): a run
that allocates past it gets a Python MemoryError, which `exec` must turn into
the `max_memory` limit. Thread stacks count towards that limit, so the child
gives new threads a small stack (THREAD_STACK) instead of the 8 MB default.
Memory bombs are checked with `verify_bomb`: a *named* limit within the
timeout plus BOMB_SLACK seconds, peak resident growth under `max_memory` plus
BOMB_RSS_SLACK, and no Python exception.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import os
import pickle
import resource
import select
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash, CancelToken, ExecutionCancelled, ExecutionLimitError, Limits

# Secrets planted on the host; none may ever show in sandbox output.
ENV_CANARY_NAME = "SANDBASH_SECURITY_CANARY"
ENV_CANARY = "envcanary-5d1e9b7a"
FILE_CANARY = "filecanary-83c2f04e"
# Resident memory (bytes) above which the parent kills a child: a memory
# bomb is observed instead of swapping the host. The hardened profile caps
# strings and output at 1 MB, so a well-behaved run stays far below it. (The
# parent watches /proc rather than setting an rlimit: RLIMIT_AS/RLIMIT_DATA
# also count the thread stacks of a long pipeline or many background jobs.)
MEMORY_KILL = int(os.environ.get("SANDBASH_SECURITY_MEMORY", 384 << 20))
# How far a run may raise the child's peak resident memory above what it
# started with (the pages it shares with the parent at fork).
MAX_RSS = 320 << 20
# Address space of a child (RLIMIT_AS). If the forked parent already maps
# nearly that much, the child gets AS_HEADROOM above what it maps instead.
AS_LIMIT = int(os.environ.get("SANDBASH_SECURITY_AS", 1 << 30))
AS_HEADROOM = 768 << 20
# Stack of each thread the child starts (pipeline stages, jobs): the run's
# threads (up to max_threads) must fit in AS_LIMIT. Python 3.11 frames live
# on the heap; 256 KiB already held max_call_depth=1000 in a pipeline stage.
THREAD_STACK = 1 << 20
# A memory bomb must end within its timeout plus this many seconds ...
BOMB_SLACK = 2.0
# ... and raise peak resident memory by at most max_memory plus this much.
BOMB_RSS_SLACK = 150 << 20


def allowed(timeout: float) -> float:
    """Wall time a run may take: its timeout plus slack for the cooperative
    deadline (a checkpoint must come soon after it passes) and a loaded host."""
    return timeout * 1.25 + 0.75


# Extra time past `allowed` before the parent kills a child that has not
# reported (kept short: every hang costs the suite this much).
KILL_GRACE = 0.25
# A row that missed only on time is run again on its own with this much grace: on a loaded
# host (CI shares two cores) the child may get a fraction of a core, so the retry judges the
# deadline by the CPU the run was given, not by the wall clock.
RETRY_GRACE = 10.0
RETRY_STRETCH = 3


@dataclass
class Outcome:
    kind: str
    stdout: bytes = b""
    stderr: bytes = b""
    exit_code: int | None = None
    limit: str | None = None
    error: str = ""
    elapsed: float = 0.0
    timeout: float = 0.0
    max_output: int = 0
    max_memory: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return (self.stdout + self.stderr).decode("utf-8", "replace")

    def describe(self) -> str:
        tail = self.text[-600:]
        return (
            f"kind={self.kind} limit={self.limit} exit={self.exit_code} elapsed={self.elapsed:.2f}s "
            f"(timeout {self.timeout}s)\n{self.error[-3000:]}\noutput tail: {tail!r}"
        )


def _rss(pid: int | str = "self") -> int:
    """Resident set size of a process now, in bytes (0 if unknown)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _vm_size() -> int:
    """Address space this process maps now, in bytes (0 if unknown)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _confine_child() -> None:
    """No core files, small thread stacks, few malloc arenas and an address-space limit."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    threading.stack_size(THREAD_STACK)
    _few_malloc_arenas()
    cap = max(AS_LIMIT, _vm_size() + AS_HEADROOM)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _few_malloc_arenas() -> None:
    """glibc gives each thread that allocates its own arena, reserving 64 MB of address space per
    arena (up to 8 per CPU): under RLIMIT_AS a run of many threads would fail for arenas rather
    than for what it holds. Two arenas, as MALLOC_ARENA_MAX=2 would set (glibc only)."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def _threads_left(token: CancelToken | None, grace: float = 1.0) -> int:
    """Threads of the run still alive `grace` seconds after exec returned."""
    end = time.monotonic() + grace
    for t in threading.enumerate():
        if t is threading.current_thread() or isinstance(t, threading.Timer):
            continue
        t.join(max(end - time.monotonic(), 0.0))
    return sum(
        1
        for t in threading.enumerate()
        if t is not threading.current_thread() and not isinstance(t, threading.Timer) and t.is_alive()
    )


def _child_main(
    build: Callable[[], Bash],
    script: str,
    stdin: bytes | str,
    limits: Limits | Mapping[str, float] | str | None,
    cancel_after: float | None,
    session_scripts: tuple[str, ...],
    exec_kw: Mapping[str, Any],
    wfd: int,
) -> None:
    out: Outcome
    # The child inherits the whole test process (thousands of tests' objects by the end of a full
    # run): without this, the collector's first full pass in the child walks and copies all of
    # it, a second of CPU in which no deadline check can run, charged to the script under test.
    gc.freeze()
    started = time.monotonic()
    rss0 = _rss()
    try:
        _confine_child()
        bash = build()
        token = None
        if cancel_after is not None:
            token = CancelToken()
            threading.Timer(cancel_after, token.cancel).start()
        started = time.monotonic()
        os.write(wfd, b"S")  # the run starts now: the parent's deadline counts from here
        try:
            if session_scripts:
                sess = bash.session()
                for s in session_scripts:
                    sess.exec(s, limits=limits)
                r = sess.exec(script, stdin=stdin, limits=limits, cancel=token, **exec_kw)
            else:
                r = bash.exec(script, stdin=stdin, limits=limits, cancel=token, **exec_kw)
            out = Outcome("result", r.stdout_bytes, r.stderr_bytes, r.exit_code)
        except ExecutionLimitError as e:
            res = e.result
            out = Outcome("limit", res.stdout_bytes, res.stderr_bytes, res.exit_code, limit=e.limit)
        except ExecutionCancelled as e:
            res = e.result
            out = Outcome("cancelled", res.stdout_bytes, res.stderr_bytes, res.exit_code)
        out.extra["threads_left"] = _threads_left(token)
    except BaseException as e:  # a bug: report it rather than die
        try:
            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        except BaseException:
            tb = repr(e)
        out = Outcome("exception", error=tb)
    out.elapsed = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # growth of the peak resident set over the start (ru_maxrss is in KiB on Linux)
    out.extra["peak_rss"] = max(0, usage.ru_maxrss * 1024 - rss0)
    out.extra["cpu"] = usage.ru_utime + usage.ru_stime  # what the host let the child run
    try:
        data = pickle.dumps(out)
        view = memoryview(data)
        while view:
            n = os.write(wfd, view)
            view = view[n:]
    finally:
        os._exit(0)


@dataclass
class _Job:
    pid: int
    rfd: int
    t0: float
    hard: float
    budget: float  # seconds from the start signal to the kill
    timeout: float
    max_output: int
    max_memory: int
    rss_limit: int
    started: bool = False
    chunks: list[bytes] = field(default_factory=list)


def _spawn(
    script: str,
    *,
    limits: Limits | str = "hardened",
    overrides: Mapping[str, float] | None = None,
    stdin: bytes | str = b"",
    files: Mapping[str, bytes | str] | None = None,
    build: Callable[[], Bash] | None = None,
    cancel_after: float | None = None,
    session_scripts: tuple[str, ...] = (),
    exec_kw: Mapping[str, Any] | None = None,
    grace: float = KILL_GRACE,
) -> _Job:
    base = Limits.profile(limits) if isinstance(limits, str) else limits
    eff = base.with_overrides(**overrides) if overrides else base
    if build is None:

        def build() -> Bash:
            return Bash(limits=eff, files=dict(files or {}))

    data = stdin  # passed to exec() as given: str input is the API's to convert
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(rfd)
        try:
            _child_main(build, script, data, eff, cancel_after, session_scripts, dict(exec_kw or {}), wfd)
        finally:
            os._exit(1)
    os.close(wfd)
    t0 = time.monotonic()
    budget = allowed(eff.timeout) + grace
    # until the child signals its start, allow it some time to get going
    # a bomb may legitimately hold max_memory; kill only well past what verify_bomb allows
    kill = max(MEMORY_KILL, min(eff.max_memory, AS_LIMIT) + BOMB_RSS_SLACK + (64 << 20))
    return _Job(
        pid,
        rfd,
        t0,
        t0 + budget + 5.0,
        budget,
        eff.timeout,
        eff.max_output_size,
        eff.max_memory,
        _rss(pid) + kill,
    )


def _finish(job: _Job, killed: str = "") -> Outcome:
    os.close(job.rfd)
    if killed:
        os.kill(job.pid, signal.SIGKILL)
    _, status = os.waitpid(job.pid, 0)
    wall = time.monotonic() - job.t0
    if killed == "hang":
        out = Outcome("hang", error=f"still running {job.budget:.1f}s after the run started; killed")
        out.elapsed = wall
    elif killed == "memory":
        out = Outcome(
            "memory",
            error=f"resident memory over {MEMORY_KILL >> 20} MB (or max_memory + "
            f"{(BOMB_RSS_SLACK >> 20) + 64} MB); killed after {wall:.1f}s",
        )
        out.elapsed = wall
    elif not job.chunks:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        name = signal.Signals(sig).name if sig else None
        out = Outcome("crash", error=f"child died without a report: signal={name} exit={code}")
        out.elapsed = wall
    else:
        out = pickle.loads(b"".join(job.chunks))
    out.timeout = job.timeout
    out.max_output = job.max_output
    out.max_memory = job.max_memory
    return out


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


def jobs() -> int:
    """How many cases run at once (SANDBASH_SECURITY_JOBS; default: 2 per CPU,
    at most 4, and only as many as free memory holds at the kill threshold).
    Most cases wait on a deadline rather than compute; the slack in `allowed`
    covers the rest."""
    env = os.environ.get("SANDBASH_SECURITY_JOBS")
    if env:
        return max(1, int(env))
    by_memory = _available_memory() // (MEMORY_KILL + (512 << 20))
    return int(max(1, min(4, 2 * (os.cpu_count() or 1), by_memory)))


def _monty_started() -> bool:
    """Whether this process started Monty's pool (python3 ran here): Monty is not fork-safe, so a
    child forked from it cannot run python3 (each such row would end at once with status 127)."""
    worker = sys.modules.get("sandbash.commands.runtimes.python_worker")
    return worker is not None and getattr(worker, "_pool", None) is not None


def _run_many_remote(specs: dict[str, dict[str, Any]], parallel: int | None, conn: Any) -> None:
    """In a spawned interpreter (see `run_many`): run the specs there, send the outcomes back."""
    conn.send(run_many(specs, parallel))
    conn.close()


def _run_many_spawned(
    specs: Mapping[str, Mapping[str, Any]], parallel: int | None
) -> dict[str, Outcome] | None:
    """`run_many` in a fresh interpreter that never started Monty (multiprocessing's spawn), its
    children forked from there; None when a spec cannot be sent to it (a closure as `build`)."""
    import multiprocessing

    sent = {key: dict(spec) for key, spec in specs.items()}
    try:
        pickle.dumps(sent)
    except Exception:
        return None
    mp = multiprocessing.get_context("spawn")
    recv, send = mp.Pipe(duplex=False)
    proc = mp.Process(target=_run_many_remote, args=(sent, parallel, send), daemon=True)
    proc.start()
    send.close()
    try:
        outcomes: dict[str, Outcome] = recv.recv()
    finally:
        recv.close()
        proc.join()
    return outcomes


def run_many(specs: Mapping[str, Mapping[str, Any]], parallel: int | None = None) -> dict[str, Outcome]:
    """Run each spec (keyword arguments of `run_isolated`) in its own child,
    `parallel` at a time; longest timeouts first. Once python3 ran in this process, the children
    are forked from a spawned interpreter instead (a fork of this one cannot start Monty)."""
    if _monty_started():
        outcomes = _run_many_spawned(specs, parallel)
        if outcomes is not None:
            return outcomes
    order = sorted(specs, key=lambda k: -float(specs[k].get("overrides", {}).get("timeout", 10)))
    limit = parallel or jobs()
    running: dict[str, _Job] = {}
    done: dict[str, Outcome] = {}
    while order or running:
        while order and len(running) < limit:
            key = order.pop(0)
            running[key] = _spawn(**specs[key])
        now = time.monotonic()
        for key, job in list(running.items()):
            if now >= job.hard:
                done[key] = _finish(running.pop(key), killed="hang")
            elif _rss(job.pid) > job.rss_limit:
                done[key] = _finish(running.pop(key), killed="memory")
        if not running:
            continue
        # wake at least every 50 ms to watch memory
        wait = min(0.05, max(0.0, min(j.hard for j in running.values()) - time.monotonic()))
        by_fd = {j.rfd: k for k, j in running.items()}
        # poll, not select: after a long session the test process's fd numbers can pass 1023
        poller = select.poll()
        for fd in by_fd:
            poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        ready = [fd for fd, _ in poller.poll(wait * 1000)]
        for fd in ready:
            key = by_fd[fd]
            job = running[key]
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                done[key] = _finish(running.pop(key))
                continue
            if not job.started and chunk[:1] == b"S":
                job.started = True
                job.hard = time.monotonic() + job.budget
                chunk = chunk[1:]  # the start signal
            if chunk:
                job.chunks.append(chunk)
    return done


def run_isolated(script: str, **kw: Any) -> Outcome:
    """Run `script` in a forked child with `limits` (plus `overrides`); see
    `_spawn` for the other keywords."""
    return run_many({"one": {"script": script, **kw}}, parallel=1)["one"]


def assert_ends(out: Outcome, *, kinds: tuple[str, ...] = ("result", "limit"), by_cpu: bool = False) -> None:
    """The run ended on time, with a result or a limit, and output within the cap. `by_cpu`: on
    time is judged by the CPU the host gave the run (a retry on a loaded host), not wall time."""
    assert out.kind in kinds, out.describe()
    spent = out.extra.get("cpu", out.elapsed) if by_cpu else out.elapsed
    assert spent <= allowed(out.timeout), "late: " + out.describe()
    # the limit message itself may follow the capped output
    assert len(out.stdout) + len(out.stderr) <= out.max_output + 4096, "output over cap: " + out.describe()
    if out.kind == "limit":
        assert out.limit, out.describe()
    # a Python exception caught at a command's boundary is still a bug
    assert "internal error" not in out.text, out.describe()
    assert out.extra.get("peak_rss", 0) <= MAX_RSS, (
        f"peak memory grew by {out.extra.get('peak_rss', 0) >> 20} MB: " + out.describe()
    )
    # nothing of the run may go on working after exec returned
    assert out.extra.get("threads_left", 0) == 0, "threads left running: " + out.describe()


def assert_no_secrets(out: Outcome, *secrets: str) -> None:
    text = out.text
    for s in (ENV_CANARY, FILE_CANARY, *secrets):
        assert s not in text, f"secret {s!r} leaked: " + out.describe()


# ------------------------------------------------------------ host canaries


def snapshot(top: Path, skip: frozenset[Path] = frozenset()) -> dict[str, str]:
    """Names, modes, owners, mtimes, link targets and content hashes under `top`."""
    seen: dict[str, str] = {}
    st = top.lstat()
    seen["."] = f"{st.st_mode:o} {st.st_uid}:{st.st_gid}"
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if Path(dirpath) / d not in skip)
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            if p in skip:
                continue
            st = p.lstat()
            extra = ""
            if p.is_symlink():
                extra = "-> " + os.readlink(p)
            elif p.is_file():
                extra = hashlib.sha256(p.read_bytes()).hexdigest()
            seen[str(p.relative_to(top))] = f"{st.st_mode:o} {st.st_uid}:{st.st_gid} {st.st_mtime_ns} {extra}"
    return seen


def plant_canaries(top: Path) -> Path:
    """A host directory with secrets, a sub-directory, links and odd modes; returns it."""
    c = top / "canary"
    c.mkdir()
    (c / "secret.txt").write_text(FILE_CANARY + "\n")
    (c / "secret.txt").chmod(0o600)
    (c / "sub").mkdir()
    (c / "sub" / "deep.txt").write_text(FILE_CANARY + " deep\n")
    (c / "ro.txt").write_text("read only\n")
    (c / "ro.txt").chmod(0o444)
    (c / "link").symlink_to("secret.txt")
    (c / "exe.sh").write_text("#!/bin/sh\necho hi\n")
    (c / "exe.sh").chmod(0o755)
    return c


def warm_up() -> None:
    """Import lazily loaded command modules once in the parent, so forked
    children do not each pay for it (and time it against their deadline)."""
    # one command at a time: concurrent first imports from pipeline threads
    # are a separate matter (see test_robustness.py)
    script = "\n".join(
        [
            "echo a | cat",
            "grep -E a </dev/null",
            "sed s/a/b/ </dev/null",
            "awk '{print}' </dev/null",
            "sort </dev/null",
            "uniq </dev/null",
            "tr a b </dev/null",
            "cut -c1 </dev/null",
            "head -1 </dev/null",
            "wc -l </dev/null",
            "echo '{}' | jq .",
            "expr a : a",
            "find / -maxdepth 0 -regex x",
            "printf '%s' x",
            "seq 1 2",
            "[[ a =~ a ]]",
            "shopt -s extglob",
            "case aa in +(a)) ;; esac",
            "yes | head -1",
            "base64 </dev/null",
            "tail -1 </dev/null",
            "diff /dev/null /dev/null",
            "od -c </dev/null",
            "xargs </dev/null",
            "rev </dev/null",
            "ls / >/dev/null",
            "printenv >/dev/null",
            "env >/dev/null",
            "declare -p >/dev/null",
            "rm -f /tmp/none",
            "mv /tmp/none /tmp/none2 2>/dev/null",
            "true",
        ]
    )
    r = Bash(limits="hardened").exec(
        script,
        limits={"timeout": 30},
    )
    assert r.exit_code == 0, r


# ------------------------------------------------------------ case tables


def param(
    case_id: str,
    script: str,
    *,
    timeout: float = 1.0,
    expect: tuple[str, ...] = (),
    xfail: str | None = None,
    overrides: Mapping[str, float] | None = None,
    stdin: bytes | str = b"",
    files: Mapping[str, bytes | str] | None = None,
    contains: str | None = None,
    build: Callable[[], Bash] | None = None,
    exec_kw: Mapping[str, Any] | None = None,
    profile: str = "hardened",
    **extra: Any,
) -> Any:
    """One table row. `expect` lists acceptable endings: limit names and/or
    "result" (empty: any result or limit). `contains`: text the output must
    hold (the partial result kept on a limit, an error message). `build`
    makes the Bash (in the child; default: a memory filesystem with the
    run's limits); `profile` names the Limits profile `overrides` apply to;
    `extra` keys are kept in the row for the test's own use."""
    case = {
        "id": case_id,
        "script": script,
        "timeout": timeout,
        "expect": expect,
        "overrides": dict(overrides or {}),
        "profile": profile,
        "stdin": stdin,
        "files": files,
        "contains": contains,
        "build": build,
        "exec_kw": dict(exec_kw or {}),
        **extra,
    }
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(case, id=case_id, marks=marks)


def _spec(case: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "script": case["script"],
        "limits": case.get("profile", "hardened"),
        "overrides": {"timeout": case["timeout"], **case["overrides"]},
        "stdin": case["stdin"],
        "files": case["files"],
        "build": case["build"],
        "exec_kw": case["exec_kw"],
        "session_scripts": tuple(case.get("session_scripts", ())),
    }


_SESSION: dict[tuple[str, str], Outcome] = {}


def batch(request: pytest.FixtureRequest, test_name: str, argname: str = "case") -> dict[str, Outcome]:
    """Outcomes (by row id) of the table rows of `test_name` in the requesting
    module. On first use, every table row this session selected, in every
    module, runs at once in one pool (`jobs()` children at a time)."""
    if not _SESSION:
        specs: dict[str, dict[str, Any]] = {}
        keys: dict[str, tuple[str, str]] = {}
        for item in request.session.items:
            callspec = getattr(item, "callspec", None)
            case = callspec.params.get(argname) if callspec is not None else None
            mod = getattr(item, "module", None)
            if not isinstance(case, dict) or "id" not in case or mod is None:
                continue
            key = (mod.__name__, case["id"])
            specs[f"{key[0]}::{key[1]}"] = _spec(case)
            keys[f"{key[0]}::{key[1]}"] = key
        for flat, out in run_many(specs).items():
            _SESSION[keys[flat]] = out
    module = request.module.__name__
    return {rid: out for (mod, rid), out in _SESSION.items() if mod == module}


_POOLED: dict[str, dict[str, Outcome]] = {}


def pooled(key: str, specs: Mapping[str, Mapping[str, Any]]) -> dict[str, Outcome]:
    """Run `specs` (keyword arguments of `run_isolated`) all at once, the first
    time `key` is asked for; later calls get the same outcomes."""
    if key not in _POOLED:
        _POOLED[key] = run_many(specs)
    return _POOLED[key]


def timing_miss(out: Outcome, expect: tuple[str, ...] = ()) -> bool:
    """Whether a run missed only on time, as a loaded host makes it: killed while still running,
    ended late, or ended by its timeout (where another ending was expected) with under half of
    that timeout of CPU."""
    if out.kind == "hang" or out.elapsed > allowed(out.timeout):
        return True
    return (
        out.limit == "timeout"
        and "timeout" not in expect
        and out.extra.get("cpu", out.timeout) < out.timeout / 2
    )


def verify(case: Mapping[str, Any], out: Outcome) -> None:
    """Assert a table row ended as it must (a miss only on time is retried once on its own,
    judged by the CPU it was given)."""
    retried = timing_miss(out, case["expect"])
    if retried:
        spec = _spec(case)
        if out.limit == "timeout" and "timeout" not in case["expect"]:
            # ended by its own deadline before the limit the row tests (a worker's CPU, SQLite's,
            # is not the run's): on a loaded host it had a fraction of a core, so the retry gets
            # RETRY_STRETCH times the time; the row asserts which limit ends it, not how fast
            spec["overrides"] = {**spec["overrides"], "timeout": case["timeout"] * RETRY_STRETCH}
        out = run_isolated(**spec, grace=RETRY_GRACE)
    assert_ends(out, by_cpu=retried)
    assert_no_secrets(out)
    expect = case["expect"]
    if expect:
        got = "result" if out.kind == "result" else out.limit
        assert got in expect, f"expected one of {expect}: " + out.describe()
    if case["contains"] is not None:
        assert case["contains"] in out.text, out.describe()


def check(case: Mapping[str, Any], **kw: Any) -> Outcome:
    """Run one table row on its own and assert it ended as it must."""
    out = run_isolated(**_spec(case), **kw)
    verify(case, out)
    return out


# ------------------------------------------------------------ memory bombs


def bomb_problems(out: Outcome, expect: tuple[str, ...]) -> tuple[list[str], bool]:
    """What is wrong with how a memory bomb ended, and whether lateness is all of it."""
    problems: list[str] = []
    late = False
    if out.kind == "hang":
        pass  # reported below as lateness
    elif out.kind != "limit" or not out.limit:
        problems.append(f"ended with {out.kind}, not a named limit")
    elif (
        out.limit == "timeout"
        and "timeout" not in expect
        and out.extra.get("cpu", out.timeout) < out.timeout / 2
    ):
        # a loaded host starved the run (less than half its timeout of CPU): a timing miss
        late = True
        problems.append(f"ended by the timeout after {out.extra['cpu']:.1f}s of CPU")
    elif expect and out.limit not in expect:
        problems.append(f"limit {out.limit}, expected one of {expect}")
    if "internal error" in out.text or "Traceback" in out.text:
        problems.append("a Python exception reached the output")
    rss_cap = out.max_memory + BOMB_RSS_SLACK
    if out.extra.get("peak_rss", 0) > rss_cap:
        problems.append(f"peak RSS grew by {out.extra['peak_rss'] >> 20} MB (cap {rss_cap >> 20} MB)")
    if out.extra.get("threads_left", 0):
        problems.append("threads left running")
    if len(out.stdout) + len(out.stderr) > out.max_output + 4096:
        problems.append("output over cap")
    if out.kind == "hang" or out.elapsed > out.timeout + BOMB_SLACK:
        late = True
        problems.append(f"took {out.elapsed:.2f}s (timeout {out.timeout}s + {BOMB_SLACK}s)")
    return problems, late and all("took" in p or "of CPU" in p for p in problems)


def verify_bomb(case: Mapping[str, Any], out: Outcome) -> Outcome:
    """Assert a memory-bomb row (see `param`; `expect` lists the limits that may end it) ended with a
    named limit, on time, within max_memory + BOMB_RSS_SLACK of resident growth, without a Python
    exception. A miss that is only about time (a loaded host) is retried once on its own."""
    problems, timing_only = bomb_problems(out, case["expect"])
    if timing_only:
        out = run_isolated(**_spec(case))
        problems, _ = bomb_problems(out, case["expect"])
    assert not problems, "; ".join(problems) + "\n" + out.describe()
    if case["contains"] is not None:
        assert case["contains"] in out.text, out.describe()
    assert_no_secrets(out)
    return out
