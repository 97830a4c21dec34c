"""GNU quoting of names in messages: one implementation (commands/gnuquote.py) for every tool.

The recorded rows come from GNU coreutils 9 (`cat`/`ls` error messages, LC_ALL=C.UTF-8);
when GNU coreutils is on the machine, a generated table of names is also checked live
against `cat` (shell-escape, quote when needed) and `ls` (shell-escape-always).
"""

from __future__ import annotations

import itertools
import random
import shutil
import subprocess
import tempfile
import time

import pytest

import oracle
from sandbash.commands import gnuquote
from sandbash.testing import run_command

# (name, what `cat NAME` shows, what `ls NAME` shows), recorded from GNU coreutils.
RECORDED = [
    ("'~aa", "''\\''~aa'", "''\\''~aa'"),
    ("a b", "'a b'", "'a b'"),
    ("it's", '"it\'s"', '"it\'s"'),
    ("a\nb", "'a'$'\\n''b'", "'a'$'\\n''b'"),
    ("a$b'", "'a$b'\\'''", "'a$b'\\'''"),
    ("#x", "'#x'", "'#x'"),
    ("x#", "x#", "'x#'"),
    ("~", "'~'", "'~'"),
    ("a~", "a~", "'a~'"),
    ("{", "'{'", "'{'"),
    ("a{b}", "a{b}", "'a{b}'"),
    ("é", "é", "'é'"),
    ("\udcff", "''$'\\377'", "''$'\\377'"),
    ("it's!", "'it'\\''s!'", "'it'\\''s!'"),
    ("a=b", "'a=b'", "'a=b'"),
    ("~'", '"~\'"', '"~\'"'),
    ("a'#", "'a'\\''#'", "'a'\\''#'"),
    ("\x7f", "''$'\\177'", "''$'\\177'"),
    ("a\\b", "'a\\b'", "'a\\b'"),
    ("", "''", "''"),
    # a quote before an escaped last character: gnulib's second pass starts inside an escape
    ("a'\x01", r"'''a'\'''$'\001'", r"'''a'\'''$'\001'"),
    ("\x01'\x01", r"'\001'\'''$'\001'", r"'\001'\'''$'\001'"),
    ("a'\x01b", r"'a'\'''$'\001''b'", r"'a'\'''$'\001''b'"),
    ("'a\x01", r"''\''a'$'\001'", r"''\''a'$'\001'"),
]

# Commands whose "cannot open" message quotes the operand only when needed (quotef)
# and those that always quote it (quoteaf).
QUOTEF_COMMANDS = [["cat"], ["wc"], ["cut", "-f1"], ["fold"], ["nl"], ["od"]]
QUOTEAF_COMMANDS = [["head"], ["tail"]]


@pytest.mark.parametrize(("name", "quotef", "quoteaf"), RECORDED)
def test_recorded(name: str, quotef: str, quoteaf: str) -> None:
    assert gnuquote.quotef(name) == quotef
    assert gnuquote.quoteaf(name) == quoteaf


@pytest.mark.parametrize("argv", QUOTEF_COMMANDS)
@pytest.mark.parametrize(("name", "quotef", "quoteaf"), RECORDED[:12])
def test_missing_operand_message_quotef(argv: list[str], name: str, quotef: str, quoteaf: str) -> None:
    r = run_command([*argv, name])
    assert r.status == 1
    assert r.stderr.decode("utf-8", "surrogateescape") == f"{argv[0]}: {quotef}: No such file or directory\n"


@pytest.mark.parametrize("argv", QUOTEAF_COMMANDS)
@pytest.mark.parametrize(("name", "quotef", "quoteaf"), RECORDED[:12])
def test_missing_operand_message_quoteaf(argv: list[str], name: str, quotef: str, quoteaf: str) -> None:
    r = run_command([*argv, name])
    assert r.status == 1
    text = r.stderr.decode("utf-8", "surrogateescape")
    assert text == f"{argv[0]}: cannot open {quoteaf} for reading: No such file or directory\n"


@pytest.mark.parametrize(
    ("text", "utf8", "shown"),
    [
        ("z", True, "\u2018z\u2019"),
        ("z", False, "'z'"),
        ("\udcff\x01a\\b", True, "\u2018\\377\\001a\\\\b\u2019"),
        ("\udcff\u00e9\x01a\\b", False, "'\\377\\303\\251\\001a\\\\b'"),
        ("tab\there", True, "\u2018tab\\there\u2019"),
    ],
)
def test_locale_quote(text: str, utf8: bool, shown: str) -> None:
    assert gnuquote.quote(text, utf8) == shown


