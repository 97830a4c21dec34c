"""The one option parser (commands/options.py) in GNU mode, by behaviour: what it makes of an
argv, and the first line of its usage errors.

The spec below mirrors part of GNU sort's options (long names that share prefixes, required and
optional values). Each row's expected result was recorded from util-linux getopt 2.38.1, which
is glibc's getopt_long; `test_rows_match_real_getopt` asks /usr/bin/getopt again when it is
there, so the table cannot drift from the oracle.
"""

from __future__ import annotations

import shlex
import shutil
from typing import Any

import pytest

import oracle
from sandbash.commands.options import (
    CommandSpec,
    HelpRequested,
    Opt,
    Parsed,
    UsageError,
    help_text,
    parse_args,
    usage_message,
    version_text,
)

SPEC = CommandSpec(
    name="sort",
    opts=(
        Opt("r", "reverse", help="reverse"),
        Opt("R", "random-sort", help="shuffle"),
        Opt(None, "random-source", "required", metavar="FILE", help="random bytes"),
        Opt("n", "numeric-sort", help="numbers"),
        Opt("k", "key", "required", multi=True, metavar="KEYDEF", help="sort by a key"),
        Opt("t", "field-separator", "required", metavar="SEP", help="field separator"),
        Opt("u", "unique", help="unique"),
        Opt("c", "check", "optional", metavar="WHAT", help="check"),
        Opt("S", "buffer-size", "required", metavar="SIZE", help="buffer"),
        Opt("v", None, count=True),
    ),
)
SHORT = "rRnk:t:uc::S:v"
LONG = "reverse,random-sort,random-source:,numeric-sort,key:,field-separator:,unique,check::,buffer-size:,help,version"

Result = tuple[list[tuple[str, Any]], list[str]] | str  # (options in order, operands) or error

ROWS: list[tuple[list[str], Result]] = [
    # bundling, attached and separate values
    (["-rn", "a"], ([("reverse", True), ("numeric_sort", True)], ["a"])),
    (["-rk2", "a"], ([("reverse", True), ("key", "2")], ["a"])),
    (["-k", "2,3", "-t,"], ([("key", "2,3"), ("field_separator", ",")], [])),
    (["-t", "-r"], ([("field_separator", "-r")], [])),  # a required value may look like an option
    (["-vvv"], ([("v", True), ("v", True), ("v", True)], [])),
    # long options, =value and next-word values, unique prefixes
    (["--key=1", "--key", "2"], ([("key", "1"), ("key", "2")], [])),
    (["--rev", "--num"], ([("reverse", True), ("numeric_sort", True)], [])),
    (["--random-sort"], ([("random_sort", True)], [])),
    (
        ["--random-so", "f"],
        "option '--random-so' is ambiguous; possibilities: '--random-sort' '--random-source'",
    ),
    (
        ["--random-so=f"],
        "option '--random-so=f' is ambiguous; possibilities: '--random-sort' '--random-source'",
    ),
    (["--random-sou", "f"], ([("random_source", "f")], [])),
    (["--field=:"], ([("field_separator", ":")], [])),
    (["--key="], ([("key", "")], [])),
    # optional values must be attached
    (["--check", "x"], ([("check", None)], ["x"])),
    (["--check=quiet"], ([("check", "quiet")], [])),
    (["-cquiet", "-c", "y"], ([("check", "quiet"), ("check", None)], ["y"])),
    # operands anywhere, `--` ends options, `-` is an operand
    (["a", "-r", "b", "-n"], ([("reverse", True), ("numeric_sort", True)], ["a", "b"])),
    (["-r", "--", "-n", "--key"], ([("reverse", True)], ["-n", "--key"])),
    (["-", "-r"], ([("reverse", True)], ["-"])),
    (["--", "--"], ([], ["--"])),
    ([], ([], [])),
    # usage errors (the first line after 'sort: ')
    (["-x"], "invalid option -- 'x'"),
    (["-rx"], "invalid option -- 'x'"),
    (["a", "-Z"], "invalid option -- 'Z'"),
    (["-k"], "option requires an argument -- 'k'"),
    (["-rk"], "option requires an argument -- 'k'"),
    (["--key"], "option '--key' requires an argument"),
    (["--ke"], "option '--key' requires an argument"),
    (["--reverse=1"], "option '--reverse' doesn't allow an argument"),
    (["--rev=1"], "option '--reverse' doesn't allow an argument"),
    (["--nope"], "unrecognized option '--nope'"),
    (["--nope=1"], "unrecognized option '--nope=1'"),
    (["--r"], "option '--r' is ambiguous; possibilities: '--reverse' '--random-sort' '--random-source'"),
    (["-n", "--zz", "-x"], "unrecognized option '--zz'"),  # the first error is the one reported
]


def ours(argv: list[str]) -> Result:
    try:
        parsed, operands = parse_args(SPEC, argv)
    except UsageError as e:
        return e.message
    return list(parsed.order), operands


@pytest.mark.parametrize(("argv", "want"), ROWS, ids=[" ".join(r[0]) or "(none)" for r in ROWS])
def test_rows(argv: list[str], want: Result) -> None:
    assert ours(argv) == want


