"""Tenancy (issue 22, "one client cannot harm another"): the T-TEN ids of docs/threat-model.md.

One `Bash` serves many runs (threads, asyncio tasks, MCP/tool clients) and the embedder's own file
calls. What belongs to a run (its deadline check, the policy gate bound to its audit recorder, its
network hooks) travels with the run; nothing interpreter-internal leaves a public entry point.

These run in-process (threads are the point); every wait is bounded with generous slack.
"""

from __future__ import annotations

import asyncio
import errno
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from sandbash import Audit, Bash, Policy
from sandbash.agent.adapters.anthropic import AnthropicBash
from sandbash.agent.adapters.openai import OpenAIBash
from sandbash.agent.sandbox import Sandbox
from sandbash.agent.tool import BashTool
from sandbash.api import ExecResult, Session
from sandbash.audit import ListSink
from sandbash.builtins.io import ReadTimedOut
from sandbash.custom import Command
from sandbash.errors import ExecutionCancelled, ExecutionLimitError, SandbashError
from sandbash.interp.control import (
    AbortCommand,
    BreakLoop,
    ContinueLoop,
    ControlFlow,
    ErrexitTriggered,
    ExitShell,
    KilledBySignal,
    LoopControl,
    Replaced,
    ReturnFromFunction,
)
from sandbash.limits import Cancelled, CancelToken, DeadlineExpired, LimitExceeded, Limits
from sandbash.net.config import NetworkConfig
from sandbash.stdio.streams import SigPipe
from sandbash.vfs.errors import FsError

# more than the 32 components past which path resolution checks the deadline
DEEP = "/data/" + "/".join(f"d{i}" for i in range(40))
DEEP_FILE = DEEP + "/f"
GRANTS = ["/data:ro", "/workspace:rw"]
TAG = re.compile(r"u\d+x\d+")
JOIN = 120.0  # seconds: a bound on any thread of a test, far past what a loaded host needs


def make_bash(
    *,
    sink: ListSink | None = None,
    timeout: float = 20.0,
    network: NetworkConfig | None = None,
    decide: Callable[[Any], Any] | None = None,
    policy: bool = True,
    files: dict[str, str] | None = None,
    commands: tuple[Command, ...] = (),
) -> Bash:
    files = {DEEP_FILE: "deep\n", "/data/shared.txt": "shared\n", **(files or {})}
    return Bash(
        files=files,
        cwd="/workspace",
        limits=Limits().with_overrides(timeout=timeout),
        policy=Policy(paths=GRANTS, mode="remediation", decide=decide) if policy else None,
        audit=Audit(sinks=[sink]) if sink is not None else None,
        network=network,
        commands=commands,
    )


def run_quietly(call: Callable[[], ExecResult]) -> ExecResult | SandbashError:
    """The result, or the documented exception carrying one."""
    try:
        return call()
    except (ExecutionLimitError, ExecutionCancelled) as e:
        return e


def no_internal(call: Callable[[], object], what: str) -> object:
    """call(), failing the test (not pytest) when an interpreter-internal exception escapes."""
    try:
        return call()
    except Exception:
        raise
    except BaseException as e:
        pytest.fail(f"{what}: the internal {type(e).__name__} escaped")


def result_of(outcome: ExecResult | SandbashError) -> ExecResult:
    if isinstance(outcome, (ExecutionLimitError, ExecutionCancelled)):
        return outcome.result
    assert isinstance(outcome, ExecResult), outcome
    return outcome


def in_threads(n: int, work: Callable[[int], None]) -> list[BaseException]:
    """Run work(i) in n threads; every exception (BaseException included) a thread raised."""
    errors: list[BaseException] = []
    lock = threading.Lock()

    def body(i: int) -> None:
        try:
            work(i)
        except BaseException as e:  # the test reports it: an internal exception is a failure
            with lock:
                errors.append(e)

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN)
        assert not t.is_alive(), "a thread of the test did not finish"
    return errors


# ------------------------------------------------------------ how a previous run can end


def _end_normally(bash: Bash) -> None:
    assert bash.exec(f"cat {DEEP_FILE}").stdout == "deep\n"


def _end_by_timeout(bash: Bash) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        bash.exec(f"while :; do cat {DEEP_FILE} >/dev/null; done", limits={"timeout": 0.2})
    assert e.value.limit == "timeout"


def _end_by_cancel(bash: Bash) -> None:
    token = CancelToken()
    threading.Timer(0.1, token.cancel).start()
    with pytest.raises(ExecutionCancelled):
        bash.exec(f"while :; do cat {DEEP_FILE} >/dev/null; done", cancel=token)


def _end_by_limit(bash: Bash) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        bash.exec(f"for ((;;)); do cat {DEEP_FILE} >/dev/null; done", limits={"max_loop_iterations": 20})
    assert e.value.limit == "max_loop_iterations"


def _end_in_session(bash: Bash) -> None:
    s = bash.session()
    assert s.exec(f"cd {DEEP}; cat f").stdout == "deep\n"
    with pytest.raises(ExecutionLimitError):
        s.exec("while :; do cat f >/dev/null; done", limits={"timeout": 0.2})


def _end_by_async_timeout(bash: Bash) -> None:
    async def go() -> None:
        with pytest.raises(ExecutionLimitError):
            await bash.aexec(f"while :; do cat {DEEP_FILE} >/dev/null; done", timeout=0.2)

    asyncio.run(go())


ENDINGS = {
    "normal": _end_normally,
    "timeout": _end_by_timeout,
    "cancel": _end_by_cancel,
    "limit": _end_by_limit,
    "session": _end_in_session,
    "aexec-timeout": _end_by_async_timeout,
}

# the embedder's (and the MCP server's) own file calls on a deep path, after the run
FILE_CALLS: dict[str, Callable[[Bash], object]] = {
    "read_file": lambda b: b.read_file(DEEP_FILE),
    "write_file": lambda b: b.write_file("/workspace/" + "/".join(f"w{i}" for i in range(40)) + "/out", "x"),
    "fs.listdir": lambda b: b.fs.listdir(DEEP),
    "fs.stat": lambda b: b.fs.stat(DEEP_FILE),
    "fs.walk": lambda b: list(b.fs.walk("/data")),
    "mcp view": lambda b: b.vfs.view("/workspace").read_file(DEEP_FILE),  # what mcp_server's tools use
    "sandbox.read_file": lambda b: Sandbox(b).read_file(DEEP_FILE),
}


