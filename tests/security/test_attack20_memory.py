"""Attack round 20 on what a Session keeps between runs.

Fell and fixed: `max_session_memory` was checked only when a run ended normally. A run that ended
on any other limit (or was cancelled) kept everything it had made, so a client ending each call
on a limit kept up to `max_memory` (not `max_session_memory`) between calls, in every session of
a BashTool or MCP server. Now a session over the limit starts over however its run ended (the
run's own limit is still what it reports).
"""

from __future__ import annotations

from typing import Any

import pytest

from sandbash import Bash, CancelToken, ExecutionCancelled, ExecutionLimitError, Limits
from sandbash.custom import command

CAP = 1 << 20
FILL = 'printf -v big \'%3000000s\' x; a=("$big" "$big"); f() { :; }; '

# (how the run ends, the script after FILL, the limit it reports)
ENDINGS = [
    ("command count", "while :; do :; done", "max_command_count"),
    ("loop iterations", "for ((;;)); do x=; done", "max_loop_iterations"),
    ("output", "while :; do echo xxxxxxxxxxxxxxxx; done", "max_output_size"),
    ("call depth", "r() { r; }; r", "max_call_depth"),
    ("timeout", "sleep 30", "timeout"),
    ("expansion", 'while :; do y="$big$big"; done', "max_expansion_bytes"),
]


def _bash(**kw: Any) -> Bash:
    return Bash(
        **kw,
        limits=Limits(
            max_session_memory=CAP,
            max_command_count=40_000,
            max_loop_iterations=20_000,
            max_output_size=100_000,
            max_call_depth=50,
            max_expansion_bytes=40_000_000,
            timeout=3.0,
        ),
    )


@pytest.mark.parametrize(("name", "script", "limit"), ENDINGS, ids=[e[0] for e in ENDINGS])
def test_a_run_ended_by_a_limit_keeps_no_more_than_max_session_memory(
    name: str, script: str, limit: str
) -> None:
    session = _bash().session()
    session.exec("mkdir -p /tmp/here; cd /tmp/here; kept=1")
    with pytest.raises(ExecutionLimitError) as e:
        session.exec(FILL + script)
    assert e.value.limit == limit  # the run reports its own limit
    assert session.shell.state.vars.held() <= CAP
    r = session.exec('echo "${#big} ${#a[@]} ${kept-gone} $PWD"; declare -F f')
    assert r.stdout == "0 0 gone /tmp/here\n", r.stdout  # a fresh shell, in the same directory


def test_a_cancelled_run_keeps_no_more_than_max_session_memory() -> None:
    token = CancelToken()

    @command("cancel-me")
    def cancel_me(args: list[str], ctx: Any) -> int:
        token.cancel()
        return 0

    session = _bash(commands=[cancel_me]).session()
    with pytest.raises(ExecutionCancelled):
        session.exec(FILL + "cancel-me; sleep 5", cancel=token)
    assert session.shell.state.vars.held() <= CAP
    assert session.exec('echo "${#big}"').stdout == "0\n"


def test_a_run_under_the_cap_keeps_its_state_after_a_limit() -> None:
    session = _bash().session()
    with pytest.raises(ExecutionLimitError):
        session.exec("small=abc; while :; do :; done")
    assert session.exec("echo $small").stdout == "abc\n"
