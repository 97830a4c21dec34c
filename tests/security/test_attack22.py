"""Attack round 22: last round's leftovers and new ground (T-MCP-2, T-TEN-8, T-BOX-6).

Fell and fixed: the MCP server gave every tool call a thread (a `bash` call waits for one of
`max_concurrent_calls` turns in it, up to its time limit), and nothing bounded the calls waiting:
a client sending thousands of calls at once held thousands of threads and requests. The server
now holds at most `max_pending_calls` tool calls at once (running or waiting) and answers the
rest at once with a one-line error.

Fell and fixed: the fields of one large expansion were built before anything was charged (see
test_transient_fields_are_charged).

Box mode, made consistent with what the README promises (host programs are found by name on the
host, whatever the script's PATH says): `exec TOOL` said `not found` (it now runs the table's
program as the shell's last command); `/usr/bin/git` (a host path the sandbox does not hold) said
`No such file or directory` (it now runs when a table runs that program, and is still not found
otherwise, so a path tells nothing about which host files are executable).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize("tool_name", ["bash", "read_file", "list_dir", "write_file"])
def test_mcp_calls_held_at_once_are_capped(tool_name: str) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    from mcp import Client

    from sandbash.agent.mcp_server import ServerConfig, build_server, build_tool

    tool = build_tool(ServerConfig(max_concurrent_calls=1, limits={"timeout": 60}))
    server = build_server(tool, max_pending_calls=3)
    args = {
        "bash": {"command": "echo ok"},
        "read_file": {"path": "/tmp/f"},
        "list_dir": {"path": "/tmp"},
        "write_file": {"path": "/tmp/g", "content": "x"},
    }[tool_name]

    async def main() -> None:
        async with Client(server) as client:
            await client.call_tool("write_file", {"path": "/tmp/f", "content": "hello"})
            # three slow calls hold every place; the fourth and later calls are refused at once
            slow = [
                asyncio.create_task(client.call_tool("bash", {"command": "sleep 2", "session_id": f"s{i}"}))
                for i in range(3)
            ]
            await asyncio.sleep(0.5)
            threads = threading.active_count()
            refused = await asyncio.gather(*(client.call_tool(tool_name, args) for _ in range(20)))
            assert threading.active_count() <= threads + 1
            for r in refused:
                assert r.is_error
                assert (
                    _text(r)
                    == f"{tool_name}: the server holds 3 calls already (max_pending_calls); try again"
                )
            for r in await asyncio.gather(*slow):
                assert not r.is_error, _text(r)
            r = await client.call_tool(tool_name, args)  # places are given back
            assert not r.is_error, _text(r)

    asyncio.run(main())


def test_max_pending_calls_is_configurable() -> None:
    from sandbash.agent.mcp_server import ServerConfig, config_from_args

    cfg = config_from_args(["--max-pending-calls", "5"], lambda p: "", {})
    assert cfg.max_pending_calls == 5
    assert ServerConfig.from_toml("[sandbox]\nmax_pending_calls = 7\n").max_pending_calls == 7
    assert ServerConfig().max_pending_calls == 64
    with pytest.raises(ValueError, match="max_pending_calls"):
        config_from_args(["--max-pending-calls", "0"], lambda p: "", {})


# Fell and fixed: the fields of one large expansion ("${a[@]}", `$(seq N)`, an unquoted $list)
# were built before anything was charged: `a=($(seq 1000000))` peaked at 310 MB resident under
# max_memory 256 MiB, `y=("${a[@]}")` at 354-470 MB. Each shape below now charges its transient
# fields while it makes them; what is charged must track what Python really allocates.
FIELD_SHAPES = [
    'y=("${a[@]}")',
    "y=(${a[@]})",
    'y=("x${a[@]}")',
    'set -- "${a[@]}"',
    "set -- ${a[@]}",
    'for v in "${a[@]}"; do :; done',
    "for v in $x; do :; done",
    "b=($x)",
    "set -- $x",
    "b=($(seq 50000))",
    'printf "%s\\n" "${a[@]}" >/dev/null',
]


@pytest.mark.parametrize("shape", FIELD_SHAPES)
def test_transient_fields_are_charged(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import tracemalloc

    from sandbash import Bash
    from sandbash import limits as limits_mod

    session = Bash().session()
    session.exec("a=($(seq 50000)); x=$(seq 50000)")
    peak = [0]
    charge = limits_mod.Budget.charge_memory

    def charge_and_note(budget: limits_mod.Budget, n: int) -> None:
        charge(budget, n)
        peak[0] = max(peak[0], budget.memory)

    monkeypatch.setattr(limits_mod.Budget, "charge_memory", charge_and_note)
    session.exec(":")  # the held variables, as every run starts
    held = peak[0]
    peak[0] = 0
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        r = session.exec(shape)
        traced = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert r.exit_code == 0, r
    charged = peak[0] - held
    assert charged >= 0.6 * traced, (charged, traced)


def _box(tmp_path: Path, script: str) -> tuple[str, str, int]:
    from sandbash.box.config import parse_config
    from sandbash.box.runner import BoxRunner

    for d in ("home", "ws"):
        (tmp_path / d).mkdir(exist_ok=True)
    toml = f"""
