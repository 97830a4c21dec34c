"""Word expansion as a library, against a fake environment: field splitting, "$@" and arrays,
quoting kept per piece until splitting and globbing, and the ${...} operators.

Every row is (setup, command, argv). `test_table_matches_real_bash` runs the same rows through
/bin/bash (printing each argument in <>), so the expected argv is bash's, not ours.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from typing import Any

import pytest

import oracle
from sandbash.expand.env import ExpansionError
from sandbash.expand.words import Expander

from .fakeenv import FakeEnv, expand, parse_words

ARGS = ["p 1", "", "p3"]
Setup = dict[str, Any]

# setup keys: variables (str, list: indexed array, dict: associative), "@" (positional
# parameters), "IFS", "files" (names in the directory globbing sees)
ROWS: list[tuple[str, Setup, str, list[str]]] = [
    # ---------------------------------------------------------------- field splitting
    ("split-default", {"x": "a  b"}, "$x", ["a", "b"]),
    ("split-quoted", {"x": "a  b"}, '"$x"', ["a  b"]),
    ("split-edges", {"x": "  a \t b\n"}, "$x", ["a", "b"]),
    ("split-ifs-colon-empty-fields", {"x": "a::b:", "IFS": ":"}, "$x", ["a", "", "b"]),
    ("split-ifs-mixed", {"x": " a : b ", "IFS": ": "}, "$x", ["a", "b"]),
    ("split-ifs-null", {"x": "a b", "IFS": ""}, "$x", ["a b"]),
    ("split-empty-vanishes", {"x": ""}, "$x", []),
    ("split-unset-vanishes", {}, "$u", []),
    ("split-empty-quoted-stays", {"x": ""}, '"$x"', [""]),
    ("split-prefix-joins-first", {"x": "a b"}, "pre$x", ["prea", "b"]),
    ("split-literal-not-split", {"x": "a,b", "IFS": ","}, "$x,c", ["a", "b,c"]),
    ("split-two-expansions", {"x": "a b", "y": "c d"}, "$x$y", ["a", "bc", "d"]),
    ("split-quoted-then-unquoted", {"x": "a b"}, '"$x"$x', ["a ba", "b"]),
    ("split-cmdsub", {}, "$(printf 'a  b\\n\\n')", ["a", "b"]),
    ("split-cmdsub-quoted", {}, "\"$(printf 'a  b\\n\\n')\"", ["a  b"]),
    ("split-arith-no-split", {}, "$((1 + 2))", ["3"]),
    # ---------------------------------------------------------------- "$@", "$*" and arrays
    ("at-quoted", {"@": ARGS}, '"$@"', ["p 1", "", "p3"]),
    ("at-unquoted", {"@": ARGS}, "$@", ["p", "1", "p3"]),
    ("at-joined-to-text", {"@": ARGS}, '"pre$@post"', ["prep 1", "", "p3post"]),
    ("at-none-quoted", {"@": []}, '"$@"', []),
    ("at-none-with-text", {"@": []}, '"x$@y"', ["xy"]),
    ("star-quoted", {"@": ARGS}, '"$*"', ["p 1  p3"]),
    ("star-ifs-comma", {"@": ARGS, "IFS": ","}, '"$*"', ["p 1,,p3"]),
    ("star-ifs-null", {"@": ARGS, "IFS": ""}, '"$*"', ["p 1p3"]),
    ("at-slice", {"@": ARGS}, '"${@:2}"', ["", "p3"]),
    ("at-count", {"@": ARGS}, "$#", ["3"]),
    ("array-quoted", {"arr": ["1", "2 3"]}, '"${arr[@]}"', ["1", "2 3"]),
    ("array-unquoted", {"arr": ["1", "2 3"]}, "${arr[@]}", ["1", "2", "3"]),
    ("array-star-quoted", {"arr": ["1", "2 3"]}, '"${arr[*]}"', ["1 2 3"]),
    ("array-suffix", {"arr": ["1", "2 3"]}, '"${arr[@]}x"', ["1", "2 3x"]),
    ("array-length", {"arr": ["1", "2 3"]}, "${#arr[@]}", ["2"]),
    ("array-element-split", {"arr": ["1", "2 3"]}, "${arr[1]}", ["2", "3"]),
    ("array-subscript-expands", {"arr": ["1", "2 3"], "i": "0"}, '"${arr[$i+1]}"', ["2 3"]),
    ("array-slice", {"arr": ["1", "2 3", "4"]}, '"${arr[@]:1:1}"', ["2 3"]),
    ("array-op-each", {"arr": ["a.c", "b.c"]}, '"${arr[@]%.c}"', ["a", "b"]),
    ("assoc-key", {"h": {"k": "v"}}, "${h[k]}", ["v"]),
    ("assoc-key-expands", {"h": {"k": "v"}, "key": "k"}, '"${h[$key]}"', ["v"]),
    ("assoc-key-quoted", {"h": {"a b": "v"}}, "\"${h['a b']}\"", ["v"]),
    # ---------------------------------------------------------------- quoting per piece
    ("glob-from-expansion", {"x": "*.txt", "files": ["a.txt", "b.txt", "c.md"]}, "$x", ["a.txt", "b.txt"]),
    ("glob-quoted-expansion", {"x": "*.txt", "files": ["a.txt"]}, '"$x"', ["*.txt"]),
    ("glob-escaped", {"files": ["a.txt"]}, "\\*.txt", ["*.txt"]),
    ("glob-quoted-prefix", {"files": ["a.txt", "b.txt"]}, '"a"*', ["a.txt"]),
    ("glob-no-match-stays", {"files": ["a.txt"]}, "*.md", ["*.md"]),
    ("quote-single", {"x": "v"}, "'$x'", ["$x"]),
    ("quote-concat", {}, "\"a\"'b'c", ["abc"]),
    ("quote-ansi-c", {}, "$'a\\tb'", ["a\tb"]),
    ("quote-empty-pair", {}, "\"\" ''", ["", ""]),
    ("quote-backslash-in-dq", {}, '"a\\$b\\\\"', ["a$b\\"]),
    ("brace-list", {}, "a{1,2}b", ["a1b", "a2b"]),
    ("brace-seq", {}, "{1..3}", ["1", "2", "3"]),
    ("brace-quoted-not", {}, '"{1,2}"', ["{1,2}"]),
    # ---------------------------------------------------------------- operators
    ("op-default-unset", {}, "${u:-def}", ["def"]),
    ("op-default-empty", {"e": ""}, "${e:-def}", ["def"]),
    ("op-default-nocolon-empty", {"e": ""}, '"${e-def}"', [""]),
    ("op-default-word-splits", {"x": "a  b"}, "${u:-$x}", ["a", "b"]),
    ("op-default-word-quoted", {"x": "a  b"}, '${u:-"$x"}', ["a  b"]),
    ("op-default-in-dq", {"x": "a  b"}, '"${u:-$x}"', ["a  b"]),
    ("op-alternate", {"x": "v"}, "${x:+alt}", ["alt"]),
    ("op-alternate-unset", {}, "${u:+alt}", []),
    ("op-trim-short-prefix", {"f": "a/b/c"}, "${f#*/}", ["b/c"]),
    ("op-trim-long-prefix", {"f": "a/b/c"}, "${f##*/}", ["c"]),
    ("op-trim-short-suffix", {"f": "a/b/c"}, "${f%/*}", ["a/b"]),
    ("op-trim-long-suffix", {"f": "a/b/c"}, "${f%%/*}", ["a"]),
    ("op-trim-quoted-pattern", {"f": "a*b*c"}, "\"${f#*'*'}\"", ["b*c"]),
    ("op-replace-first", {"f": "a/b/c"}, "${f/\\//_}", ["a_b/c"]),
    ("op-replace-all", {"f": "a/b/c"}, "${f//\\//_}", ["a_b_c"]),
    ("op-replace-prefix", {"f": "a/b/c"}, "${f/#a/X}", ["X/b/c"]),
    ("op-replace-suffix", {"f": "a/b/c"}, "${f/%c/X}", ["a/b/X"]),
    ("op-replace-delete", {"f": "a/b/c"}, "${f//\\/}", ["abc"]),
    ("op-upper-first", {"s": "hello"}, "${s^}", ["Hello"]),
    ("op-upper-all", {"s": "hello"}, "${s^^}", ["HELLO"]),
    ("op-upper-pattern", {"s": "hello"}, "${s^^[lo]}", ["heLLO"]),
    ("op-lower-first", {"s": "HELLO"}, "${s,}", ["hELLO"]),
    ("op-lower-all", {"s": "HELLO"}, "${s,,}", ["hello"]),
    ("op-toggle-all", {"s": "HeLLo"}, "${s~~}", ["hEllO"]),
    ("op-length", {"s": "hello"}, "${#s}", ["5"]),
    ("op-slice", {"s": "hello"}, "${s:1:3}", ["ell"]),
    ("op-slice-negative", {"s": "hello"}, "${s: -2}", ["lo"]),
    ("op-slice-arith", {"s": "hello", "n": "1"}, "${s:n+1}", ["llo"]),
    ("op-quote-xform", {"x": "a  b"}, "${x@Q}", ["'a", "b'"]),
    ("op-quote-xform-dq", {"x": "a  b"}, '"${x@Q}"', ["'a  b'"]),
    ("op-upper-xform", {"x": "ab"}, "${x@U}", ["AB"]),
    ("op-indirect", {"ref": "s", "s": "hello"}, "${!ref}", ["hello"]),
    ("op-names", {"pre_a": "1", "pre_b": "2"}, '"${!pre_@}"', ["pre_a", "pre_b"]),
    ("arith-vars", {"n": "4"}, "$((n * 2 + 1))", ["9"]),
]


def make_env(setup: Setup) -> FakeEnv:
    env = FakeEnv()
    for name, value in setup.items():
        if name == "@":
            env.args = list(value)
        elif name == "files":
            env.files = list(value)
        else:
            env.set(name, value)
    return env


def bash_setup(setup: Setup) -> str:
    """The same setup as bash commands."""
    lines = []
    for name, value in setup.items():
        if name == "@":
            lines.append("set -- " + " ".join(shlex.quote(v) for v in value))
        elif name == "files":
            lines.append("touch -- " + " ".join(shlex.quote(v) for v in value) if value else ":")
        elif isinstance(value, list):
            lines.append(f"{name}=(" + " ".join(shlex.quote(v) for v in value) + ")")
        elif isinstance(value, dict):
            items = " ".join(f"[{shlex.quote(k)}]={shlex.quote(v)}" for k, v in value.items())
            lines.append(f"declare -A {name}=({items})")
        elif name != "IFS":
            lines.append(f"{name}={shlex.quote(value)}")
    if "IFS" in setup:  # last: it changes how the lines above would split
        lines.append(f"IFS={shlex.quote(setup['IFS'])}")
    return "\n".join(lines) or ":"


@pytest.mark.parametrize(("name", "setup", "command", "argv"), ROWS, ids=[r[0] for r in ROWS])
def test_expansion(name: str, setup: Setup, command: str, argv: list[str]) -> None:
    env = make_env(setup)
    if "$(" in command:
        env.outputs = {cmd: "a  b\n\n" for cmd in ("printf 'a  b\\n\\n'",)}
    got = expand(env, "cmd " + command)[1:]
    assert got == argv
    assert env.errors == []


def _bash_52() -> bool:
    try:
        out = subprocess.run(
            ["/bin/bash", "-c", "echo $BASH_VERSION"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.startswith("5.2")


@pytest.mark.skipif(not _bash_52(), reason="GNU bash 5.2 not available at /bin/bash")
def test_table_matches_real_bash() -> None:
    script = []
    for name, setup, command, _ in ROWS:
        # each row in its own subshell, in an empty directory of its own
        script.append(
            f"( mkdir {name} && cd {name} && {{\n{bash_setup(setup)}\n}} && "
            f"printf '<%s>' argv {command}; echo )"
        )
    with tempfile.TemporaryDirectory() as tmp:
        out = oracle.run(
            ["/bin/bash", "-c", "\n".join(script)],
            capture_output=True,
            text=True,
            cwd=tmp,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
            timeout=60,
        ).stdout
    lines = out.split("\n")
    for (name, _, _, argv), line in zip(ROWS, lines, strict=False):
        want = "".join(f"<{a}>" for a in ["argv", *argv])  # "argv" tells no word from one empty word
        assert line == want, name


# ---------------------------------------------------------------- other entry points


@pytest.mark.parametrize(
    ("src", "setup", "text"),
    [
        ('"$@"', {"@": ARGS}, "p 1  p3"),  # string(): "$@" joined by spaces
        ("$x", {"x": "a  b"}, "a  b"),  # no splitting
        ("*.txt", {"files": ["a.txt"]}, "*.txt"),  # no globbing
        ("${u:-a b}", {}, "a b"),
        ("~", {}, "/home/me"),
    ],
)
def test_string_neither_splits_nor_globs(src: str, setup: Setup, text: str) -> None:
    env = make_env(setup)
    (word,) = parse_words("cmd " + src)[1:]
    assert Expander(env).string(word) == text


@pytest.mark.parametrize(
    ("src", "setup", "message"),
    [
        ("${u:?}", {}, "u: parameter null or not set"),
        ("${u?}", {}, "u: parameter not set"),
        ("${e:?gone}", {"e": ""}, "e: gone"),
        ("${x@Z}", {"x": "1"}, "${x@Z}: bad substitution"),
        ("${x!}", {"x": "1"}, "${x!}: bad substitution"),
    ],
)
def test_errors(src: str, setup: Setup, message: str) -> None:
    env = make_env(setup)
    with pytest.raises(ExpansionError) as info:
        expand(env, "cmd " + src)
    assert info.value.message == message


def test_nounset_names_the_parameter() -> None:
    env = make_env({})
    env.opts["nounset"] = True
    with pytest.raises(ExpansionError) as info:
        expand(env, "cmd $nothere")
    assert info.value.message == "nothere: unbound variable"
    assert expand(env, 'cmd "${nothere-ok}"') == ["cmd", "ok"]


def test_command_substitution_runs_once_per_expansion_in_order() -> None:
    env = make_env({})
    env.outputs = {"first": "1\n", "second": "2\n"}
    assert expand(env, "cmd $(first) x$(second)") == ["cmd", "1", "x2"]
    assert env.ran == ["first", "second"]


def test_subscript_parsed_with_the_script_is_used() -> None:
    """${a[$i]} and ${h[$k]} evaluate the subscript the parser read, never a re-parse of its text
    (the fake env's own subscript_key would fail the test if it were called)."""
    env = make_env({"arr": ["x", "y"], "h": {"k": "v"}, "i": "1", "key": "k"})

    def refuse(raw: str) -> str:
        raise AssertionError(f"subscript {raw!r} parsed again at run time")

    env.subscript_key = refuse  # type: ignore[method-assign]
    assert expand(env, 'cmd "${arr[$i]}" "${h[$key]}" "${h["$key"]}"') == ["cmd", "y", "v", "v"]