# ------------------------------------------------------------ T-TEN-1: per-run hooks stay with the run


@pytest.mark.parametrize("call", FILE_CALLS, ids=list(FILE_CALLS))
@pytest.mark.parametrize("ending", ENDINGS, ids=list(ENDINGS))
def test_finished_run_leaves_no_hook_on_the_shared_fs(ending: str, call: str) -> None:
    """T-TEN-1: a finished run's deadline check is not left on the shared filesystem: the
    embedder's later file calls on a deep path work (they used to raise the internal Cancelled)."""
    bash = make_bash()
    ENDINGS[ending](bash)
    no_internal(lambda: FILE_CALLS[call](bash), call)
    assert no_internal(lambda: bash.read_file(DEEP_FILE), "read_file") == b"deep\n"
    assert bash.vfs.checkpoint is None


@pytest.mark.parametrize("ending", [e for e in ENDINGS if e != "normal"])
def test_run_end_does_not_stop_a_concurrent_run(ending: str) -> None:
    """T-TEN-1: run B ending (by any means) neither cancels nor times out a concurrent run A
    on the same Bash, although A resolves deep paths (a deadline check) all the time."""
    bash = make_bash()
    stop = threading.Event()
    outcomes: list[ExecResult | SandbashError] = []

    def run_a(_: int) -> None:
        script = (
            f"n=0; while [ ! -e /workspace/stop ]; do cat {DEEP_FILE} >/dev/null; n=$((n+1)); done; echo done"
        )
        outcomes.append(run_quietly(lambda: bash.exec(script)))

    def run_b(_: int) -> None:
        try:
            for _ in range(3):
                ENDINGS[ending](bash)
        finally:
            bash.write_file("/workspace/stop", "")
            stop.set()

    errors = in_threads(2, lambda i: run_a(i) if i == 0 else run_b(i))
    assert not errors, errors
    assert stop.is_set()
    r = outcomes[0]
    assert isinstance(r, ExecResult), f"run A was ended by run B: {r!r}"
    assert (r.exit_code, r.stdout) == (0, "done\n")


def test_concurrent_runs_record_only_their_own_events() -> None:
    """T-TEN-1: the policy gate's recorder is per run: each result's events (and each run's
    events at the sinks) are exactly its own, with one run id."""
    sink = ListSink()
    bash = make_bash(
        sink=sink, files={f"/data/u{t}x{k}.txt": f"{t}-{k}\n" for t in range(4) for k in range(5)}
    )
    results: dict[str, ExecResult] = {}
    lock = threading.Lock()

    def work(t: int) -> None:
        for k in range(5):
            tag = f"u{t}x{k}"
            script = (
                f"cat /data/{tag}.txt; for i in $(seq 30); do ls /data/{tag}.txt >/dev/null; done; "
                f"echo w > /workspace/{tag}.out; cat /workspace/{tag}.out"
            )
            r = bash.exec(script)
            assert (r.exit_code, r.stdout) == (0, f"{t}-{k}\nw\n"), r
            with lock:
                results[tag] = r

    assert not in_threads(4, work)
    by_run: dict[str, list[dict[str, object]]] = {}
    for ev in sink.events:
        by_run.setdefault(ev.run_id, []).append(ev.to_dict())
    for tag, r in results.items():
        run_ids = {str(e["run_id"]) for e in r.events}
        assert len(run_ids) == 1, run_ids
        assert by_run[run_ids.pop()] == r.events  # the sinks saw exactly these
        targets = {str(e.get("target", "")) for e in r.events if e["kind"] == "decision"}
        assert f"/data/{tag}.txt" in targets and f"/workspace/{tag}.out" in targets
        assert {m for t in targets for m in TAG.findall(t)} == {tag}, targets


def test_embedder_calls_are_gated_and_recorded_outside_runs() -> None:
    """T-TEN-1: the embedder's own file calls still go through the policy, are recorded to the
    sinks under `outside-run`, and never land in a concurrent run's events."""
    sink = ListSink()
    bash = make_bash(sink=sink)
    started = threading.Event()
    outcome: list[ExecResult] = []

    def run(_: int) -> None:
        started.set()
        outcome.append(bash.exec("for i in $(seq 200); do cat /data/shared.txt >/dev/null; done; echo ok"))

    def embed(_: int) -> None:
        started.wait(JOIN)
        for i in range(50):
            bash.write_file(f"/workspace/emb{i}", "e")
            assert bash.read_file(f"/workspace/emb{i}") == b"e"

    assert not in_threads(2, lambda i: run(i) if i == 0 else embed(i))
    with pytest.raises(FsError) as e:
        bash.write_file("/data/new", "x")  # /data:ro: the embedder's writes after the start are decided
    assert e.value.code == errno.EACCES
    assert outcome[0].stdout == "ok\n"
    assert not any("emb" in str(ev.get("target", "")) for ev in outcome[0].events)
    outside = [ev for ev in sink.events if ev.run_id == "outside-run"]
    assert any(ev.fields.get("target") == "/workspace/emb7" for ev in outside)
    assert any(
        ev.fields.get("target") == "/data/new" and ev.fields.get("decision") == "deny" for ev in outside
    )


def test_network_decisions_belong_to_their_run() -> None:
    """T-TEN-1: `http:request` decisions (the policy's network hook) go to the run that made the
    request, in one-shot runs and across a session's calls. `decide` refuses every request, so
    nothing is sent."""
    net = NetworkConfig(allowed_url_prefixes=["https://api.example.com/"])
    bash = make_bash(network=net, decide=lambda action: False if action.kind == "http:request" else None)
    results: dict[str, ExecResult] = {}

    def work(t: int) -> None:
        s = bash.session()
        for k in range(3):
            tag = f"u{t}x{k}"
            call = s.exec if k % 2 else bash.exec
            results[tag] = call(f"curl -s https://api.example.com/{tag}; echo $?")

    assert not in_threads(3, work)
    for tag, r in results.items():
        urls = {
            str(e["target"]) for e in r.events if e["kind"] == "decision" and e["action"] == "http:request"
        }
        assert urls == {f"https://api.example.com/{tag}"}, (tag, urls, r.stderr)
        assert r.stdout.strip() != "0"


