"""WorkerPool: calls in worker processes with an address-space limit, killed past their time limit."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash
from sandbash.agent.tool import BashTool, ToolInputError
from sandbash.agent.workers import WorkerPool


def _spin(args: list[str], ctx: Any) -> int:
    while True:  # a custom command that never reaches a checkpoint: only a kill stops it
        pass


def _hog(args: list[str], ctx: Any) -> str:
    return str(len(bytearray(3 << 30)))  # past the worker's address space


def make_tool(db: str) -> BashTool:
    from sandbash.custom import Effects, command

    spin = command("spin", effects=Effects.NONE)(_spin)
    hog = command("hog", effects=Effects.NONE)(_hog)
    return BashTool(Bash(commands=[spin, hog], limits={"timeout": 1}), store=f"sqlite://{db}")


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Any:
    db = str(tmp_path_factory.mktemp("workers") / "s.db")
    with WorkerPool(functools.partial(make_tool, db), workers=2, memory=1 << 30, grace=1.0) as p:
        yield p


def test_calls_and_sessions_go_through_workers(pool: WorkerPool) -> None:
    assert pool.run({"command": "echo hi"}).stdout == "hi\n"
    pool.run({"command": "x=5; cd /tmp", "session_id": "s"})
    for _ in range(3):  # whichever worker answers, the session is the store's
        out = pool.run({"command": "echo $x $PWD; x=$((x+1))", "session_id": "s"})
        assert out.exit_code == 0
    assert pool.run({"command": "echo $x", "session_id": "s"}).stdout == "8\n"


def test_a_call_past_its_time_limit_loses_its_worker(pool: WorkerPool) -> None:
    out = pool.run({"command": "spin"})
    assert out.limit == "timeout" and out.exit_code == 124 and "worker was stopped" in out.stderr
    assert pool.run({"command": "echo alive"}).stdout == "alive\n"  # a new worker took its place


def test_memory_past_the_address_space_is_refused(pool: WorkerPool) -> None:
    out = pool.run({"command": "hog"})
    assert out.exit_code != 0 and "3221225472" not in out.stdout
    assert pool.run({"command": "echo still"}).stdout == "still\n"


def test_bad_input_is_the_tool_contracts_error(pool: WorkerPool) -> None:
    with pytest.raises(ToolInputError, match="unknown property"):
        pool.run({"command": "true", "cwd": "/"})


def test_a_pool_needs_a_store(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="session store"):
        WorkerPool(BashTool, workers=1)
