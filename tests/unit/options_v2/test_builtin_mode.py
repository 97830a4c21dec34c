"""The builtin mode of the one option parser, through the builtins that use it.

Each row runs in sandbash and, when /bin/bash is bash 5.2, in real bash: stdout+stderr (2>&1)
and the status must match byte for byte. bopts.parse_builtin is a thin layer over
commands/options.parse_args (a builtin-mode CommandSpec built from bash's letter string).
"""

from __future__ import annotations

import os
import subprocess
import tempfile

import pytest

import oracle
from sandbash import Bash
from sandbash.builtins.bopts import builtin_spec
from sandbash.commands.options import CommandSpec, Opt, UsageError, parse_args

SCRIPTS = [
    # invalid options and their usage lines
    "alias -Z",
    "alias -pZ x",
    "unalias -q",
    "declare -Z",
    "hash -x",
    "enable -Q",
    "wait -z",
    "jobs -y",
    "disown -q",
    "umask -x",
    "cd -x /",
    "pwd -Z",
    "compgen -Z",
    "complete -Z",
    "shopt -Z",
    "unset -x v",
    "type -z ls",
    "type -ax ls",
    "command -px ls",
    "command -x",
    "trap -z",
    "trap -lx",
    "export -z",
    "export -pz",
    "readonly -z",
    "readonly -pq",
    "ulimit -Z",
    # long words: bash sees the option letter '-'
    "export --foo",
    "type --foo ls",
    "trap --x",
    "readonly --zz",
    "command --x ls",
    # --help: the builtin's help, status 2
    "export --help | head -1",
    "trap --help | head -1",
    "type --help | head -1",
    "command --help | head -1",
    "readonly --help | head -1",
    # values: attached, next word, missing, numeric, optional (ulimit)
    "wait -p",
    "hash -p",
    "exec -a",
    "enable -f",
    "ulimit -c 5 -e; echo $?",
    "ulimit -n x",
    "compopt -o",
    "umask -S",
    "umask -p",
    # options end at the first operand, at --, at a lone -
    "type -- -t",
    "type -t -- ls",
    "type ls -t",
    "command -- true; echo $?",
    "export -- A=1; echo $A",
    "export - 2>&1; echo $?",
    "readonly -- y=1; echo $y",
    "alias -- x=y; alias -- x",
    # several letters and +x forms
    "type -at type",
    "type -tP ls",
    "type -Pt ls",
    "command -vV echo",
    "command -Vv echo",
    "trap -lp | head -1",
    "export -fn f",
    "f() { :; }; export -f f; export -fn f; declare -F | grep -c f",
    "readonly -a arr=(1 2); echo ${arr[1]}",
    "readonly -A h; declare -p h",
    "set +x; echo ok",
    "declare +x v=1; echo $v",
    "compopt +o nospace",
    # read and mapfile: values checked while parsing (status 1, no usage), letters bundle
    "read -n x v </dev/null",
    "read -t x v",
    "read -u x v",
    "read -Z",
    "read -n",
    "read -n 1 -Z v",
    "read -Z -n x",
    "read -n x -Z",
    "echo abc | { read -rn2 v; echo $v; }",
    "echo 'a:b' | { read -d: v; echo $v; }",
    "read -t -1 v",
    "read -N 2x v",
    "read -n 0x1 v",
    "read -n 010 v <<< abcdefghijkl; echo $v",
    "echo abcdef | { read -N 3 -n 2 v; echo $v; }",
    "read -n ' 2' v <<< abc; echo $v",
    "read -u 5 v",
    "read -- -x <<< 1; echo $?",
    "printf 'a\\nb\\nc\\n' | { mapfile -tn 2 arr; declare -p arr; }",
    "mapfile -n x arr </dev/null",
    "mapfile -Z",
    "mapfile -c 0 a </dev/null",
    "mapfile -u 99 a",
    "mapfile -O -1 a </dev/null",
    "mapfile -C",
    "mapfile -s x a",
    "readarray -q",
    "printf 'a,b,' | { mapfile -td, x; declare -p x; }",
    "mapfile -n 1 -Z",
    # declare, typeset, local
    "declare -x=1; echo $?",
    "declare -Z",
    "declare +Z",
    "declare -ax=1; echo $?",
    "typeset -Q",
    "declare -- -x; echo $?",
    "declare --help | head -1",
    "declare -i -- x=3; echo $x",
    "declare + x; echo $?",
    "declare - x; echo $?",
    "f() { local -g x=1; echo $x; }; f",
    "f() { local -Z; }; f 2>&1 | sed 's/^[^:]*: //'",
    "declare -ix y=2+3; declare -p y",
    "declare -i +i z=1+1; echo $z",
    "declare -rx c=1; declare +x c; declare -p c",
    "typeset -A h=([k]=v); typeset -p h",
    "declare -f -F | head -1",
    "declare -p -- x y 2>&1 | head -2",
    "help typeset | head -1",
    "typeset -q 2>&1 | tail -1",
    # printf
    "printf -v",
    "printf -z",
    "printf -- -x",
    "printf --help | head -1",
    "printf -vx 'a%s' 1; echo $x",
    "printf -v x -- 'b'; echo $x",
    "printf -",
    "printf -v 1x a",
    "printf -x -v",
    "printf",
    "printf -v x",
    # bash's CHECK_HELPOPT in builtins without options, and eval's no_options
    "eval --help | head -1; echo ${PIPESTATUS[0]}",
    "eval -x",
    "eval -xy",
    "eval -- echo hi",
    "eval - 2>&1; echo $?",
    "shift --help | head -1; echo ${PIPESTATUS[0]}",
    "exit --help | head -1; echo ${PIPESTATUS[0]}; echo still",
    "for i in 1; do break --help | head -1; continue --help | head -1; done",
    "f() { return --help; }; f | head -1; echo ${PIPESTATUS[0]}",
    "let --help | head -1",
    "let -- 1+1; echo $?",
    "let -x; echo $?",
    "logout --help | head -1",
    "shift -x; echo $?",
]