def test_session_jobs_do_not_record_into_the_next_call() -> None:
    """T-TEN-1 within a session (one Runtime reused by its calls): background jobs a call left
    running end with that call, so none of their file decisions land in the next call's events."""
    bash = make_bash()
    session = bash.session()
    r1 = session.exec(
        "(while :; do cat /data/shared.txt >/dev/null; done) & (sleep 5; cat /data/shared.txt) & echo started"
    )
    assert r1.stdout == "started\n", r1
    r2 = session.exec("for i in 1 2 3 4 5; do sleep 0.1; done; cat /data/d0 2>/dev/null; echo second")
    assert r2.stdout == "second\n", r2
    targets = [str(e.get("target", "")) for e in r2.events if e["kind"] == "decision"]
    assert "/data/d0" in targets and "/data/shared.txt" not in targets, targets


def test_mcp_clients_survive_another_clients_finished_runs() -> None:
    """T-TEN-1 through the MCP server (in-process): after one client's run ends by its timeout,
    and while another client's run goes on, `read_file`/`write_file`/`list_dir` on a deep path
    answer and the server keeps serving every client."""
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    from mcp import Client

    from sandbash.agent.mcp_server import build_server

    server = build_server(BashTool(make_bash()))

    def text(result: Any) -> str:
        return "".join(getattr(block, "text", "") for block in result.content)

    async def go() -> None:
        async with Client(server) as first, Client(server) as second:
            timed = await first.call_tool("bash", {"command": "while :; do :; done", "timeout_ms": 200})
            assert "timeout" in text(timed)
            long = asyncio.ensure_future(
                second.call_tool(
                    "bash",
                    {"command": f"for i in $(seq 300); do cat {DEEP_FILE} >/dev/null; done; echo long-done"},
                )
            )
            for i in range(5):
                assert text(await first.call_tool("read_file", {"path": DEEP_FILE})).startswith("deep")
                await first.call_tool(
                    "write_file", {"path": f"/workspace/{'/'.join('w' * 40)}/f{i}", "content": "x"}
                )
                listing = text(await second.call_tool("list_dir", {"path": DEEP}))
                assert listing.split()[0] == "f", listing
            assert "long-done" in text(await long)
            assert "hi" in text(await first.call_tool("bash", {"command": "echo hi"}))

    asyncio.run(asyncio.wait_for(go(), JOIN))


# ------------------------------------------------------------ T-TEN-2: nothing internal escapes

INTERNAL: dict[str, Callable[[], BaseException]] = {
    "limit": lambda: LimitExceeded("max_work", 5),
    "cancelled": Cancelled,
    "deadline": DeadlineExpired,
    "read-timed-out": lambda: ReadTimedOut("partial", [0]),  # (`read -t` ran out, with what it had read)
    "sigpipe": SigPipe,
    "exit": lambda: ExitShell(3),
    "killed": lambda: KilledBySignal(9),  # (a signal without a trap ended the shell)
    "errexit": lambda: ErrexitTriggered(1),
    "replaced": lambda: Replaced(6),  # (`exec CMD`: the shell became CMD)
    "break": lambda: BreakLoop(1),
    "continue": lambda: ContinueLoop(1),
    "return": lambda: ReturnFromFunction(4),
    "abort": lambda: AbortCommand(1),
    "controlflow": ControlFlow,
    "loopcontrol": lambda: LoopControl(1),  # (the base of break and continue)
}


def _internal_types() -> set[type[BaseException]]:
    """Every interpreter-internal exception type: defined in sandbash, a BaseException but not an
    Exception (what `except Exception` in the embedder's code would not catch)."""
    import importlib
    import pkgutil

    import sandbash

    for mod in pkgutil.walk_packages(sandbash.__path__, "sandbash."):
        if mod.name != "sandbash.__main__":  # runs the CLI
            try:
                importlib.import_module(mod.name)
            except ImportError:  # an optional SDK that is not installed
                pass
    found: set[type[BaseException]] = set()
    todo = [BaseException]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("sandbash.") and not issubclass(sub, Exception):
                found.add(sub)
    return found


INTERNAL_TYPES = _internal_types()
# types added after this table was written are still raised through every entry point: they take
# a status or signal number, or nothing (test_every_internal_exception_type_is_raised says which)
_BY_NAME = {t.__name__: t for t in INTERNAL_TYPES}
if "JobSignal" in _BY_NAME:  # `kill` for a background job
    INTERNAL["jobsignal"] = lambda: _BY_NAME["JobSignal"](15)


class _Raise(Command):
    """A custom command (the embedder's code) that raises an interpreter-internal exception."""

    name = "tenancy-raise"

    def execute(self, args: list[str], ctx: Any) -> None:
        raise INTERNAL[args[0]]()


RAISER = (_Raise(),)  # the sandboxes of the tests below run it (Bash(commands=...))


SCRIPTS = {
    "ok": "echo hi",
    "timeout": "while :; do :; done",
    "loop-limit": "for ((;;)); do :; done",
    "output-limit": "cat /dev/zero",
    "recursion": "f() { f; }; f",
    "sigpipe": "yes | head -1",
    "exit-trap": "trap 'exit 7' EXIT; exit 2",
    "break-top": "break; continue; return 3",
    "return-in-trap": "trap 'return 4' EXIT; true",
    "sub-timeout": "timeout 0.1 sleep 5; echo $?",
    "syntax": "if then fi",
    "kill-self": "kill -PIPE $$",
    "deep-fs": f"while :; do cat {DEEP_FILE} >/dev/null; done",
}
for _kind in INTERNAL:
    SCRIPTS[f"raise-{_kind}"] = f"tenancy-raise {_kind}; echo after"
    SCRIPTS[f"raise-{_kind}-pipe"] = f"echo x | tenancy-raise {_kind} | cat; echo after"
    SCRIPTS[f"raise-{_kind}-subst"] = f"x=$(tenancy-raise {_kind}); echo after"

LIMITS = {"timeout": 0.5, "max_loop_iterations": 10_000, "max_output_size": 100_000}


def _collect_stream(start: Callable[[], Any]) -> ExecResult:
    async def go() -> ExecResult:
        run = start()
        async for _ in run:
            pass
        assert run.result is not None
        return run.result  # type: ignore[no-any-return]

    return asyncio.run(go())


