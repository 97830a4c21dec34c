"""less, more and watch as they behave when standard output is not a terminal."""

from __future__ import annotations

import re

import pytest

from sandbash.api import Bash
from sandbash.errors import ExecutionLimitError
from sandbash.limits import Limits

SETUP = "printf 'a\\nb\\n' > la; printf 'c\\n' > lb; mkdir -p dd; "

# (script, stdout, stderr, status), as less 590 / util-linux more 2.38 / procps watch 4.0.2 print them
PAGER_CASES = [
    ("printf 'a\\nb\\n' | less -N -S +G", "a\nb\n", "", 0),
    ("less la lb", "a\nb\nc\n", "", 0),
    ("less -- la", "a\nb\n", "", 0),
    # less's notices are written to its screen: stdout; the status stays 0
    ("less /nonexist la", "/nonexist: No such file or directory\na\nb\n", "", 0),
    ("less dd", "dd is a directory\n", "", 0),
    (
        "more la lb",
        "::::::::::::::\nla\n::::::::::::::\na\nb\n::::::::::::::\nlb\n::::::::::::::\nc\n",
        "",
        0,
    ),
    ("more la", "::::::::::::::\nla\n::::::::::::::\na\nb\n", "", 0),
    ("printf 'x\\n' | more", "x\n", "", 0),
    ("more < la", "a\nb\n", "", 0),
    ("more /nonexist", "", "more: cannot open /nonexist: No such file or directory\n", 0),
    ("more dd la", "\n*** dd: directory ***\n\n::::::::::::::\nla\n::::::::::::::\na\nb\n", "", 0),
    ("more -z la", "", "more: invalid option -- 'z'\nTry 'more --help' for more information.\n", 1),
]


@pytest.mark.parametrize(("script", "out", "err", "status"), PAGER_CASES)
def test_pagers_copy_their_input_off_a_terminal(script: str, out: str, err: str, status: int) -> None:
    r = Bash().exec(SETUP + script)
    assert (r.stdout, r.stderr, r.exit_code) == (out, err, status)


WATCH_CASES = [
    # -g: the output changed (a counter in a file the command bumps)
    (
        "watch -n 0.1 -t -g 'n=$(cat c 2>/dev/null || echo 0); echo $((n+1)) > c; cat c'; echo st=$?",
        "1\n2\nst=0\n",
    ),
    # -q N: the output stayed the same for N updates
    ("watch -n 0.1 -t -q 2 'echo same'; echo st=$?", "same\nsame\nsame\nst=0\n"),
    # -e: the command failed; no terminal to wait for a key on, so it exits with 8 at once
    (
        "watch -n 0.1 -t -e 'echo err; false'; echo st=$?",
        "err\ncommand exit with a non-zero status, press a key to exit\nst=8\n",
    ),
    # -x: the operands are the program and its arguments; stderr is part of the screen
    (
        "watch -t -x -e sh -c 'echo out; echo oops >&2; exit 3'; echo st=$?",
        "out\noops\ncommand exit with a non-zero status, press a key to exit\nst=8\n",
    ),
    # -b beeps when the command fails
    (
        "watch -t -b -e false | od -c | head -1",
        "0000000  \\a   c   o   m   m   a   n   d       e   x   i   t       w   i\n",
    ),
    # the options stop at the command: `-l` belongs to ls
    ("touch f; watch -t -q 1 -n 0.1 ls -l f | grep -c ' f$'", "2\n"),
    ("watch -n x true; echo st=$?", "st=1\n"),
    ("watch -v", "watch from procps-ng 4.0.2\n"),
]


@pytest.mark.parametrize(("script", "out"), WATCH_CASES)
def test_watch_runs_its_command_until_an_exit_condition(script: str, out: str) -> None:
    r = Bash().exec(script)
    assert r.stdout == out, r.stderr


def test_watch_usage_errors_print_procps_usage() -> None:
    r = Bash().exec("watch -z true")
    assert r.exit_code == 1
    assert r.stderr.startswith(
        "watch: invalid option -- 'z'\n\nUsage:\n watch [options] command\n\nOptions:\n"
    )
    r = Bash().exec("watch")
    assert (r.exit_code, r.stderr.splitlines()[:2]) == (1, ["", "Usage:"])
    assert Bash().exec("watch -n x true").stderr == "watch: failed to parse argument: 'x': Invalid argument\n"


def test_watch_title_names_the_interval_command_host_and_time() -> None:
    r = Bash(env={"TZ": "UTC", "COLUMNS": "60"}).exec("watch -n 1 -g 'date +%N' | head -1")
    line = r.stdout.rstrip("\n")
    # the right part ends at the last column, as on a COLUMNS-wide screen
    assert len(line) == 60, line
    assert re.fullmatch(r"Every 1\.0s: date \+%N +\S+: \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", line), line


def test_watch_ends_at_the_run_deadline_with_the_limit_named() -> None:
    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(timeout=1.0)).exec("watch -n 0.2 -t 'echo tick'")
    assert info.value.limit == "timeout"
    assert info.value.result.stdout.startswith("tick\n")


def test_watch_under_timeout_ends_with_124() -> None:
    r = Bash().exec("timeout 0.5 watch -n 0.1 -t 'echo tick' > /dev/null; echo st=$?")
    assert r.stdout == "st=124\n"


def test_watch_is_decided_on_what_it_runs() -> None:
    from sandbash.policy import Policy

    b = Bash(policy=Policy(deny=["rm"]))
    r = b.exec("touch x; watch -t -x -e rm x; echo st=$?; ls x")
    assert r.stdout.startswith("bash: line 1: rm: policy denied this command")
    assert r.stdout.endswith("st=8\nx\n")
    for script in ("watch -x rm x", "watch 'rm x'", "watch -n 1 -- rm -f x", 'watch "$cmd"'):
        assert b.check(script).status != "allowed", script
    assert b.check("watch -n 1 ls").status == "allowed"
