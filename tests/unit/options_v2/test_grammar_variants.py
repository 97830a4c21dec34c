"""The one option parser's grammar variants (commands/options.py): each tool with its own command
line (jq, yq, tree, kill, dirs, set) is a declaration over these. Tables of argv -> what was
parsed, or the error's kind, option name, word and position."""

from __future__ import annotations

from typing import Any

import pytest

from sandbash.commands.options import CommandSpec, Opt, OptionValueError, UsageError, parse_args


def _flag(text: str) -> bool:
    if text not in ("true", "false"):
        raise OptionValueError(f"bad bool {text}")
    return text == "true"


EXACT = CommandSpec(  # jq-like: exact long names, a word is a set of letters, two-word values
    name="exact",
    add_help=False,
    long_prefixes=False,
    long_equals=False,
    bundle="set",
    operand_if=lambda w: not (w[1:2] == "-" or w[1:2].isalpha()),
    opts=(
        Opt("n", "null"),
        Opt("r", "raw"),
        Opt("L", dest="lib", arg="required", multi=True),
        Opt(None, "indent", arg="required"),
        Opt(None, "arg", arg="required", nargs=2, multi=True),
        Opt(None, "args"),
        Opt(None, "trace=all"),
        Opt("h", "help", stop=True),
    ),
)
PFLAG = CommandSpec(  # Go pflag: -o=json, bools take =VALUE only
    name="pflag",
    add_help=False,
    long_prefixes=False,
    short_equals=True,
    opts=(
        Opt("o", "output", arg="required"),
        Opt("n", "null", arg="optional", implied=True, type=_flag),
        Opt("v", "verbose", arg="optional", implied=True, type=_flag),
    ),
)
NEXT = CommandSpec(  # tree-like: the value is always the next word
    name="next",
    add_help=False,
    long_prefixes=False,
    opts=(
        Opt("a", dest="all"),
        Opt("L", dest="level", arg="required", attached=False),
        Opt("P", dest="pattern", arg="required", attached=False),
    ),
)
HEADLIKE = CommandSpec(name="headlike", opts=(Opt("n", "lines", arg="required"),), numeric="lines")
WORDS = CommandSpec(  # kill-like builtin: one option a word, the first other -WORD is the signal
    name="words",
    builtin=True,
    bundle="none",
    dash_value="signal",
    dash_value_once=True,
    opts=(
        Opt("l", dest="list"),
        Opt("s", dest="signal", arg="required", attached_if=str.isalpha),
        Opt("?", dest="usage", stop=True),
    ),
)
STACK = CommandSpec(  # dirs-like builtin: a signed word is an index
    name="stack",
    builtin=True,
    bundle="none",
    dash_value="index",
    dash_value_signs="-+",
    dash_value_if=lambda w: w != "-",
    opts=(Opt("n"), Opt(dest="index", arg="required")),
)
SETLIKE = CommandSpec(
    name="setlike",
    builtin=True,
    plus=True,
    opts=(Opt("e", dest="e"), Opt("x", dest="x"), Opt("o", dest="o", arg="optional", attached=False)),
)


def _parsed(spec: CommandSpec, argv: list[str]) -> tuple[list[tuple[str, Any]], list[str]]:
    parsed, operands = parse_args(spec, argv)
    return parsed.order, operands