@pytest.mark.parametrize(
    ("env", "shown"),
    [
        ({"LC_ALL": "C.UTF-8"}, "\u2018z\u2019"),
        ({"LC_ALL": "C"}, "'z'"),
        ({"LANG": "en_US.utf8"}, "\u2018z\u2019"),
        ({}, "'z'"),
    ],
)
def test_locale_quote_follows_env(env: dict[str, str], shown: str) -> None:
    r = run_command(["head", "-n", "z"], env=env)
    assert r.stderr.decode() == f"head: invalid number of lines: {shown}\n"


def _gnu() -> bool:
    cat = shutil.which("cat")
    if cat is None:
        return False
    out = subprocess.run([cat, "--version"], capture_output=True, text=True, check=False).stdout
    return "GNU coreutils" in out


def _names() -> list[str]:
    """Short names over the characters GNU's quoting treats differently."""
    alphabet = [
        " ",
        "'",
        '"',
        "$",
        "#",
        "~",
        "!",
        "{",
        "}",
        "a",
        "\\",
        "\n",
        "\x01",
        "\u00e9",
        "\udcff",
        "=",
        "^",
        "?",
        "*",
        "-",
        ".",
    ]
    names = ["".join(p) for p in itertools.product(alphabet, repeat=2)]
    rng = random.Random(17)
    names += ["".join(rng.choice(alphabet) for _ in range(rng.randint(3, 6))) for _ in range(400)]
    # operands GNU reads as something else: options, stdin, the current directory
    return sorted({n for n in names if not n.startswith("-") and n not in (".", "..")})


def _error_names(stderr: bytes, prefix: str) -> list[bytes]:
    """The quoted names of the `No such file or directory` lines, in order (names with a
    newline are escaped, so one line is one name)."""
    head = prefix.encode()
    tail = b": No such file or directory"
    return [line[len(head) : -len(tail)] for line in stderr.split(b"\n") if line.endswith(tail)]


@pytest.mark.skipif(not _gnu(), reason="GNU coreutils not installed")
@pytest.mark.parametrize(
    ("tool", "prefix", "always"), [(["cat"], "cat: ", False), (["ls", "-d"], "ls: cannot access ", True)]
)
def test_live_against_gnu(tool: list[str], prefix: str, always: bool) -> None:
    names = _names()
    with tempfile.TemporaryDirectory() as tmp:
        r = oracle.run(
            [*tool, "--", *names],
            capture_output=True,
            cwd=tmp,
            check=False,
            env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
        )
    expected = _error_names(r.stderr, prefix)
    assert len(expected) == len(names)
    ours = [
        (gnuquote.quoteaf(n) if always else gnuquote.quotef(n)).encode("utf-8", "surrogateescape")
        for n in names
    ]
    wrong = [(n, o, e) for n, o, e in zip(names, ours, expected, strict=True) if o != e]
    assert wrong == []
    if not always:  # end to end: sandbash's own cat names every operand as GNU's does
        mine = run_command(["cat", "--", *names])
        assert _error_names(mine.stderr, "cat: ") == expected


# The printable-name paths (gnuquote._plain: found in C) give what the character loops give: every
# name below goes through both, and each alphabet's random names too.
_ALPHABETS = ("ab", "a b'", "a'#~", "x'$*{}", "é'ü\\", "a\\'b\"", "#~a:b", "\u00a0a'", "a\tb'", "\udc80a'")
_NAMES = [
    "",
    "a",
    "{",
    "}",
    "#a",
    "~a",
    "a#",
    "a~",
    "it's",
    "'#a",
    "a'#",
    "a'~b",
    "'",
    "''",
    "a'b$c",
    "a'b{c}",
    "a b",
    "a\\b",
    "é'",
    "\u00a0",
    "a:b",
]


def _chosen_and_random_names() -> list[str]:
    rng = random.Random(34)
    out = list(_NAMES)
    for alphabet in _ALPHABETS:
        out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(200)]
    return out


@pytest.mark.parametrize("fn", ["quote", "quote-c", "quoteaf", "needs_quoting", "shell_quote", "quotef"])
def test_printable_names_quote_as_the_character_loops_do(fn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    call = {
        "quote": gnuquote.quote,
        "quote-c": lambda n: gnuquote.quote(n, utf8=False),
        "quoteaf": gnuquote.quoteaf,
        "needs_quoting": gnuquote.needs_quoting,
        "shell_quote": gnuquote.shell_quote,
        "quotef": gnuquote.quotef,
    }[fn]
    names = _chosen_and_random_names()
    fast = [call(n) for n in names]
    monkeypatch.setattr(gnuquote, "_plain", lambda text, utf8=True: False)
    assert fast == [call(n) for n in names]


def test_a_megabyte_name_is_quoted_in_c() -> None:
    name = "0" * (1 << 20) + "'x"
    started = time.process_time()
    for _ in range(10):
        gnuquote.quote(name), gnuquote.quoteaf(name), gnuquote.quotef(name)
    # the character loops took 0.3-0.5 s of CPU a call; C, ~1 ms (30 calls here)
    assert time.process_time() - started < 2.0
