"""Options v2 in GNU mode: values converted while parsing, 'last one wins' groups."""

from __future__ import annotations

import pytest

from sandbash.commands.context import CommandExit, Ctx
from sandbash.commands.options import CommandSpec, Opt, OptionValueError, UsageError, parse_args
from sandbash.limits import Budget, Limits
from sandbash.stdio.streams import BufferWriter, BytesReader
from sandbash.testing import make_vfs


def _lines(text: str) -> int:
    if not text.isdigit():
        raise OptionValueError(f"invalid number of lines: '{text}'")
    return int(text)


SPEC = CommandSpec(
    name="tool",
    opts=(
        Opt("n", "lines", arg="required", type=_lines),
        Opt("w", "width", arg="optional", type=int),
        Opt("l", None, group="format", const="long"),
        Opt("1", None, group="format", const="single"),
        Opt("C", None, group="format", const="columns"),
        Opt(None, "format", arg="required", group="format"),
        Opt("r", "reverse", group="order"),
        Opt("t", "time", group="order"),
        Opt("v", "verbose", count=True),
    ),
)


@pytest.mark.parametrize(
    ("argv", "values", "operands"),
    [
        (["-n5", "f"], {"lines": 5}, ["f"]),
        (["--lines", "12", "--lines=3"], {"lines": 3}, []),
        (["f", "-n", "7"], {"lines": 7}, ["f"]),
        (["--width=40"], {"width": 40}, []),
        (["--width"], {"width": None}, []),
        (["-l1"], {"format": "single"}, []),
        (["-1", "-l"], {"format": "long"}, []),
        (["-C", "--format", "commas"], {"format": "commas"}, []),
        (["--format=x", "-l"], {"format": "long"}, []),
        (["-rt"], {"order": "time"}, []),
        (["--time", "-r"], {"order": "reverse"}, []),
        (["-vv", "--verbose"], {"verbose": 3}, []),
    ],
)
def test_values(argv: list[str], values: dict[str, object], operands: list[str]) -> None:
    parsed, rest = parse_args(SPEC, argv)
    assert parsed.values == values
    assert rest == operands


def test_order_keeps_every_converted_value() -> None:
    parsed, _ = parse_args(SPEC, ["-n1", "-l", "-n", "2", "-C"])
    assert parsed.order == [("lines", 1), ("format", "long"), ("lines", 2), ("format", "columns")]


def test_conversion_error_names_the_value() -> None:
    with pytest.raises(OptionValueError) as e:
        parse_args(SPEC, ["-n", "x"])
    assert e.value.message == "invalid number of lines: 'x'"


def test_usage_errors_are_unchanged() -> None:
    with pytest.raises(UsageError) as e:
        parse_args(SPEC, ["-z"])
    assert e.value.message == "invalid option -- 'z'"


def test_ctx_parse_prints_a_conversion_error() -> None:
    err = BufferWriter()
    ctx = Ctx(
        "tool", ["-n", "x"], BytesReader(b""), BufferWriter(), err, make_vfs().view("/"), {}, Budget(Limits())
    )
    with pytest.raises(CommandExit) as e:
        ctx.parse(SPEC)
    assert e.value.status == 1
    assert err.getvalue() == b"tool: invalid number of lines: 'x'\n"