[agent]
home = "{tmp_path}/home"
workspace = "{tmp_path}/ws"
[policy]
commands = {{ deny = ["/usr/bin/cat"] }}
[tool.git]
command = ["git"]
[tool.hostcat]
command = ["/usr/bin/cat"]
"""
    cfg = parse_config(toml, (str(tmp_path / "box.toml"), str(tmp_path / "box.sock")))
    out: list[bytes] = []
    err: list[bytes] = []
    status = BoxRunner(cfg).run(script, out.append, err.append)
    return b"".join(out).decode(), b"".join(err).decode(), status


def _host_git() -> str:
    from sandbash.box.spawn import resolve_program

    if resolve_program("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    git = resolve_program("git")
    if git is None:
        pytest.skip("git is not installed")
    return git


@pytest.mark.parametrize(
    "script",
    [
        "exec git --version; echo after",
        "exec -a other git --version",
        "trap 'echo bye' EXIT; exec git --version",
        "(exec git --version); echo sub=$?",
        "GIT --version",  # (the host path, filled in below)
        "exec GIT --version",
        "cd /; GIT --version",
    ],
)
def test_box_exec_and_paths_reach_the_tables(tmp_path: Path, script: str) -> None:
    git = _host_git()
    out, err, status = _box(tmp_path, script.replace("GIT", git))
    version = out.splitlines()[0] if out else ""
    assert (version.startswith("git version "), err, status) == (True, "", 0), (out, err)
    assert "after" not in out and "bye" not in out
    if "sub=" in script:
        assert out.endswith("sub=0\n")


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # a refused table program stays refused however it is reached
        (
            "exec hostcat /etc/hostname",
            (
                "",
                "bash: line 1: hostcat: effect denied: policy denied this operation on '/usr/bin/cat' "
                "[policy: commands.deny]\n",
                126,
            ),
        ),
        (
            "exec no-such-program-xyz; echo $?",
            ("", "bash: line 1: exec: no-such-program-xyz: not found\n", 127),
        ),
        # a host path no table runs is not found, as a path the host lacks: no existence oracle
        ("PY -c 1; echo $?", ("127\n", "bash: line 1: PY: No such file or directory\n", 0)),
        ("/no/such/prog; echo $?", ("127\n", "bash: line 1: /no/such/prog: No such file or directory\n", 0)),
        ("/etc/passwd; echo $?", ("127\n", "bash: line 1: /etc/passwd: No such file or directory\n", 0)),
    ],
)
def test_box_exec_and_paths_refuse_what_no_table_runs(
    tmp_path: Path, script: str, expected: tuple[str, str, int]
) -> None:
    _host_git()
    python = str(Path(sys.executable).resolve())
    out, err, status = _box(tmp_path, script.replace("PY", python))
    assert (out, err, status) == tuple(x.replace("PY", python) if isinstance(x, str) else x for x in expected)
