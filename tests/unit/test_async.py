"""The asyncio API: aexec, cancellation, timeouts, streaming output."""

from __future__ import annotations

import asyncio
import time

import pytest

from sandbash import Bash, ExecutionLimitError, Limits
from sandbash.agent.tool import BashTool
from sandbash.aio import OutputChunk

# loops that only a deadline or a cancellation can stop
ENDLESS = Limits(max_loop_iterations=10**9, max_command_count=10**9, timeout=60)


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_aexec_returns_the_result() -> None:
    async def main() -> None:
        r = await Bash().aexec("echo hi; echo err >&2; exit 5", env={"X": "1"})
        assert (r.stdout, r.stderr, r.exit_code) == ("hi\n", "err\n", 5)

    run(main())


def test_aexec_does_not_block_the_loop() -> None:
    async def main() -> None:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.02)
                ticks += 1

        t = asyncio.create_task(ticker())
        await Bash().aexec("sleep 0.4")
        t.cancel()
        assert ticks >= 5

    run(main())


@pytest.mark.parametrize("script", ["while :; do :; done", "sleep 30"])
def test_asyncio_timeout_cancels_the_run(script: str) -> None:
    async def main() -> None:
        bash = Bash(limits=ENDLESS)
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(bash.aexec(script), 0.3)
        assert time.monotonic() - started < 3
        # the sandbox is still usable afterwards
        assert (await bash.aexec("echo after")).stdout == "after\n"

    run(main())


def test_task_cancel_stops_a_session_run_and_the_session_goes_on() -> None:
    async def main() -> None:
        session = Bash(limits=ENDLESS).session()
        await session.aexec("cd /tmp; n=1")
        task = asyncio.create_task(session.aexec("while :; do n=$((n+1)); done"))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        r = await session.aexec("echo $PWD; [ $n -gt 1 ] && echo counted")
        assert r.stdout == "/tmp\ncounted\n"

    run(main())


def test_timeout_keyword_is_the_runs_own_limit() -> None:
    async def main() -> None:
        with pytest.raises(ExecutionLimitError) as info:
            await Bash(limits=ENDLESS).aexec("echo part; while :; do :; done", timeout=0.2)
        assert info.value.limit == "timeout" and info.value.result.stdout == "part\n"

    run(main())


def test_callbacks_receive_output_while_running() -> None:
    async def main() -> None:
        seen: list[tuple[float, bytes]] = []
        start = time.monotonic()
        await Bash().aexec(
            "echo a; sleep 0.3; echo b", on_stdout=lambda d: seen.append((time.monotonic() - start, d))
        )
        assert [d for _, d in seen] == [b"a\n", b"b\n"]
        assert seen[1][0] - seen[0][0] > 0.2

    run(main())


def test_astream_yields_chunks_as_they_are_written() -> None:
    async def main() -> None:
        bash = Bash()
        arrivals: list[tuple[float, OutputChunk]] = []
        start = time.monotonic()
        async with bash.astream(
            "for i in 1 2 3; do echo $i; echo e$i >&2; sleep 0.15; done; exit 3"
        ) as stream:
            async for chunk in stream:
                arrivals.append((time.monotonic() - start, chunk))
        chunks = [c for _, c in arrivals]
        assert [c.text for c in chunks if c.stream == "stdout"] == ["1\n", "2\n", "3\n"]
        assert [c.text for c in chunks if c.stream == "stderr"] == ["e1\n", "e2\n", "e3\n"]
        assert arrivals[0][0] < 0.25  # the first chunk came before the script ended
        assert stream.result is not None and stream.result.exit_code == 3
        assert stream.result.stdout == "1\n2\n3\n"

    run(main())


def test_leaving_a_stream_early_cancels_the_run() -> None:
    async def main() -> None:
        session = Bash(limits=ENDLESS).session()
        started = time.monotonic()
        async with session.astream("while :; do echo y; done") as stream:
            async for chunk in stream:
                assert chunk.data.startswith(b"y")
                break
        assert time.monotonic() - started < 5
        assert (await session.aexec("echo next")).stdout == "next\n"

    run(main())


def test_astream_wait_and_errors() -> None:
    async def main() -> None:
        r = await Bash().astream("echo x").wait()
        assert r.stdout == "x\n"
        stream = Bash(limits=ENDLESS).astream("while :; do :; done", timeout=0.2)
        with pytest.raises(ExecutionLimitError):
            await stream.wait()

    run(main())


def test_tool_arun_and_its_cancellation() -> None:
    async def main() -> None:
        tool = BashTool(limits=ENDLESS)
        out = await tool.arun({"command": "echo a", "session_id": "s"})
        assert out.stdout == "a\n"
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(tool.arun({"command": "while :; do :; done", "session_id": "s"}), 0.2)
        assert (await tool.arun({"command": "echo b", "session_id": "s"})).stdout == "b\n"

    run(main())
