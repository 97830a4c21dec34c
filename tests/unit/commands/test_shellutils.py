"""seq, yes, sleep, env, printenv, which, identity, terminal queries, nice, nohup, timeout, time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from realtools import REAL_ENV, have, real_command
from sandbash.api import Bash
from sandbash.errors import ExecutionLimitError
from sandbash.limits import LimitExceeded, Limits
from sandbash.testing import run_command
from unit.commands.viashell import run_via_shell

ENV = dict(REAL_ENV)
# commands that start programs need the interpreter (ctx.find_program, ctx.run)
RUNNERS = {"env", "nice", "nohup", "timeout", "time", "which"}


def same_as_real(argv: list[str], stdin: bytes = b"") -> None:
    ours = (run_via_shell if argv[0] in RUNNERS else run_command)(argv, stdin=stdin, env=ENV)
    out, err, status = real_command(argv, stdin)
    assert (ours.stdout, ours.stderr.decode(), ours.status) == (out, err.decode(), status)


SEQ_CASES = [
    "3",
    "-w 1 0.5 10",
    "1e2 1e2",
    "-w 1e1 12",
    "0.1 0.1 0.3",
    "-s, 5",
    "-f %.3f 1 3",
    "-5 -1",
    "10 -3 1",
    "1 0 2",
    "-f %d 1",
    "-w -10 10",
    "-w -.5 1.5",
    "-w 0.5 0.1 3",
    "1. 1 3",
    "-w 1.5e1 10",
    "-w 1e-1 .1 1",
    "0x1 0x3",
    "1 nan",
    "a",
    "1 2 3 4",
    "-f %%%g 1 3",
    "-f x% 3",
    "-f %g%g 3",
    "-f ab 3",
    "-w -f %g 3",
    "1000000000000000000000 1000000000000000000003",
    "0.0000001 0.0000001 0.0000003",
    "-w 99 101",
    "-w 5e-3 1e-2 1.5e-2",
    "-f %e 1",
    "-f %08.2f -1",
    "-w 1 1e1",
    "1 0.3 2",
    "-w 1 .03 1.1",
    "5 1",
    "-- -3 -1",
    "1.5 3",
    "-f %.2e 1 2e3 5000",
    "",
    "--x",
    "0 0.1 1",
    # integer operands read as ints (no decimal module) among decimal ones, formats and widths
    "2 5",
    "1 5.0",
    "1.0 3",
    "007 9",
    "+3 5",
    "1 1 5.5",
    "1 -0 5",
    "-f %g -0 -1 -2",
    "-f %03.1f 1 3",
    "-w 8 10",
    "-w 1 0.5 3",
    "99999999999999999999999 2 100000000000000000000003",
]


@pytest.mark.skipif(not have("seq"), reason="seq not installed")
@pytest.mark.parametrize("args", SEQ_CASES)
def test_seq_matches_gnu(args: str) -> None:
    same_as_real(["seq", *args.split()])


def test_seq_of_integers_imports_only_its_own_module() -> None:
    # `for k in $(seq N)` is common: it imports neither decimal, datetime, printf's formatter nor
    # the other shell utilities' modules (each a millisecond or so of a script's first run)
    code = (
        "import sys; from sandbash import Bash; before = set(sys.modules);"
        " r = Bash().exec('for k in $(seq 3); do :; done; seq -s, 2 4; x=$(seq -w 8 10)');"
        " print(r.stdout.strip(), sorted(m for m in set(sys.modules) - before if 'shellutils' in m or"
        " m in ('decimal', 'datetime', 'sandbash.posix.printf', 'sandbash.commands.fsutil')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == (
        "2,3,4 ['sandbash.commands.shellutils', 'sandbash.commands.shellutils.common',"
        " 'sandbash.commands.shellutils.seq']\n"
    )


def test_seq_huge_range_hits_the_limit() -> None:
    with pytest.raises(LimitExceeded):
        run_command(["seq", "1", "1e12"], limits=Limits(max_work=100_000))


@pytest.mark.parametrize("fmt", ["%499999999f", "%.499999999f", "%-0499999999.1e", "%" + "9" * 5000 + "g"])
def test_seq_huge_format_width_hits_the_string_limit_first(fmt: str) -> None:
    started = time.monotonic()
    with pytest.raises(LimitExceeded) as info:
        run_command(["seq", "-f", fmt, "1", "1"], limits=Limits(max_string_length=1 << 20))
    assert info.value.limit == "max_string_length"
    assert time.monotonic() - started < 0.5  # refused before the string is built


def test_seq_format_width_under_the_limit_is_kept() -> None:
    r = run_command(["seq", "-f", "%6000.1f", "1", "2"], limits=Limits(max_string_length=6000))
    assert (r.stdout, r.status) == (b" " * 5997 + b"1.0\n" + b" " * 5997 + b"2.0\n", 0)


def test_yes_stops_at_the_limit() -> None:
    with pytest.raises(LimitExceeded):
        run_command(["yes"], limits=Limits(max_work=50_000))


MISC_CASES = [
    ["sleep", "x"],
    ["sleep"],
    ["sleep", "0.01", "0.01s"],
    ["sleep", "1x"],
    ["sleep", "-1"],
    ["env", "-u"],
    ["env", "-i", "A=1", "B=2"],
    ["env", "-0", "-i", "A=1"],
    ["env", "-i", "-u", "A=b"],
    ["env", "-u", "A=b"],
    ["env", "-C", "/"],
    ["env", "nope"],
    ["env", "-C", "nodir", "seq", "1"],
    ["env", "-i", "-0", "A=1", "seq", "1"],
    ["env", "-i", "A=1", "printenv", "A"],
    ["env", "-i", "-S", 'A=1 B="x y"'],
    ["printenv", "-0", "NOPE"],
    ["printenv", "HOME", "NOPE", "TZ"],
    ["printenv", "-0", "HOME"],
    ["timeout", "0.2", "sleep", "1"],
    ["timeout", "--preserve-status", "0.2", "sleep", "1"],
    ["timeout", "-s", "FOO", "1", "seq", "1"],
    ["timeout", "1", "nope"],
    ["timeout"],
    ["timeout", "x", "seq", "1"],
    ["timeout", "1", "seq", "2"],
    ["nice", "-n", "x", "seq", "1"],
    ["nice", "-n", "5"],
    ["nice"],
    ["nice", "-n", "3", "nope"],
    ["nice", "-n", "3", "seq", "2"],
    ["nice", "-5", "seq", "1"],
    ["nohup"],
    ["nohup", "nope"],
    ["yes", "--x"],
    ["seq", "--x"],
    ["tty"],
    ["tty", "-s"],
    ["tty", "x"],
    ["uname", "x"],
    ["whoami", "x"],
    ["arch", "x"],
    ["id", "-u", "-g"],
    ["id", "-n"],
    ["id", "nope"],
    ["groups", "nope"],
    ["getconf", "PAGESIZE"],
    ["getconf", "FOO"],
    ["getconf", "NAME_MAX", "/"],
    ["nproc", "x"],
    ["stty"],
]


@pytest.mark.parametrize("argv", MISC_CASES, ids=" ".join)
def test_matches_gnu(argv: list[str]) -> None:
    if not have(argv[0]):
        pytest.skip(f"{argv[0]} not installed")
    if argv[0] == "nice" and os.nice(0) != 0:
        # the sandbox's processes run at niceness 0; the real nice prints the niceness pytest inherited
        pytest.skip("the test process itself runs niced")
    same_as_real(argv)


@pytest.mark.parametrize(
    "argv, out, status",
    [
        (["id"], "uid=1000(user) gid=1000(user) groups=1000(user)\n", 0),
        (["id", "-u"], "1000\n", 0),
        (["id", "-gn"], "user\n", 0),
        (["id", "-Gn", "root"], "root\n", 0),
        (["id", "root"], "uid=0(root) gid=0(root) groups=0(root)\n", 0),
        (["groups"], "user\n", 0),
        (["groups", "root", "user"], "root : root\nuser : user\n", 0),
        (["whoami"], "user\n", 0),
        (["logname"], "", 1),  # nobody is logged in (who, pinky, users agree)
        (["hostname"], "sandbox\n", 0),
        (["uname"], "Linux\n", 0),
        (["uname", "-snrm"], "Linux sandbox 6.1.0 x86_64\n", 0),
        (
            ["uname", "-a"],
            "Linux sandbox 6.1.0 #1 SMP PREEMPT_DYNAMIC Sun Jan  1 00:00:00 UTC 2023 x86_64 GNU/Linux\n",
            0,
        ),
        (["uname", "-p"], "unknown\n", 0),
        (["arch"], "x86_64\n", 0),
        (["nproc"], "1\n", 0),
        (["nproc", "--all"], "1\n", 0),
        (["tty"], "not a tty\n", 1),
        (["which", "seq", "nope"], "/usr/bin/seq\n", 1),
        (["which", "-a", "seq"], "/usr/bin/seq\n/bin/seq\n", 0),
        (["which"], "", 1),
        (["which", "-x"], "Usage: /usr/bin/which [-a] args\n", 2),  # (Debian's: the usage line on stdout)
        (["tput", "cols"], "80\n", 0),
        (["tput", "colors"], "8\n", 0),
        (["tput", "setaf", "1"], "\x1b[31m", 0),
        (["tput", "sgr0"], "\x1b(B\x1b[m", 0),
        (["tput", "cup", "5", "6"], "\x1b[6;7H", 0),
        (["tput", "-T", "xterm-256color", "setaf", "100"], "\x1b[38;5;100m", 0),
        (["tput", "-T", "dumb", "bold"], "", 1),
        (["tput", "foo"], "", 4),
        (["tput", "-T", "nope", "cols"], "", 3),
        (["clear"], "\x1b[H\x1b[2J\x1b[3J", 0),
        (["clear", "-x"], "\x1b[H\x1b[2J", 0),
        (["man", "ls"], "", 16),
        (["man"], "", 1),
        (["whatis", "ls"], "", 16),
        (["mesg"], "", 2),
        (["users"], "", 0),
    ],
)
def test_sandbox_answers(argv: list[str], out: str, status: int) -> None:
    run = run_via_shell if argv[0] in RUNNERS else run_command
    r = run(argv, env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "HOME": "/home/user"})
    assert (r.stdout.decode(), r.status) == (out, status)


def test_identity_override() -> None:
    from sandbash.identity import Identity

    alice = Identity(user="alice", uid=1001, gid=1001, group="staff", hostname="box")
    assert run_command(["whoami"], identity=alice).stdout == b"alice\n"
    assert (
        run_command(["id"], identity=alice).stdout == b"uid=1001(alice) gid=1001(staff) groups=1001(staff)\n"
    )
    assert run_command(["hostname"], identity=alice).stdout == b"box\n"
    assert run_command(["whoami"]).stdout == b"user\n"  # the default Identity()


def test_which_finds_scripts_on_the_virtual_path() -> None:
    env = {"PATH": "/opt/bin:/usr/bin:/sbin"}
    r = run_via_shell(["which", "tool"], files={"/opt/bin/tool": "#!/bin/sh\n", "/sbin/tool": ""}, env=env)
    assert r.status == 1  # not executable
    vfs = r.vfs
    vfs.view("/").chmod("/opt/bin/tool", 0o755)
    vfs.view("/").chmod("/sbin/tool", 0o755)
    r = run_via_shell(["which", "tool"], vfs=vfs, env=env)
    assert (r.stdout, r.status) == (b"/opt/bin/tool\n", 0)
    r = run_via_shell(["which", "-a", "tool", "seq", "/opt/bin/tool", "/opt/bin"], vfs=vfs, env=env)
    assert (r.stdout, r.status) == (b"/opt/bin/tool\n/sbin/tool\n/usr/bin/seq\n/opt/bin/tool\n", 1)
    r = run_via_shell(["/usr/bin/which", "seq"], vfs=vfs, env={"PATH": ""})
    assert (r.stdout, r.status) == (b"", 1)


def test_env_prints_and_runs() -> None:
    r = run_via_shell(["env", "-i", "A=1", "env"], env={"PATH": "/usr/bin"})
    assert r.stdout == b"A=1\n"
    r = run_command(["env", "-u", "PATH", "B=2"], env={"PATH": "/usr/bin", "C": "3"})
    assert r.stdout == b"C=3\nB=2\n"


def test_env_chdir_and_path() -> None:
    files = {"sub/x": "#!/bin/sh\necho here $PWD\n", "plain": ""}
    vfs = run_command(["chmod", "+x", "sub/x"], files=files).vfs
    for argv, out, err, status in [
        (["env", "-C", "sub", "./x"], "here /home/user/sub\n", "", 0),
        (["env", "-C", "sub", "pwd"], "/home/user/sub\n", "", 0),
        (["env", "-C", "/", "ls", "-d", "home"], "home\n", "", 0),
        (["env", "-C", "sub", "./nope"], "", "env: \u2018./nope\u2019: No such file or directory\n", 127),
        (
            ["env", "-C", "plain", "pwd"],
            "",
            "env: cannot change directory to 'plain': Not a directory\n",
            125,
        ),
        (["env", "-i", "PATH=sub", "x"], "here /home/user\n", "", 0),
        (["env", "./plain"], "", "env: \u2018./plain\u2019: Permission denied\n", 126),
        (["env", "-i", "seq", "2"], "1\n2\n", "", 0),
    ]:
        r = run_via_shell(argv, vfs=vfs)
        assert (r.stdout.decode(), r.stderr.decode(), r.status) == (out, err, status), argv


def test_env_with_another_path_words_a_missing_program_like_gnu() -> None:
    r = run_via_shell(["env", "-i", "foo"])
    assert (r.stderr, r.status) == ("env: \u2018foo\u2019: No such file or directory\n".encode(), 127)


def test_timeout_signals_and_statuses() -> None:
    r = run_via_shell(["timeout", "-s", "KILL", "0.1", "sleep", "5"])
    assert r.status == 137
    r = run_via_shell(["timeout", "-v", "0.1", "sleep", "5"])
    assert (r.status, r.stderr) == (
        124,
        "timeout: sending signal TERM to command \u2018sleep\u2019\n".encode(),
    )


def _sh(script: str, limits: Limits | str | None = None) -> tuple[str, float]:
    start = time.monotonic()
    r = Bash(limits=limits).exec(script)
    return r.stdout + r.stderr, time.monotonic() - start


@pytest.mark.parametrize(
    "script, expected",
    [
        ("timeout 0.2 sleep 5; echo s=$?; echo after", "s=124\nafter\n"),
        ("timeout --preserve-status 0.2 sleep 5; echo s=$?", "s=143\n"),
        ("timeout --preserve-status -s HUP 0.2 sleep 5; echo s=$?", "s=129\n"),
        # KILL ends timeout too: the shell reports its death (`bash: line 1: PID Killed  ...`)
        (
            "timeout -s KILL 0.2 sleep 5; echo s=$?",
            "bash: line 1: PID Killed timeout -s KILL 0.2 sleep 5\ns=137\n",
        ),
        ("timeout -k 1 0.2 sleep 5; echo s=$?", "s=124\n"),
        ("timeout --foreground 0.2 sleep 5; echo s=$?", "s=124\n"),
        ("timeout 0 sleep 0.1; echo s=$?", "s=0\n"),
        ("timeout 5 sh -c 'exit 3'; echo s=$?", "s=3\n"),
        ("timeout 5 timeout 0.2 sleep 5; echo s=$?", "s=124\n"),
        ("timeout 0.2 timeout 5 sleep 5; echo s=$?", "s=124\n"),
        (
            "timeout -s KILL 0.2 timeout 5 sleep 5; echo s=$?",
            "bash: line 1: PID Killed timeout -s KILL 0.2 timeout 5 sleep 5\ns=137\n",
        ),
        ("timeout --preserve-status 0.2 timeout -s INT 5 sleep 5; echo s=$?", "s=143\n"),
        ("timeout 0.2 bash -c 'sleep 5 | cat'; echo s=$?", "s=124\n"),
        ("timeout 0.2 sh -c 'yes | cat >/dev/null'; echo s=$?", "s=124\n"),
        ("timeout 1 yes | head -1; echo s=${PIPESTATUS[*]}", "y\ns=141 0\n"),
        ("for i in 1 2; do timeout 0.1 sleep 5; echo $?; done", "124\n124\n"),
        # the deadline passes through commands that run commands (their own sub-runs set none)
        ("echo x | timeout 0.2 xargs -I {} sh -c 'sleep 5; echo {}'; echo s=$?", "s=124\n"),
        ("timeout 0.2 find / -maxdepth 0 -exec sleep 5 \\; ; echo s=$?", "s=124\n"),
        ("timeout 0.2 env nice nohup stdbuf -o0 sleep 5; echo s=$?", "s=124\n"),
        ("timeout 0.2 time -p sleep 5 2>/dev/null; echo s=$?", "s=124\n"),
        ("timeout 5 timeout 0.2 xargs sleep <<< 5; echo s=$?", "s=124\n"),
        (
            "f() { sleep 5; }; timeout 0.2 f; echo s=$?",
            "timeout: failed to run command \u2018f\u2019: No such file or directory\ns=127\n",
        ),
    ],
)
def test_timeout_stops_the_command_not_the_run(script: str, expected: str) -> None:
    out, took = _sh(script)
    out = re.sub(r": +[0-9]+ Killed +", ": PID Killed ", out)  # (the pid bash shows is the run's own)
    assert "".join(sorted(out.splitlines(True))) == "".join(sorted(expected.splitlines(True)))
    assert took < 2


def test_timeout_stops_a_busy_loop() -> None:
    # the loop would hit max_command_count long before 0.3 s under the default limits
    out, took = _sh("timeout 0.3 sh -c 'while :; do :; done'; echo s=$?", "generous")
    assert out == "s=124\n" and 0.3 <= took < 2


def test_the_runs_own_deadline_still_ends_the_run() -> None:
    with pytest.raises(ExecutionLimitError):
        Bash(limits=Limits(timeout=0.3)).exec("timeout 5 sleep 3; echo not reached")


@pytest.mark.parametrize(
    "script", ["echo 5 | xargs sleep", "find / -maxdepth 0 -exec sleep 5 \\;", "env sleep 5"]
)
def test_the_runs_own_deadline_ends_the_run_through_a_command_that_runs_commands(script: str) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=Limits(timeout=0.3)).exec(f"{script}; echo not reached")
    assert (
        e.value.result is not None
        and e.value.result.stdout == ""
        and "internal error" not in e.value.result.stderr
    )


def test_timeout_stops_a_blocked_pipe_read() -> None:
    # cat gives up at 0.3 s; the pipeline still waits for sleep, as bash's does
    out, took = _sh("sleep 1 | timeout 0.3 cat; echo s=$?")
    assert out == "s=124\n" and took < 1.5
    out, took = _sh("{ sleep 1; echo late; } | { timeout 0.3 cat; echo c=$?; }; echo s=$?")
    assert out == "c=124\ns=0\n" and took < 1.5


def test_sleep_honours_the_run_deadline() -> None:
    start = time.monotonic()
    with pytest.raises(LimitExceeded):
        run_command(["sleep", "100"], limits=Limits(timeout=0.3))
    assert time.monotonic() - start < 2


def test_time_reports_on_stderr() -> None:
    # by its path: a bare `time` is bash's keyword
    r = run_via_shell(["/usr/bin/time", "-p", "seq", "2"])
    assert r.stdout == b"1\n2\n"
    assert r.stderr.decode().startswith("real ") and "\nuser " in r.stderr.decode()
    r = run_via_shell(["/usr/bin/time", "-f", "%x %C %Q", "printenv", "NOPE"])
    assert r.stderr == b"Command exited with non-zero status 1\n1 printenv NOPE ?Q\n"
    r = run_via_shell(["/usr/bin/time", "nope"])
    assert r.status == 127 and r.stderr.startswith(b"time: cannot run nope: No such file or directory\n")


def test_nohup_without_tty_runs_plainly() -> None:
    r = run_via_shell(["nohup", "seq", "2"])
    assert (r.stdout, r.stderr, r.status) == (b"1\n2\n", b"", 0)