@pytest.mark.parametrize(
    ("spec", "argv", "order", "operands"),
    [
        (EXACT, ["-nr", "."], [("null", True), ("raw", True)], ["."]),
        (EXACT, ["-rn", "."], [("null", True), ("raw", True)], ["."]),  # in declaration order
        (EXACT, ["-Ldir", "-L", "x", "."], [("lib", "dir"), ("lib", "x")], ["."]),
        (
            EXACT,
            ["--arg", "a", "b", ".", "--arg", "c", "d"],
            [("arg", ("a", "b")), ("arg", ("c", "d"))],
            ["."],
        ),
        (EXACT, ["--indent", "-1", "-1", "-"], [("indent", "-1")], ["-1", "-"]),
        (EXACT, ["--trace=all", "--", "-n"], [("trace=all", True)], ["-n"]),
        (EXACT, ["-h", "--bogus"], [("help", True)], ["--bogus"]),  # stop: the rest is not read
        (PFLAG, ["-o=json", "x"], [("output", "json")], ["x"]),
        (PFLAG, ["-ojson", "-o", "yaml"], [("output", "json"), ("output", "yaml")], []),
        (PFLAG, ["-nv", "-n=false"], [("null", True), ("verbose", True), ("null", False)], []),
        (PFLAG, ["--null=false", "--verbose"], [("null", False), ("verbose", True)], []),
        (PFLAG, ["-no", "x"], [("null", True), ("output", "x")], []),
        (PFLAG, ["-o="], [("output", "=")], []),  # pflag: `-o=` is the value "="
        (NEXT, ["-LP", "2", "*.py", "d"], [("level", "2"), ("pattern", "*.py")], ["d"]),
        (NEXT, ["-La", "2"], [("level", "2"), ("all", True)], []),
        (HEADLIKE, ["-5", "f"], [("lines", "5")], ["f"]),
        (WORDS, ["-9", "1"], [("signal", "9")], ["1"]),
        (WORDS, ["-KILL", "-1234"], [("signal", "KILL")], ["-1234"]),  # once: a later -WORD is an operand
        (WORDS, ["-s", "HUP", "-s", "0", "1"], [("signal", "HUP"), ("signal", "0")], ["1"]),
        (WORDS, ["-sHUP", "1"], [("signal", "HUP")], ["1"]),
        (WORDS, ["-s9", "1"], [("signal", "s9")], ["1"]),  # attached only when attached_if says so
        (WORDS, ["-l", "-0", "x"], [("list", True), ("signal", "0")], ["x"]),
        (WORDS, ["-?", "-s"], [("usage", True)], ["-s"]),
        (WORDS, ["--", "-9"], [], ["-9"]),
        (STACK, ["-n", "+2", "-0"], [("n", True), ("index", "2"), ("index", "0")], []),
        (STACK, ["-", "x"], [], ["-", "x"]),
        (STACK, ["-nn"], [("index", "nn")], []),  # not the option -n: a word of its own
        (SETLIKE, ["-ox", "errexit", "a"], [("o", "errexit"), ("x", True)], ["a"]),
        (SETLIKE, ["+o", "-e"], [("o", None), ("e", True)], []),
        (SETLIKE, ["-e", "-", "b"], [("e", True)], ["-", "b"]),
    ],
)
def test_variants_parse(
    spec: CommandSpec, argv: list[str], order: list[tuple[str, Any]], operands: list[str]
) -> None:
    assert _parsed(spec, argv) == (order, operands)


@pytest.mark.parametrize(
    ("spec", "argv", "kind", "name", "word", "at"),
    [
        (EXACT, ["-rr", "."], "unknown", "r", "-rr", 2),  # a letter counts once
        (EXACT, ["-nz"], "unknown", "z", "-nz", 2),
        (EXACT, ["-nL", "x"], "unknown", "L", "-nL", 2),  # a value letter only first
        (EXACT, ["--nul", "."], "unknown", "nul", "--nul", 0),  # no prefixes
        (EXACT, ["--indent=3"], "unknown", "indent=3", "--indent=3", 0),  # no =VALUE
        (EXACT, ["--arg", "x"], "needs_value", "arg", "--arg", 0),
        (EXACT, ["-L"], "needs_value", "L", "-L", 0),
        (PFLAG, ["-nz"], "unknown", "z", "-nz", 2),
        (PFLAG, ["-vo"], "needs_value", "o", "-vo", 2),
        (PFLAG, ["--out", "x"], "unknown", "out", "--out", 0),
        (NEXT, ["-aL"], "needs_value", "L", "-aL", 2),
        (WORDS, ["-s"], "needs_value", "s", "-s", 0),
    ],
)
def test_variants_errors(
    spec: CommandSpec, argv: list[str], kind: str, name: str, word: str, at: int
) -> None:
    with pytest.raises(UsageError) as info:
        parse_args(spec, argv)
    e = info.value
    assert (e.kind, e.name, e.word, e.at) == (kind, name, word, at)


def test_error_carries_what_came_before() -> None:
    with pytest.raises(UsageError) as info:
        parse_args(EXACT, ["--indent", "9", "-n", "--bogus"])
    assert info.value.parsed is not None
    assert info.value.parsed.order == [("indent", "9"), ("null", True)]


def test_value_error_names_option_and_text() -> None:
    with pytest.raises(OptionValueError) as info:
        parse_args(PFLAG, ["-n=maybe"])
    assert info.value.option is not None and info.value.option.long == "null" and info.value.value == "maybe"


def test_operand_positions_and_dashdash() -> None:
    parsed, operands = parse_args(EXACT, ["p", "--args", "a", "-n", "b", "--", "c"])
    assert operands == ["p", "a", "b", "c"]
    assert parsed.operand_at == [0, 1, 2, 2]  # how many options came before each
    assert parsed.dashdash == 3


def test_specs_built_per_call_do_not_pile_up() -> None:
    """The parser caches each spec's option tables; a spec built on every call (diff3 does) must
    not grow that cache without bound."""
    from sandbash.commands import options

    for k in range(options._TABLES_MAX * 2):
        parse_args(CommandSpec(name=f"t{k}", opts=(Opt("a"),)), ["-a"])
    assert len(options._TABLES) <= options._TABLES_MAX