def _run_sandbash(script: str) -> tuple[str, int]:
    r = Bash().exec("{ " + script + "\n} 2>&1")
    return r.stdout, r.exit_code


def _real_bash(script: str) -> tuple[str, int] | None:
    if not os.path.exists("/bin/bash"):
        return None
    version = subprocess.run(
        ["/bin/bash", "-c", "echo $BASH_VERSION"], capture_output=True, text=True, check=False
    )
    if not version.stdout.startswith("5.2"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        r = oracle.run(
            ["bash", "-c", "{ " + script + "\n} 2>&1"],
            executable="/bin/bash",
            capture_output=True,
            text=True,
            cwd=tmp,
            check=False,
            env={"PATH": "/usr/bin:/bin", "HOME": tmp, "LC_ALL": "C.UTF-8"},
        )
    return r.stdout, r.returncode


@pytest.mark.parametrize("script", SCRIPTS)
def test_builtin_options_match_bash(script: str) -> None:
    real = _real_bash(script)
    if real is None:
        pytest.skip("bash 5.2 not installed")
    assert _run_sandbash(script) == real


@pytest.mark.parametrize(
    ("letters", "argv", "items", "rest"),
    [
        ("abc", ["-ab", "-c", "x"], [("a", None, "-"), ("b", None, "-"), ("c", None, "-")], ["x"]),
        ("a:b", ["-avalue", "-b"], [("a", "value", "-"), ("b", None, "-")], []),
        ("a:b", ["-a", "-b", "x"], [("a", "-b", "-")], ["x"]),
        ("+ab", ["+a", "-b", "+", "x"], [("a", None, "+"), ("b", None, "-")], ["+", "x"]),
        ("ab", ["+a"], [], ["+a"]),
        ("a;b", ["-a", "5", "-b"], [("a", "5", "-"), ("b", None, "-")], []),
        ("a;b", ["-a", "-b"], [("a", None, "-"), ("b", None, "-")], []),
        ("n#", ["-n", "12", "x"], [("n", "12", "-")], ["x"]),
        ("ab", ["-a", "x", "-b"], [("a", None, "-")], ["x", "-b"]),
        ("ab", ["-a", "--", "-b"], [("a", None, "-")], ["-b"]),
        ("ab", ["-a", "-", "-b"], [("a", None, "-")], ["-", "-b"]),
    ],
)
def test_builtin_mode_parse(
    letters: str, argv: list[str], items: list[tuple[str, str | None, str]], rest: list[str]
) -> None:
    parsed, operands = parse_args(builtin_spec("t", letters), argv)
    assert [(k, v, s) for (k, v), s in zip(parsed.order, parsed.signs, strict=True)] == items
    assert operands == rest


@pytest.mark.parametrize(
    ("letters", "argv", "message"),
    [
        ("ab", ["-ac"], "-c: invalid option"),
        ("+ab", ["+c"], "+c: invalid option"),
        ("a:", ["-a"], "-a: option requires an argument"),
        ("ab", ["--x"], "--: invalid option"),
        ("a:", ["-b"], "-b: invalid option"),
        ("a", ["-:"], "-:: invalid option"),
    ],
)
def test_builtin_mode_errors(letters: str, argv: list[str], message: str) -> None:
    with pytest.raises(UsageError) as e:
        parse_args(builtin_spec("t", letters), argv)
    assert e.value.message == message


def test_builtin_mode_is_the_one_parser() -> None:
    spec = builtin_spec("t", "+ab:")
    assert isinstance(spec, CommandSpec) and spec.builtin and spec.plus
    assert spec.opts == (Opt("a", dest="a", const=None), Opt("b", dest="b", arg="required", const=None))