def _entry_points(bash: Bash, session: Session, tool: BashTool) -> dict[str, Callable[[str], object]]:
    sandbox = Sandbox(bash)
    cancelled = CancelToken()
    cancelled.cancel()
    return {
        "Bash.exec": lambda s: bash.exec(s, limits=LIMITS),
        "Bash.exec(cancelled)": lambda s: bash.exec(s, limits=LIMITS, cancel=cancelled),
        "Bash.aexec": lambda s: asyncio.run(bash.aexec(s, limits=LIMITS)),
        "Bash.astream": lambda s: _collect_stream(lambda: bash.astream(s, limits=LIMITS)),
        "Session.exec": lambda s: session.exec(s, limits=LIMITS),
        "Session.aexec": lambda s: asyncio.run(session.aexec(s, limits=LIMITS)),
        "Session.astream": lambda s: _collect_stream(lambda: session.astream(s, limits=LIMITS)),
        "BashTool.run": lambda s: tool.run({"command": s, "timeout_ms": 500}),
        "BashTool.run(session)": lambda s: tool.run({"command": s, "timeout_ms": 500, "session_id": "a"}),
        "BashTool.arun": lambda s: asyncio.run(tool.arun({"command": s, "timeout_ms": 500})),
        "Sandbox.run_command": lambda s: sandbox.run_command(s, limits=LIMITS),
        "Sandbox.arun_command": lambda s: asyncio.run(sandbox.arun_command(s, limits=LIMITS)),
        "Sandbox.session": lambda s: sandbox.session().exec(s, limits=LIMITS),
        "BashTool.arun(session)": lambda s: asyncio.run(
            tool.arun({"command": s, "timeout_ms": 500, "session_id": "b"})
        ),
        "AnthropicBash.run": lambda s: AnthropicBash(tool).run({"command": s, "timeout_ms": 500}),
        "OpenAIBash.call": lambda s: OpenAIBash(tool).call({"command": s, "timeout_ms": 500}),
        "OpenAIBash.shell_commands": lambda s: OpenAIBash(tool).shell_commands(
            [s, "echo next"], timeout_ms=500
        ),
        "Bash.check": lambda s: bash.check(s),  # the static check reads hostile text too
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=list(SCRIPTS))
def test_no_internal_exception_leaves_a_public_entry_point(script: str) -> None:
    """T-TEN-2: every public entry point, for scripts that end in every way the interpreter has
    (limits, cancellation, SIGPIPE, control flow at the top, internal exceptions raised by the
    embedder's own command), gives a result or a documented exception, and the file entry points
    keep working after it."""
    bash = make_bash(timeout=0.5, policy=False, commands=RAISER)
    session = bash.session()
    tool = BashTool(bash)
    text = SCRIPTS[script]
    for name, call in _entry_points(bash, session, tool).items():
        try:
            call(text)
        except (SandbashError, FsError):
            pass
        except Exception as e:  # an ordinary Python error is a bug too, but not this test's class
            pytest.fail(f"{name}: {type(e).__name__}: {e}")
        except BaseException as e:
            pytest.fail(f"{name} let the internal {type(e).__name__} escape")
    for fname, fcall in FILE_CALLS.items():
        no_internal(lambda fcall=fcall: fcall(bash), f"{fname} after {script!r}")  # type: ignore[misc]
    Sandbox(bash).write_files({"/workspace/after.txt": "ok"})
    assert bash.read_file("/workspace/after.txt") == b"ok"


@pytest.mark.parametrize(
    ("kind", "status"),
    [
        ("deadline", 124),
        ("sigpipe", 141),
        ("break", 0),
        ("continue", 0),  # (the builtin's own status, as a loop it ends gets)
        ("return", 4),
        ("exit", 3),
        ("abort", 1),
        ("controlflow", 1),
        ("loopcontrol", 0),
        *([("jobsignal", 143)] if "jobsignal" in INTERNAL else []),
    ],
)
def test_stray_internal_exception_ends_the_run_with_a_status(kind: str, status: int) -> None:
    """T-TEN-2: what a custom command raises past the shell ends the run with a status
    (124 for an expired sub-command deadline), in a one-shot run and in a session."""
    bash = make_bash(policy=False, commands=RAISER)
    for call in (bash.exec, bash.session().exec):
        r = call(f"tenancy-raise {kind}")
        assert r.exit_code == status, (kind, r)


def test_every_internal_exception_type_is_raised() -> None:
    """T-TEN-2 closes the class: every interpreter-internal exception type sandbash defines (found
    by walking the package) is raised by the custom command above, so the entry-point cases cover
    a type added later too."""
    raised = {type(make()) for make in INTERNAL.values()}
    assert INTERNAL_TYPES - raised == set(), "add the new internal exception types to INTERNAL"
    assert {LimitExceeded, Cancelled, DeadlineExpired, SigPipe, ExitShell} <= INTERNAL_TYPES


def test_internal_limit_and_cancel_map_to_documented_exceptions() -> None:
    """T-TEN-2: LimitExceeded and Cancelled raised anywhere in a run are ExecutionLimitError and
    ExecutionCancelled, with the partial result and the run's end event."""
    bash = make_bash(policy=False, commands=RAISER)
    with pytest.raises(ExecutionLimitError) as e:
        bash.exec("echo part; tenancy-raise limit")
    assert (e.value.limit, e.value.result.stdout) == ("max_work", "part\n")
    assert e.value.result.events[-1]["kind"] == "run.end"
    with pytest.raises(ExecutionCancelled) as c:
        bash.session().exec("echo part; echo x | tenancy-raise cancelled")
    assert c.value.result.exit_code == 130 and c.value.result.events[-1]["cancelled"] is True