def _from_getopt(out: str) -> Result:
    """util-linux getopt's normalized output as (options in order, operands)."""
    words = shlex.split(out)
    by_name = {f"--{o.long}": o for o in SPEC.opts if o.long} | {
        f"-{o.short}": o for o in SPEC.opts if o.short
    }
    order: list[tuple[str, Any]] = []
    i = 0
    while words[i] != "--":
        opt = by_name[words[i]]
        if opt.arg == "none":
            order.append((opt.key, opt.const))
            i += 1
        else:
            value = words[i + 1]
            # getopt shows an absent optional value as ''
            order.append((opt.key, None if opt.arg == "optional" and value == "" else value))
            i += 2
    return order, words[i + 1 :]


@pytest.mark.skipif(shutil.which("getopt") is None, reason="util-linux getopt not installed")
@pytest.mark.parametrize(("argv", "want"), ROWS, ids=[" ".join(r[0]) or "(none)" for r in ROWS])
def test_rows_match_real_getopt(argv: list[str], want: Result) -> None:
    p = oracle.run(
        ["getopt", "-o", SHORT, "-l", LONG, "-n", "sort", "--", *argv],
        capture_output=True,
        text=True,
        timeout=10,
        env={"PATH": "/usr/bin:/bin"},
    )
    if p.returncode == 0:
        real: Result = _from_getopt(p.stdout)
    else:
        first = p.stderr.splitlines()[0]
        assert first.startswith("sort: ")
        real = first[len("sort: ") :]
    assert real == want


@pytest.mark.parametrize("argv", [["--help"], ["--he"], ["-r", "--h"], ["a", "--help", "-x"]])
def test_help_at_any_unique_prefix(argv: list[str]) -> None:
    with pytest.raises(HelpRequested) as info:
        parse_args(SPEC, argv)
    assert info.value.text == help_text(SPEC)


@pytest.mark.parametrize("argv", [["--version"], ["--vers"]])
def test_version(argv: list[str]) -> None:
    with pytest.raises(HelpRequested) as info:
        parse_args(SPEC, argv)
    assert info.value.text == version_text(SPEC)
    assert info.value.text.startswith("sort (GNU coreutils) 9.1\n")


def test_help_text_lists_every_documented_option() -> None:
    text = help_text(SPEC)
    assert text.startswith("Usage: sort [OPTION]... [FILE]...\n")
    for line in (
        "  -r, --reverse",
        "  -k, --key=KEYDEF",
        "  -c, --check[=WHAT]",
        "      --random-source=FILE",
        "      --help        display this help and exit",
    ):
        assert line in text, line
    assert "-v" not in text.replace("--version", "")  # no help string: not listed


def test_usage_message_is_gnu_two_lines() -> None:
    assert usage_message(SPEC, "invalid option -- 'x'") == (
        "sort: invalid option -- 'x'\nTry 'sort --help' for more information.\n"
    )


def test_values_by_key() -> None:
    parsed, operands = parse_args(SPEC, ["-k1", "--key=2", "-vv", "-c", "f"])
    assert isinstance(parsed, Parsed)
    assert parsed["key"] == ["1", "2"]  # multi: every value, in order
    assert parsed.get("v") == 2  # count
    assert parsed.has("check") and parsed["check"] is None
    assert "reverse" not in parsed and parsed.get("reverse", "d") == "d"
    assert operands == ["f"]


STOP = CommandSpec(
    name="env", opts=(Opt("i", "ignore-environment"), Opt("u", "unset", "required")), stop_at_operand=True
)
HEAD = CommandSpec(name="head", opts=(Opt("n", "lines", "required"), Opt("q", "quiet")), numeric="n")
NEG = CommandSpec(name="tool", opts=(Opt("a", None),), operand_if=lambda a: a[1:].isdigit())


@pytest.mark.parametrize(
    ("spec", "argv", "order", "operands"),
    [
        # options end at the first operand (env, xargs, find)
        (STOP, ["-i", "cmd", "-u", "x"], [("ignore_environment", True)], ["cmd", "-u", "x"]),
        (STOP, ["-u", "X", "--", "-i"], [("unset", "X")], ["-i"]),
        # the legacy numeric option: head -5 is head -n 5
        (HEAD, ["-5", "f"], [("lines", "5")], ["f"]),
        (HEAD, ["-q", "-12"], [("quiet", True), ("lines", "12")], []),
        # an argument the command reads as an operand although it starts with '-'
        (NEG, ["-a", "-5"], [("a", True)], ["-5"]),
    ],
)
def test_spec_variants(
    spec: CommandSpec, argv: list[str], order: list[tuple[str, Any]], operands: list[str]
) -> None:
    parsed, got = parse_args(spec, argv)
    assert (parsed.order, got) == (order, operands)


def test_negative_number_is_still_an_option_without_operand_if() -> None:
    with pytest.raises(UsageError) as info:
        parse_args(CommandSpec(name="tool", opts=(Opt("a", None),)), ["-5"])
    assert info.value.message == "invalid option -- '5'"
