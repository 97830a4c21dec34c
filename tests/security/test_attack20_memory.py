"""Attack round 20 on what a Session keeps between runs (T-TEN-7).

Fell and fixed: `max_session_memory` was checked only when a run ended normally. A run that ended
on any other limit (or was cancelled) kept everything it had made, so a client ending each call
on a limit kept up to `max_memory` (not `max_session_memory`) between calls, in every session of
a BashTool or MCP server. Now a session over the limit starts over however its run ended (the
run's own limit is still what it reports).
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify_bomb

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


# Fell and fixed: aliases, `complete` specifications and hash-table entries were charged to
# nothing. One run made 414 MB of completion specs (173 MB of aliases, 154 MB of hash entries)
# under a 256 MB max_memory before its 30 s timeout; a Session kept them between calls without
# end (+40 MB a call, never counted towards max_session_memory). The tables are now charged to the
# shell's account as functions are, and a subshell's copy of them (functions too) to the
# subshell's: 100 pipeline stages over 60,000 functions held 307 MB under a 256 MB max_memory.
# (each entry ~2 KB, so the 24 MB cap is ~12,000 entries away: reached in seconds on a loaded CI
# core, where 140,000 entries of a short value came near the 30 s timeout)
LONG = "printf -v v '%2000s' x; v=${v// /y}; "
TABLE_FILLS = {
    "complete": LONG + 'for ((i=0;;i++)); do complete -W "alpha $v gamma" c$i; done',
    "complete-many-names": "while :; do complete -o default -W x $(seq $RANDOM $((RANDOM + 3000))); done",
    "alias": LONG + "for ((i=0;;i++)); do alias a$i=$v; done",
    "BASH_ALIASES": LONG + "for ((i=0;;i++)); do BASH_ALIASES[a$i]=$v; done",
    "hash": LONG + "for ((i=0;;i++)); do hash -p /usr/bin/$v h$i; done",
    "BASH_CMDS": LONG + "for ((i=0;;i++)); do BASH_CMDS[h$i]=/usr/bin/$v; done",
    "aliases-copied-by-stages": "for ((i=0;i<60000;i++)); do alias a$i=x; done; "
    "while :; do sleep 1 | sleep 1 | sleep 1 | sleep 1 | sleep 1 | sleep 1 | sleep 1 | sleep 1; done",
    # (functions were charged as defined, but not a subshell's copy of the table)
    "functions-copied-by-stages": 'for ((i=0;i<8000;i++)); do eval "f$i() { :; }"; done; '
    "while :; do " + " | ".join(["sleep 1"] * 40) + "; done",
}
TABLE_BOMBS = [
    param(
        f"table-{name}",
        script,
        timeout=30,
        profile="default",
        overrides={"max_memory": 24 << 20},
        expect=("max_memory",),
    )
    for name, script in TABLE_FILLS.items()
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_shell_tables_are_charged_to_max_memory")


@pytest.mark.parametrize("case", TABLE_BOMBS)
def test_shell_tables_are_charged_to_max_memory(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])


# each call adds about 1 MB of table text; the session's cap is 2 MB
TABLE_GROWTH = {
    "complete": 'complete -W "$s" c$RANDOM$RANDOM',
    "alias": 'alias a$RANDOM$RANDOM="$s"',
    "hash": 'hash -p "/$s" h$RANDOM$RANDOM',
}


@pytest.mark.parametrize("kind", TABLE_GROWTH)
def test_shell_tables_count_towards_max_session_memory(kind: str) -> None:
    session = Bash(limits=Limits(max_session_memory=2 << 20)).session()
    fill = "printf -v s '%1000000s' x; " + TABLE_GROWTH[kind] + "; unset s"
    with pytest.raises(ExecutionLimitError) as e:
        for _ in range(5):
            session.exec(fill)
    assert e.value.limit == "max_session_memory"
    assert session.shell.state.vars.held() <= 2 << 20


def test_tables_give_their_charge_back() -> None:
    # defining, redefining and removing entries leaves the account where it started
    session = Bash().session()
    session.exec(":")
    before = session.shell.state.vars.held()
    r = session.exec(
        "printf -v s '%100000s' x; for i in 1 2 3; do alias a$i=$s; alias a$i=y$s; complete -W $s c$i; "
        "complete -W y c$i; hash -p /$s h$i; BASH_CMDS[h$i]=/x; BASH_ALIASES[a$i]=z; done; "
        "unalias a1; unalias -a; complete -r c1; complete -r; hash -d h1; hash -r; unset s; "
        "(alias q=1; complete -W x q; hash -p /x q); alias; complete; hash -l"
    )
    assert r.exit_code == 0, r.stderr
    assert session.shell.state.vars.held() - before < 4096  # (the loop's `i`), not the tables' ~1 MB