@pytest.mark.parametrize(
    "error", [KeyError("k"), ValueError("bad"), AttributeError("x"), OverflowError("big")]
)
def test_a_bug_in_the_interpreter_ends_the_run_with_a_result(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    """T-TEN-2 for ordinary Python errors: a bug anywhere in the interpreter (here the arithmetic
    command's evaluation, which no builtin or command frame guards) never reaches the embedder as a
    traceback: the run ends with status 1, what it wrote so far and one `sandbash: internal error
    (...)` line, the audit's end event, and the session goes on. (A command's or a builtin's own bug
    is its `NAME: internal error`, and the script goes on: the test below.) OverflowError stays
    what it was before: the memory limit."""
    from sandbash.interp.shell import Shell

    real = Shell.arith_eval

    def broken(self: Shell, text: str) -> int:
        if text.strip() == "7":
            raise error
        return real(self, text)

    monkeypatch.setattr(Shell, "arith_eval", broken)
    sink = ListSink()
    bash = make_bash(sink=sink, policy=False)
    session = bash.session()
    for call in (bash.exec, session.exec):
        if isinstance(error, OverflowError):
            with pytest.raises(ExecutionLimitError) as e:
                call("echo before; echo $(( 7 )); echo after")
            assert e.value.limit == "max_memory" and e.value.result.stdout == "before\n"
            continue
        r = call("echo before; echo $(( 7 )); echo after")
        assert (r.exit_code, r.stdout) == (1, "before\n"), r
        assert r.stderr == f"sandbash: internal error ({type(error).__name__}: {error})\n", r
        assert r.events[-1]["kind"] == "run.end" and r.events[-1]["status"] == 1
    assert session.exec("x=1; echo $((x + 1))").stdout == "2\n"


@pytest.mark.parametrize("walked", [False, True], ids=["compiled", "walked"])
def test_a_bug_in_a_builtin_is_its_internal_error(walked: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A builtin's own Python bug is what a command's is: one `NAME: internal error (...)` line,
    status 1, and the script goes on (a function, a hot loop compiled inline, `builtin`/`command`,
    a redirection, set -e seeing the failure, a $( )), compiled and walked. MemoryError and
    OverflowError stay the memory limit, RecursionError the call-depth limit."""
    from sandbash.interp import evaluator as evaluator_module
    from sandbash.interp.builtin_table import BUILTINS

    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walked)
    raised: list[Exception] = [KeyError("k")]

    def broken(sh: object, argv: list[str]) -> int:
        raise raised[0]

    BUILTINS["times"]  # (the table loaded whole, so the stand-in is the one found)
    monkeypatch.setitem(BUILTINS, "times", broken)
    line = ": internal error (KeyError: 'k')"  # (`builtin times`: the line names `builtin`)
    bash = make_bash(policy=False)
    script = (
        'echo before; times; echo "after $?"\n'
        'f() { times; echo "in f $?"; }; f\n'
        'for i in 1 2 3 4 5 6 7 8; do times; s+=$?; done; echo "loop $s"\n'
        'builtin times; echo "builtin $?"; command times 2>/dev/null; echo "command $?"\n'
        'x=$(times; echo sub $?); echo "$x"\n'
        "set -e; times || echo caught; times; echo not reached\n"
    )
    for call in (bash.exec, bash.session().exec):
        r = call(script)
        assert r.stdout == "before\nafter 1\nin f 1\nloop 11111111\nbuiltin 1\ncommand 1\nsub 1\ncaught\n", r
        assert r.exit_code == 1, r
        lines = r.stderr.splitlines()
        assert len(lines) == 14 and all(x.endswith(line) for x in lines), r.stderr
    for error, limit in ((MemoryError(), "max_memory"), (OverflowError("big"), "max_memory")):
        raised[0] = error
        with pytest.raises(ExecutionLimitError) as e:
            bash.exec("echo before; times; echo after")
        assert e.value.limit == limit and e.value.result.stdout == "before\n"


# ------------------------------------------------------------ T-TEN-3: one Bash, many threads


def test_stress_one_bash_many_threads() -> None:
    """T-TEN-3: 8 threads x 50 runs on one Bash under a policy with an audit: short runs, runs
    ending by timeout, by a limit and by cancellation, sessions, and file calls through `bash.fs`.
    No run is ended by another, each result's events are exactly its own, nothing internal escapes."""
    sink = ListSink()
    bash = make_bash(sink=sink)
    threads, per_thread = 8, 50
    lock = threading.Lock()
    seen: list[tuple[str, ExecResult]] = []

    def keep(tag: str, r: ExecResult) -> None:
        with lock:
            seen.append((tag, r))

    def work(t: int) -> None:
        session = bash.session()
        for k in range(per_thread):
            tag = f"u{t}x{k}"
            kind = (t + k) % 6
            if kind == 0:  # a short run over its own files and a deep path
                bash.fs.write_file(f"/workspace/{tag}.in", tag, parents=True)
                r = bash.exec(f"cat /workspace/{tag}.in; cat {DEEP_FILE} > /workspace/{tag}.out")
                assert (r.exit_code, r.stdout) == (0, tag), r
                assert bash.fs.read_bytes(f"/workspace/{tag}.out") == b"deep\n"
                keep(tag, r)
            elif kind == 1:  # its own deadline
                with pytest.raises(ExecutionLimitError) as e:
                    bash.exec(
                        f"echo {tag} > /workspace/{tag}.t; while :; do cat {DEEP_FILE} >/dev/null; done",
                        limits={"timeout": 0.05},
                    )
                assert e.value.limit == "timeout"
                keep(tag, e.value.result)
            elif kind == 2:  # another limit
                with pytest.raises(ExecutionLimitError) as e:
                    bash.exec(
                        f"ls /workspace/{tag}.nothing 2>/dev/null; for ((;;)); do :; done",
                        limits={"max_loop_iterations": 50},
                    )
                assert e.value.limit == "max_loop_iterations"
                keep(tag, e.value.result)
            elif kind == 3:  # cancelled by its caller
                token = CancelToken()
                timer = threading.Timer(0.03, token.cancel)
                timer.start()
                with pytest.raises(ExecutionCancelled) as c:
                    bash.exec(
                        f"cat /data/shared.txt > /workspace/{tag}.c; while :; do cat {DEEP_FILE} >/dev/null; done",
                        cancel=token,
                    )
                timer.join()
                keep(tag, c.value.result)
            elif kind == 4:  # a session call (its state is its own)
                r = session.exec(
                    f"v={tag}; cat {DEEP_FILE} >/dev/null; echo $v > /workspace/{tag}.s; echo $v"
                )
                assert (r.exit_code, r.stdout) == (0, f"{tag}\n"), r
                keep(tag, r)
            else:  # the embedder's own calls while runs go on
                bash.write_file(f"/workspace/{tag}.e", tag)
                assert bash.read_file(f"/workspace/{tag}.e") == tag.encode()
                assert "d0" in bash.fs.listdir("/data")
                assert bash.fs.stat(DEEP_FILE).size == 5

    errors = in_threads(threads, work)
    assert not errors, [f"{type(e).__name__}: {e}" for e in errors[:5]]
    assert len(seen) == threads * per_thread - sum(
        1 for t in range(threads) for k in range(per_thread) if (t + k) % 6 == 5
    )
    run_ids: set[str] = set()
    for tag, r in seen:
        ids = {str(e["run_id"]) for e in r.events}
        assert len(ids) == 1, (tag, ids)
        run_ids |= ids
        assert r.events[0]["kind"] == "run.start" and r.events[-1]["kind"] == "run.end", tag
        assert sum(1 for e in r.events if e["kind"] == "run.end") == 1, tag
        targets = {str(e.get("target", "")) for e in r.events if e["kind"] == "decision"}
        assert {m for t in targets for m in TAG.findall(t)} == {tag}, (tag, targets)
    assert len(run_ids) == len(seen)
    assert {ev.run_id for ev in sink.events} - run_ids <= {"outside-run"}


def test_concurrent_async_runs_on_one_bash() -> None:
    """T-TEN-3: asyncio tasks sharing one Bash: cancelling one task (or its timeout) stops only it."""
    bash = make_bash()

    async def go() -> None:
        slow = asyncio.ensure_future(
            bash.aexec(f"while :; do cat {DEEP_FILE} >/dev/null; done", timeout=JOIN)
        )
        quick = [bash.aexec(f"cat {DEEP_FILE}") for _ in range(8)]
        timed = [bash.aexec("while :; do :; done", timeout=0.1) for _ in range(4)]
        done = await asyncio.gather(*quick, *timed, return_exceptions=True)
        assert all(isinstance(r, ExecResult) and r.stdout == "deep\n" for r in done[:8]), done[:8]
        assert all(isinstance(r, ExecutionLimitError) and r.limit == "timeout" for r in done[8:]), done[8:]
        assert not slow.done()
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow

    asyncio.run(asyncio.wait_for(go(), JOIN))
    assert bash.read_file(DEEP_FILE) == b"deep\n"


def test_long_async_runs_do_not_starve_other_clients() -> None:
    """T-TEN-3: more long-running `aexec` calls than the loop's default executor has workers do
    not queue another client's run behind them: the waiting runs only end once the quick run
    (started last) has let them go. Queued behind them, it would never run and they would all
    end by their timeout."""
    import os

    bash = make_bash()
    waiting = min(32, (os.cpu_count() or 1) + 4) + 2  # asyncio's default executor size, and more

    async def go() -> list[ExecResult | BaseException]:
        script = "until [ -e /workspace/go ]; do sleep 0.02; done; echo released"
        slow = [asyncio.ensure_future(bash.aexec(script, timeout=20)) for _ in range(waiting)]
        await asyncio.sleep(0.2)
        quick = await bash.aexec("touch /workspace/go; echo quick", timeout=20)
        assert quick.stdout == "quick\n"
        return await asyncio.gather(*slow, return_exceptions=True)

    done = asyncio.run(asyncio.wait_for(go(), JOIN))
    assert all(isinstance(r, ExecResult) and r.stdout == "released\n" for r in done), done


def test_every_entry_point_at_once_on_one_bash() -> None:
    """T-TEN-3: one thread per entry point (exec, a session, aexec, astream, BashTool with and
    without a session, Sandbox.run_command, the Anthropic and OpenAI adapters, the embedder's file
    calls), all at once on one Bash,
    each interleaving runs that end by a timeout: every normal run gives exactly its own output."""
    bash = make_bash()
    tool = BashTool(bash)
    sandbox = Sandbox(bash)
    session = bash.session()
    anthropic, openai = AnthropicBash(tool), OpenAIBash(tool)
    script = "cat {deep} >/dev/null; echo {tag}"

    def call(kind: str, tag: str) -> str:
        text = script.format(deep=DEEP_FILE, tag=tag)
        if kind == "exec":
            return bash.exec(text).stdout
        if kind == "session":
            return session.exec(text).stdout
        if kind == "aexec":
            return asyncio.run(bash.aexec(text)).stdout
        if kind == "astream":
            return _collect_stream(lambda: bash.astream(text)).stdout
        if kind == "tool":
            return str(tool.run({"command": text}).to_dict()["stdout"])
        if kind == "tool-session":
            return str(tool.run({"command": text, "session_id": "s"}).to_dict()["stdout"])
        if kind == "sandbox":
            return sandbox.run_command(text).stdout
        if kind == "anthropic":  # one adapter = one client session
            answer, is_error = anthropic.run({"command": text})
            assert not is_error and answer.endswith("\n[exit code: 0]"), answer
            return answer.removesuffix("[exit code: 0]")
        if kind == "openai":
            out = openai.call({"command": text})
            assert not isinstance(out, str), out
            return out.stdout
        bash.write_file(f"/workspace/{tag}", tag + "\n")
        return bash.read_file(f"/workspace/{tag}").decode()

    kinds = [
        "exec",
        "session",
        "aexec",
        "astream",
        "tool",
        "tool-session",
        "sandbox",
        "anthropic",
        "openai",
        "files",
    ]

    def work(i: int) -> None:
        kind = kinds[i]
        for k in range(12):
            tag = f"u{i}x{k}"
            if k % 4 == 3 and kind not in ("tool", "tool-session", "anthropic", "openai", "files"):
                with pytest.raises(ExecutionLimitError):
                    bash.exec("while :; do :; done", limits={"timeout": 0.05})
            assert call(kind, tag) == f"{tag}\n", (kind, tag)

    errors = in_threads(len(kinds), work)
    assert not errors, [f"{type(e).__name__}: {e}" for e in errors[:5]]


# ------------------------------------------------------------ T-TEN-4: a session's calls run in turn


def test_session_calls_from_two_threads_run_in_turn() -> None:
    """T-TEN-4: two threads calling one Session: the calls are serialized, the shell state stays
    consistent (a counter increments exactly once per call)."""
    bash = make_bash()
    session = bash.session()
    session.exec("n=0")
    outputs: list[int] = []
    lock = threading.Lock()

    def work(_: int) -> None:
        for _ in range(25):
            r = session.exec(f"m=$n; cat {DEEP_FILE} >/dev/null; n=$((m+1)); echo $n")
            assert r.exit_code == 0, r
            with lock:
                outputs.append(int(r.stdout))

    assert not in_threads(4, work)
    assert sorted(outputs) == list(range(1, 101))
    assert session.exec("echo $n").stdout == "100\n"


def test_session_waiting_call_is_bounded_by_its_own_timeout_and_cancel() -> None:
    """T-TEN-4: a call waiting for a busy session gives up at its own timeout (status 124, nothing
    run) or when cancelled; the running call is not disturbed."""
    bash = make_bash(timeout=JOIN)
    session = bash.session()
    first: list[ExecResult | SandbashError] = []

    def busy(_: int) -> None:
        script = "touch /workspace/started; until [ -e /workspace/release ]; do sleep 0.02; done; echo first"
        first.append(run_quietly(lambda: session.exec(script)))

    t = threading.Thread(target=busy, args=(0,), daemon=True)
    t.start()
    end = time.monotonic() + JOIN
    while not bash.fs.exists("/workspace/started"):
        assert time.monotonic() < end
        time.sleep(0.01)
    with pytest.raises(ExecutionLimitError) as e:
        session.exec("echo never > /workspace/never", limits={"timeout": 0.2})
    assert (e.value.limit, e.value.result.exit_code) == ("timeout", 124)
    token = CancelToken()
    threading.Timer(0.1, token.cancel).start()
    with pytest.raises(ExecutionCancelled):
        session.exec("echo never > /workspace/never", cancel=token)
    bash.write_file("/workspace/release", "")
    t.join(JOIN)
    r = first[0]
    assert isinstance(r, ExecResult) and r.stdout == "first\n", r
    assert not bash.fs.exists("/workspace/never")
    assert session.exec("echo again").stdout == "again\n"


def test_session_reentry_is_refused() -> None:
    """T-TEN-4: a call into the session from its own running call (here an output callback)
    cannot get its turn: it is refused at once, and the outer call completes."""
    bash = make_bash()
    session = bash.session()
    refused: list[BaseException] = []

    def on_out(data: bytes) -> None:
        try:
            session.exec("echo inner")
        except RuntimeError as e:
            refused.append(e)

    r = session.exec("echo outer", on_stdout=on_out)
    assert r.stdout == "outer\n" and len(refused) == 1


def test_sessions_of_one_bash_do_not_share_shell_state() -> None:
    """T-TEN-4: sessions of one Bash, driven from threads at once, share the files but never
    variables, cwd, functions or traps."""
    bash = make_bash()

    def work(t: int) -> None:
        s = bash.session()
        s.exec(
            f"secret=s{t}; f() {{ echo f{t}; }}; mkdir -p /workspace/c{t}; cd /workspace/c{t}; trap 'echo t{t}' ERR"
        )
        for _ in range(10):
            r = s.exec(f"cat {DEEP_FILE} >/dev/null; echo $secret $(f) $PWD; false")
            assert r.stdout == f"s{t} f{t} /workspace/c{t}\nt{t}\n", r

    assert not in_threads(6, work)


# ------------------------------------------------------------ T-TEN-5: process-wide caches

SUBSCRIPT_SITES = {
    "assign": "m[$(hello)]=1",
    "printf -v": "printf -v 'm[$(hello)]' %s 1",
    "read": "read 'm[$(hello)]' <<< 1",
    "declare": "declare 'm[$(hello)]=1'",
    "declare -A list": "declare -A m=([$(hello)]=1)",
    "unset+assign": "m[x]=0; unset 'm[x]'; m[$(hello)]=1",
}


@pytest.mark.parametrize("site", SUBSCRIPT_SITES, ids=list(SUBSCRIPT_SITES))
def test_subscript_cache_keeps_no_runs_aliases(site: str) -> None:
    """T-TEN-5: parsed associative-array subscripts are cached process-wide; the parse must not
    carry one run's aliases into another run (run A's alias used to run in run B)."""
    a = make_bash(policy=False)
    b = make_bash(policy=False)
    code = SUBSCRIPT_SITES[site]
    script_a = f"shopt -s expand_aliases; alias hello='echo pwned'\ndeclare -A m; {code}; echo \"${{!m[@]}}\""
    assert a.exec(script_a).stdout == "pwned\n"
    r = b.exec(f'hello() {{ echo mine; }}; declare -A m; {code}; echo "${{!m[@]}}"')
    assert r.stdout == "mine\n", r
    # and the other way round: a cached parse without aliases does not hide a run's own alias
    assert a.exec(script_a).stdout == "pwned\n"


def test_subscript_cache_is_bounded() -> None:
    """T-TEN-5: one run's many distinct subscripts cannot grow the process-wide cache without bound."""
    from sandbash.interp import shell

    bash = make_bash(policy=False)
    r = bash.exec(
        'declare -A m; for i in $(seq 5000); do printf -v "m[\\$((i+$i))]" %s 1; done; echo ${#m[@]}',
        limits={"max_loop_iterations": 100_000},
    )
    assert r.stdout == "5000\n", r
    assert len(shell._SUB_CACHE) <= shell._SUB_CACHE.entries


# text parsed at run time (after expansion), distinct in every iteration: `$s` is 1000 terms
LONG_TEXT_SITES = {
    "let": 'let "x=${s}$i"',
    "$((...))": "x=$(( ${s}$i ))",
    "subscript": 'printf -v "m[${s}$i]" %s 1',
}


@pytest.mark.parametrize("site", LONG_TEXT_SITES, ids=list(LONG_TEXT_SITES))
def test_process_caches_keep_nothing_a_run_parsed_from_long_text(site: str) -> None:
    """T-TEN-5: what the process-wide caches keep is charged to no run and outlives it, and a parse
    costs far more than its text (an arithmetic tree ~100 bytes a character). A run parsing 30
    distinct 5 KB expressions used to leave ~15 MB held by the process after it ended (50: 24 MB;
    4096: the caches' bound, ~2 GB); now the caches keep nothing parsed from a long text."""
    import gc
    import tracemalloc

    from sandbash.expand import arith as earith
    from sandbash.interp import shell
    from sandbash.syntax import arith as sarith

    bash = make_bash(policy=False, timeout=60)
    script = f's=$(seq 1000 | tr "\\n" +); declare -A m; for i in $(seq 30); do {LONG_TEXT_SITES[site]}; done; echo ok'
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        r = bash.exec(script)
        assert r.stdout == "ok\n", r
        del r
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 5_000_000, f"{held} bytes held after the run"
    for cache in (sarith._CACHE, earith._COMPILED, shell._SUB_CACHE):
        texts = [k if isinstance(k, str) else k[0] for k in cache.keys()]
        assert all(len(t) <= cache.longest for t in texts)
        assert cache.held() <= cache.chars


# compiled at run time from text distinct in every iteration: `$s` is ~24 KB
LONG_PATTERN_SITES = {
    "case": 'case x in "${s}$i"*) ;; esac',
    "grep -E": 'echo x | grep -E "(${s}$i)|x" >/dev/null',
    "sed": 'echo x | sed "s/${s}$i/y/" >/dev/null',
    "awk": 'echo x | awk "/${s}$i/ {print}" >/dev/null',
    "awk dynamic regex": "echo x | awk -v r=\"${s}$i\" '$0 ~ r' >/dev/null",
    "awk printf": "awk -v f=\"${s}$i\" 'BEGIN { printf f }' >/dev/null",
    "awk gsub": "echo x | awk -v r=\"${s}$i\" '{ gsub(/x/, r) }' >/dev/null",
    "awk keys": "awk -v k=\"${s}$i\" 'BEGIN { a[k]; a[k 1]; for (x in a) n++ }'",
}


def _text_caches() -> dict[str, Any]:
    """Every TextCache / TextLRU held by a sandbash module (the process-wide caches)."""
    import sys

    from sandbash.textcache import TextCache, TextLRU

    _internal_types()  # imports every module
    return {
        f"{name}.{attr}": value
        for name, mod in list(sys.modules.items())
        if name.startswith("sandbash.")
        for attr, value in vars(mod).items()
        if isinstance(value, (TextCache, TextLRU))
    }


@pytest.mark.parametrize("site", LONG_PATTERN_SITES, ids=list(LONG_PATTERN_SITES))
def test_compiled_pattern_caches_are_bounded_by_their_text(site: str) -> None:
    """T-TEN-5: the process-wide caches of compiled globs, regular expressions, awk programs,
    awk's dynamic regexes, formats, replacements and array-key hashes are bounded by the text
    behind them, not only by their number of entries (2048 globs, 512 regular expressions, 64 awk
    programs, 262144 awk keys of any size: a run could leave hundreds of MB held). Every such
    cache in the package is checked after each site."""
    from sandbash.commands.awk import cli as awk_cli
    from sandbash.regex import engine
    from sandbash.textcache import TextCache

    caches = _text_caches()
    assert len(caches) >= 10, sorted(caches)
    bash = make_bash(policy=False, timeout=60)
    r = bash.exec(
        f's=$(seq 5000 | tr "\\n" a); for i in $(seq 12); do {LONG_PATTERN_SITES[site]}; done; echo ok'
    )
    assert r.stdout == "ok\n", r
    for where, cache in caches.items():
        assert cache.held() <= cache.chars, where
        if isinstance(cache, TextCache):
            assert all(len(k if isinstance(k, str) else k[0]) <= cache.longest for k in cache.keys()), where
    if site in ("grep -E", "awk"):  # 12 x 24 KB is past the bound: the oldest went, the newest stays
        lru = engine._CACHE if site == "grep -E" else awk_cli._CACHE
        assert len(lru) > 0 and lru.held() > 100_000


# ------------------------------------------------------------ T-TEN-6: /dev/urandom is the run's own


def _untemper(y: int) -> int:
    """The Mersenne Twister state word behind one 32-bit output."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    x = y
    for _ in range(5):
        x = y ^ ((x << 7) & 0x9D2C5680)
    y = x & 0xFFFFFFFF
    x = y
    for _ in range(3):
        x = y ^ (x >> 11)
    return x & 0xFFFFFFFF


def _urandom(bash: Bash, n: int, call: Callable[..., ExecResult] | None = None) -> bytes:
    import base64

    r = (call or bash.exec)(f"head -c {n} /dev/urandom | base64 -w0")
    assert r.exit_code == 0, r
    return base64.b64decode(r.stdout)


@pytest.mark.parametrize("victim", ["exec", "session", "seeded"])
def test_one_run_cannot_predict_another_runs_random_bytes(victim: str) -> None:
    """T-TEN-6: run A reads 624 words of /dev/urandom, rebuilds the generator's state and predicts
    the next MiB; run B's bytes (a one-shot run, a session, a seeded sandbox) are not in it
    (with one generator for the whole filesystem they were)."""
    import random

    bash = Bash(seed=1234) if victim == "seeded" else make_bash(policy=False)
    data = _urandom(bash, 2496)
    state = tuple(_untemper(int.from_bytes(data[i : i + 4], "little")) for i in range(0, 2496, 4))
    predictor = random.Random()
    predictor.setstate((3, (*state, 624), None))
    predicted = predictor.randbytes(1 << 20)
    secret = _urandom(bash, 32, bash.session().exec if victim == "session" else None)
    assert len(secret) == 32 and predicted.find(secret) == -1


def test_seeded_random_bytes_stay_reproducible() -> None:
    """T-TEN-6: with `seed=` the runs' /dev/urandom bytes are still the same from one sandbox to
    the next (each run draws its generator from the seeded one, in run order)."""
    first = [_urandom(Bash(seed=7), 16) for _ in range(2)]
    assert first[0] == first[1]
    a, b = Bash(seed=7), Bash(seed=7)
    assert [_urandom(a, 16), _urandom(a, 16)] == [_urandom(b, 16), _urandom(b, 16)]
    assert _urandom(a, 16) != _urandom(Bash(seed=8), 16)


def test_seeded_runs_do_not_share_shell_random_sequences() -> None:
    """T-TEN-6: with `seed=`, $RANDOM and mktemp names are reproducible from sandbox to sandbox
    but differ between runs, so one run cannot know another's temporary file names."""
    script = "echo $RANDOM $RANDOM $SRANDOM; mktemp -u; mktemp -u -d"
    a, b = Bash(seed=3), Bash(seed=3)
    runs_a = [a.exec(script).stdout for _ in range(3)] + [a.session().exec(script).stdout]
    runs_b = [b.exec(script).stdout for _ in range(3)] + [b.session().exec(script).stdout]
    assert runs_a == runs_b
    assert len(set(runs_a)) == len(runs_a), runs_a
