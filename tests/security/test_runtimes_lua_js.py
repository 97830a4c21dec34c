"""Hostile Lua and JavaScript: every snippet ends with a named limit, and neither runtime reaches
the host (files, environment, processes, sockets).

The limit rows run in forked children (secharness) under the default profile (max_memory 256 MB):
a busy loop ends at the deadline (also when it hides in pcall/try, a coroutine, a timer or the
promise queue), growth at max_memory, a flood of output at max_output_size; deep recursion is the
language's own error (status 1). JavaScript runs in a QuickJS worker process that the deadline
kills: its rows also show that no worker is left behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from secharness import ENV_CANARY, ENV_CANARY_NAME, FILE_CANARY, Outcome, batch, param, verify, verify_bomb

from sandbash import Bash, ExecutionLimitError, Limits

pytest.importorskip("lupa")
pytest.importorskip("_quickjs")

TIME = ("timeout",)
MEM = ("max_memory",)
OUT = ("max_output_size",)


def row(case_id: str, script: str, expect: tuple[str, ...], *, timeout: float = 2.0, **kw: Any) -> Any:
    return param(case_id, script, timeout=timeout, profile="default", expect=expect, **kw)


TIME_ROWS = [
    row("lua-busy-loop", "lua -e 'while true do end'", TIME),
    row("lua-loop-in-pcall", "lua -e 'while true do pcall(function() while true do end end) end'", TIME),
    row("lua-loop-in-coroutine", "lua -e 'coroutine.wrap(function() while true do end end)()'", TIME),
    row(
        "lua-loop-in-xpcall-handler",
        "lua -e 'while true do xpcall(function() error(1) end, function() while true do end end) end'",
        TIME,
    ),
    row("lua-loop-in-required-module", "echo 'while true do end' > m.lua; lua -e 'require(\"m\")'", TIME),
    row("lua-loop-in-stdin-program", "echo 'repeat until false' | lua -", TIME),
    row("js-busy-loop", "node -e 'for(;;){}'", TIME),
    row("js-loop-in-try", "node -e 'while (true) { try { for(;;){} } catch (e) {} }'", TIME),
    row("js-endless-interval", "node -e 'setInterval(() => {}, 1)'", TIME),
    row("js-endless-promise-chain", "node -e 'function f() { return Promise.resolve().then(f) } f()'", TIME),
    row("js-loop-in-pipeline", "seq 3 | node -e 'for(;;){}' | cat", TIME),
]

MEMORY_ROWS = [
    row("lua-string-doubling", "lua -e 'local s = \"x\" while true do s = s .. s end'", MEM, timeout=20),
    row(
        "lua-table-growth",
        "lua -e 'local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end'",
        MEM,
        timeout=20,
    ),
    row("lua-string-rep", "lua -e 'local s = string.rep(\"a\", 1e9)'", MEM, timeout=20),
    row(
        "lua-growth-caught-by-pcall",
        "lua -e 'local t = {} while true do pcall(function() t[#t + 1] = string.rep(\"x\", 1e6) end) end'",
        ("max_memory", "timeout"),
        timeout=20,
    ),
    row("lua-read-dev-zero", 'lua -e \'io.open("/dev/zero"):read("a")\'', MEM, timeout=20),
    row(
        "lua-endless-stdin-line",
        "head -c 400000000 /dev/zero | lua -e 'io.read(\"l\")'",
        ("max_memory", "max_string_length"),
        timeout=20,
    ),
    row(
        "js-string-doubling", "node -e 'let s = \"x\"; for (;;) s += s'", ("max_memory", "result"), timeout=20
    ),
    row("js-array-growth", "node -e 'const a = []; for (;;) a.push({x: a.length})'", MEM, timeout=20),
    row(
        "js-stdin-endless",
        "head -c 400000000 /dev/zero | node -e 'require(\"fs\").readFileSync(0)'",
        MEM,
        timeout=20,
    ),
]

# (a 1 MB output cap: a flood reaches it in well under its timeout, even on a loaded host)
SMALL_OUT = {"max_output_size": 1 << 20}
OUTPUT_ROWS = [
    row(
        "lua-endless-print",
        "lua -e 'while true do print(\"yyyyyyyy\") end'",
        OUT,
        timeout=20,
        overrides=SMALL_OUT,
    ),
    row(
        "lua-endless-io-write",
        "lua -e 'while true do io.write(\"yyyyyyyy\") end'",
        OUT,
        timeout=20,
        overrides=SMALL_OUT,
    ),
    row(
        "js-endless-console-log",
        "node -e 'for (;;) console.log(\"yyyyyyyy\")'",
        OUT,
        timeout=20,
        overrides=SMALL_OUT,
    ),
    row(
        "js-endless-stdout-write",
        "node -e 'for (;;) process.stdout.write(\"yyyyyyyy\")'",
        OUT,
        timeout=20,
        overrides=SMALL_OUT,
    ),
]

RECURSION_ROWS = [
    # a file grows on the virtual filesystem (not in Lua's heap) until the quota says it is full
    row(
        "lua-file-growth",
        'lua -e \'local f = io.open("big", "w") while true do assert(f:write(string.rep("x", 1e6))) end\'',
        ("result",),
        timeout=20,
        contains="No space left on device",
    ),
    row(
        "lua-deep-recursion",
        "lua -e 'local function f() return 1 + f() end f()'; echo status $?",
        ("result", "max_memory"),
        timeout=20,
        contains="stack overflow",
    ),
    row(
        "lua-deep-recursion-metamethod",
        "lua -e 'local t = setmetatable({}, {__index = function(t, k) return t[k] end}) print(t.x)'; echo $?",
        ("result", "max_memory"),
        timeout=20,
    ),
    row(
        "js-deep-recursion",
        "node -e 'function f() { return f() + 1 } f()'; echo status $?",
        ("result",),
        timeout=20,
        contains="status 1",
    ),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_hostile_snippet_ends_with_a_named_limit")


@pytest.mark.parametrize("case", TIME_ROWS + OUTPUT_ROWS + RECURSION_ROWS)
def test_hostile_snippet_ends_with_a_named_limit(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])


@pytest.fixture(scope="module")
def bomb_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_memory_bomb_ends_at_the_memory_budget")


@pytest.mark.parametrize("case", MEMORY_ROWS)
def test_memory_bomb_ends_at_the_memory_budget(
    case: dict[str, Any], bomb_outcomes: dict[str, Outcome]
) -> None:
    verify_bomb(case, bomb_outcomes[case["id"]])


# ------------------------------------------------------------ the host stays out of reach


@pytest.fixture()
def host_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text(FILE_CANARY + "\n")
    monkeypatch.setenv(ENV_CANARY_NAME, ENV_CANARY)
    return secret


HOST_PROBES = {
    "lua": [
        "print(io.open('{secret}'))",
        "print(pcall(dofile, '{secret}'))",
        "print(os.getenv('{env}'))",
        "print(python, debug, package.loadlib, package.cpath, collectgarbage('count') > 0)",
        "print(pcall(require, 'socket'))",
        "print(load(string.dump(function() return 1 end)))",
        "for k, v in pairs(_G) do if type(v) == 'userdata' then print('userdata global', k) end end",
        "print(io.popen('cat {secret}'):read('a'))",
        "print(os.execute('cat {secret} >/dev/null 2>&1'))",
    ],
    "node": [
        "try {{ require('fs').readFileSync('{secret}', 'utf8') }} catch (e) {{ console.log(e.code) }}",
        "console.log(process.env['{env}'], Object.keys(process.env).length < 50)",
        "for (const m of ['net', 'http', 'https', 'dgram', 'worker_threads', 'vm', 'module']) "
        "{{ try {{ require(m); console.log('loaded', m) }} catch (e) {{ console.log(e.code) }} }}",
        "console.log(typeof std, typeof os, typeof __host, typeof __write, typeof process.binding)",
        "console.log(require('child_process').execSync('cat {secret} 2>&1; echo $?').toString())",
    ],
}


@pytest.mark.parametrize("runtime", sorted(HOST_PROBES))
def test_runtime_cannot_reach_host_files_env_or_modules(runtime: str, host_secret: Path) -> None:
    bash = Bash()
    for probe in HOST_PROBES[runtime]:
        code = probe.format(secret=host_secret, env=ENV_CANARY_NAME)
        r = bash.exec(f"{runtime} -e {_quote(code)}")
        text = r.stdout + r.stderr
        assert FILE_CANARY not in text and ENV_CANARY not in text, (code, text)
        assert "loaded" not in r.stdout and "userdata global" not in r.stdout, (code, text)
        assert "internal error" not in text, (code, text)


def test_js_worker_has_no_environment_and_is_reaped() -> None:
    """Every worker starts with an empty environment and no site packages; a worker that ran a
    program is gone when the command ends, also when the deadline kills it mid-loop; at most one
    (the idle spare, started ahead of the next run) is left."""
    import sandbash.commands.runtimes.js_worker as jw

    started: list[Any] = []
    real = jw.Worker.__init__

    def spy(self: Any, *args: Any) -> None:
        real(self, *args)
        started.append(self.proc)

    jw._close_spare()
    jw.Worker.__init__ = spy  # type: ignore[method-assign]
    try:
        Bash().exec("node -e 'console.log(1)'")
        with pytest.raises(ExecutionLimitError):
            Bash().exec("node -e 'for(;;){}'", limits=Limits(timeout=0.5))
    finally:
        jw.Worker.__init__ = real  # type: ignore[method-assign]
    alive = [p for p in started if p.poll() is None]
    assert len(started) >= 3 and len(alive) == 1  # two ran, the last spare waits
    for proc in started:
        assert proc.args[1:3] == ["-I", "-S"]
    jw._close_spare()
    assert alive[0].poll() is not None


def _quote(code: str) -> str:
    return "'" + code.replace("'", "'\\''") + "'"


ORPHAN_SCRIPT = """
import sandbash.commands.runtimes.js_worker as jw
from sandbash import Bash, Limits
real = jw.Worker.__init__
def spy(self, *args):
    real(self, *args)
    print(self.proc.pid, flush=True)
jw.Worker.__init__ = spy
Bash().exec("node -e 'for(;;){}'", limits=Limits(timeout=3))
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def test_js_worker_ends_when_sandbash_is_killed() -> None:
    """A worker whose sandbash was killed (no one left to stop it) ends by its own CPU limit: the
    run's time left plus 2 s of CPU."""
    import os
    import signal
    import subprocess
    import sys
    import time

    parent = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pids = [int(parent.stdout.readline()), int(parent.stdout.readline())]  # the worker, then the spare
    time.sleep(1.5)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    end = time.monotonic() + 120  # 5 s of CPU, on a host that may give the worker little of it
    while time.monotonic() < end and any(_running(p) for p in pids):
        time.sleep(0.5)
    assert not any(_running(p) for p in pids)
