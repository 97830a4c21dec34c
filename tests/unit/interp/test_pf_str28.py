"""Issue 23's slices of names (pf-str28): `${s:off:width}` whose offset and length are plain
decimal numbers or lone names is sliced by one generated function (interp/slicefn.py), which
takes only names holding a non-negative plain number and leaves everything else to the general
slice. Each value pair is compared with the same slice spelled `${s:$((off)):$((width))}` (the
general way, evaluated as arithmetic) and run compiled and walked."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from sandbash import Bash
from sandbash.errors import ExecutionLimitError
from sandbash.interp.slicefn import slice_fn
from sandbash.shvars.arrays import ELEMENT_OVERHEAD, elements_bytes, text_bytes
from sandbash.shvars.vars import Var, VarStore

from .walking import walking

VALUES = [
    "0",
    "1",
    "7",
    "10",
    "11",
    "",
    " 3",
    "03",
    "010",
    "-1",
    "-4",
    "-10",
    "-11",
    "2+1",
    "x",
    "k",
    "99999999999999999999",
]


def _script(left: str, right: str) -> str:
    lines = ["s=abcdefghij k=2 x="]
    for v in VALUES:
        for w in VALUES:
            lines.append(f"off='{v}' width='{w}'")
            lines.append(f"( printf '[%s]' \"{left}\" ) 2>&1; ( printf '[%s]\\n' \"{right}\" ) 2>&1")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("walker", [False, True])
def test_names_slice_as_their_arithmetic_does(walker: bool) -> None:
    with walking(walker):
        fast = Bash().exec(_script("${s:off:width}", "${s:off}"))
        general = Bash().exec(_script("${s:$((off)):$((width))}", "${s:$((off))}"))
    assert fast.exit_code == general.exit_code == 0
    # (an error names the text written: `width: substring expression < 0`, `-4: ...` for the other)
    assert _texts(fast.stdout) == _texts(general.stdout)
    assert "substring expression < 0" in fast.stdout


def _texts(out: str) -> str:
    return re.sub(r": [^:\n]*: substring expression", ": W: substring expression", out)


@pytest.mark.parametrize(
    ("offset", "length", "values", "expected"),
    [
        ("a", "b", {"a": "2", "b": "3"}, "cde"),
        ("a", None, {"a": "8"}, "ij"),
        ("a", 2, {"a": "12"}, ""),
        (1, "b", {"b": "0"}, ""),
        ("a", "b", {"a": "-1", "b": "3"}, None),  # negative: the general way
        ("a", "b", {"a": "2", "b": "-3"}, None),
        ("a", "b", {"a": "02", "b": "3"}, None),  # octal
        ("a", "b", {"a": "2"}, None),  # unset
        ("a", "b", {"a": "2", "b": "1+1"}, None),
        ("a", "b", {"a": " 2", "b": "1"}, None),
    ],
)
def test_the_generated_slice_takes_only_plain_numbers(
    offset: str | int, length: str | int | None, values: dict[str, str], expected: str | None
) -> None:
    store = VarStore()
    for name, value in values.items():
        store.scopes[0][name] = Var(value)
    sliced = slice_fn(SimpleNamespace(vars=store), offset, length)  # type: ignore[arg-type]
    assert sliced("abcdefghij") == expected
    assert sliced("abcdefghij") == expected  # (again: the last value's number is kept)


@pytest.mark.parametrize(
    "values",
    [[], ["a"], ["abc", "", "de"], ["é"], ["x", "éé", "yz"], ["\udcff", "a"], ["a" * 300, "ü" * 3]],
)
def test_elements_bytes_counts_as_text_bytes_each(values: list[str]) -> None:
    assert elements_bytes(values) == sum(text_bytes(v) + ELEMENT_OVERHEAD for v in values)


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize("width", [1, 200, 254, 255, 256, 600])
def test_read_a_of_a_short_line_keeps_the_element_limit(walker: bool, width: int) -> None:
    # a line under CHARGE_FROM is split without a hold; its fields still count against
    # max_array_elements before the array is stored (and the array is left as it was)
    word = "w" * width
    script = f"f=(old); printf '%s\\n' '{word} {word} {word} {word} {word}' > in; read -r -a f < in; echo no"
    with walking(walker):
        with pytest.raises(ExecutionLimitError) as info:
            Bash().exec(script, limits={"max_array_elements": 4})
        ok = Bash().exec(
            script.replace("echo no", 'echo "${#f[@]} ${#f[4]}"'), limits={"max_array_elements": 5}
        )
    assert info.value.limit == "max_array_elements"
    assert info.value.result.stdout == ""
    assert ok.stdout == f"5 {width}\n"
