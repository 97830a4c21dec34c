"""bash's own options on sandbash's command line (`sandbash -euo pipefail script.sh`), through the installed
entry point and compared with /bin/bash on harmless scripts; mixed with sandbash's options; the API's options=."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

import pytest

from oracle import run as oracle_run
from sandbash import Bash
from sandbash.cli.app import _VALUE_OPTIONS, _parser, split_args

SANDBASH = str(pathlib.Path(sys.executable).parent / "sandbash")
needs_cli = pytest.mark.skipif(
    not os.path.exists(SANDBASH), reason="the sandbash entry point is not installed"
)
needs_bash = pytest.mark.skipif(not os.path.exists("/bin/bash"), reason="needs /bin/bash as the oracle")

SCRIPT = 'echo start\nfalse | true\necho "pipe $?"\necho "u=$u"\nfalse\necho end\n'


def run(args: list[str], cwd: pathlib.Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([SANDBASH, *args], input=stdin, capture_output=True, timeout=120, cwd=cwd)


def oracle(args: list[str], cwd: pathlib.Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return oracle_run(
        ["bash", *args],
        executable="/bin/bash",
        input=stdin,
        capture_output=True,
        timeout=60,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
    )


@needs_cli
@needs_bash
@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["-e", "-c", "false; echo no"], b""),
        (["-ec", "false; echo no"], b""),
        (["-c", "-e", "echo $-"], b""),
        (["-e", "s.sh"], b""),
        (["-u", "s.sh"], b""),
        (["-euo", "pipefail", "s.sh"], b""),
        (["-o", "pipefail", "s.sh"], b""),
        (["-o", "pipefail", "+o", "pipefail", "s.sh"], b""),
        (["-eu", "+e", "s.sh", "one"], b""),
        (["-x", "-c", "echo hi; f() { echo in f; }; f"], b""),
        (["-v", "-c", "echo hi"], b""),
        (["-n", "-c", "echo hi"], b""),
        (["-f", "-c", "touch a.x; echo *.x"], b""),
        (["-C", "-c", "echo a > f; echo b > f; cat f"], b""),
        (["+h", "-c", "echo $-"], b""),
        (["-euxo", "pipefail", "-c", "echo $-"], b""),
        (["-O", "extglob", "-c", "shopt extglob; [[ a == @(a|b) ]] && echo matched"], b""),
        (["+O", "globskipdots", "-c", "shopt globskipdots"], b""),
        (["--norc", "--noprofile", "-c", "echo $-"], b""),
        (["--posix", "-c", "shopt -o posix"], b""),
        (["-c", "echo $0 $-", "-e"], b""),
        (["-c", "echo $0 $1", "--", "--limit"], b""),
        (["-", "s.sh"], b""),
        (["--", "s.sh", "-x"], b""),
        (["-s", "a", "b"], b"echo $1 $2 $-\n"),
        (["-es", "a"], b"false\necho no\n"),
        (["-x"], b"echo from stdin\n"),
    ],
)
def test_bash_options_as_bash_reads_them(tmp_path: pathlib.Path, args: list[str], stdin: bytes) -> None:
    (tmp_path / "s.sh").write_text(SCRIPT)
    expected = oracle(args, tmp_path, stdin)
    got = run(["--cwd", "/tmp", *args] if "s.sh" not in args else args, tmp_path, stdin)
    assert (got.stdout, got.stderr, got.returncode) == (expected.stdout, expected.stderr, expected.returncode)


@needs_cli
@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (["-o", "nosuch", "-c", "echo ran"], b"sandbash: nosuch: invalid option name\n"),
        (["-O", "nosuch", "-c", "echo ran"], b"sandbash: nosuch: invalid shell option name\n"),
        (["-eZ", "-c", "echo ran"], b"sandbash: -Z: invalid option (sandbash --help lists the options)\n"),
        (["+c", "echo ran"], b"sandbash: +c: invalid option (sandbash --help lists the options)\n"),
        (["-e", "-o"], b"sandbash: -o: option requires an argument\n"),
        (["-e", "-c"], b"sandbash: -c: option requires an argument\n"),
        (["-x", "-c", "--"], b"sandbash: -c: option requires an argument\n"),
    ],
)
def test_bad_bash_options_are_one_line_with_status_2(
    tmp_path: pathlib.Path, args: list[str], stderr: bytes
) -> None:
    p = run(args, tmp_path)
    assert (p.stdout, p.stderr, p.returncode) == (b"", stderr, 2)


@needs_cli
@pytest.mark.parametrize(
    ("args", "stdout", "status"),
    [
        (["-e", "--limit", "timeout=30", "-c", "false; echo no"], b"", 1),
        (
            ["--timeout", "30", "-o", "pipefail", "--cwd", "/tmp", "-c", "false | true; echo $? $PWD"],
            b"1 /tmp\n",
            0,
        ),
        (["-u", "--limits=generous", "-c", "echo ${x-unset}"], b"unset\n", 0),
    ],
)
def test_bash_options_mix_with_sandbashs_own(
    tmp_path: pathlib.Path, args: list[str], stdout: bytes, status: int
) -> None:
    p = run(args, tmp_path)
    assert (p.stdout, p.returncode) == (stdout, status)


@needs_cli
def test_bash_options_apply_to_json_runs(tmp_path: pathlib.Path) -> None:
    p = run(["-e", "--json", "-c", "echo a; false; echo no"], tmp_path)
    assert p.returncode == 1
    assert json.loads(p.stdout)["stdout"] == "a\n"


def test_split_args_knows_every_option_that_takes_a_value() -> None:
    takes_value = {
        s
        for a in _parser()._actions
        if a.nargs is None and not isinstance(a, _FLAG_ACTIONS)
        for s in a.option_strings
        if s.startswith("--")
    }
    assert takes_value == _VALUE_OPTIONS
    for name in sorted(_VALUE_OPTIONS):
        split = split_args([name, "-e", "-e", "x"])  # the value is taken even when it looks like an option
        assert split.ours == [name, "-e"] and split.options == {"errexit": True} and split.operands == ["x"]


_FLAG_ACTIONS = (argparse._StoreTrueAction, argparse._VersionAction, argparse._HelpAction)


def test_exec_options_set_shell_options_for_that_run() -> None:
    bash = Bash()
    r = bash.exec(
        "false | true; echo $?; [[ x == @(x|y) ]] && echo matched",  # extglob is on when it parses
        options={"pipefail": True, "extglob": True},
    )
    assert r.stdout == "1\nmatched\n"
    assert bash.exec("false | true; echo $?").stdout == "0\n"  # the next run starts from the defaults
    assert bash.exec("echo $-", options={"errexit": True, "hashall": False}).stdout == "eBc\n"
    with pytest.raises(ValueError, match="unknown shell option 'errexitt'"):
        bash.exec("true", options={"errexitt": True})
