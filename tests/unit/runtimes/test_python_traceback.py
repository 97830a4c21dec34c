"""python3's traceback carets drawn as CPython 3.11 draws them from Monty's `~` underlines."""

from __future__ import annotations

import pytest

from sandbash.commands.runtimes.python_traceback import _cpython_carets

HEAD = 'Traceback (most recent call last):\n  File "t.py", line 3, in <module>\n'


@pytest.mark.parametrize(
    ("source", "monty", "cpython"),
    [
        # a call inside a line: all `^`
        ("    y = f(1, 0) + 2", "        ~~~~~~~", "        ^^^^^^^"),
        # the whole line: no carets
        ("    main()", "    ~~~~~~", None),
        ("    return int(s)", "           ~~~~~~", "           ^^^^^^"),
        # a binary operation: its operator (two characters for `//`, `**`) between `~` operands
        ("    x = a / b", "        ~~~~~", "        ~~^~~"),
        ("    return a // b", "           ~~~~~~", "           ~~^^~~"),
        ("    x = (1)//n", "        ~~~~~~", "        ~~~^^~"),
        ("    x = 2 ** (n)", "        ~~~~~~~~", "        ~~^^~~~~"),
        # a whole line that is a binary operation keeps its anchors
        ("    a / b", "    ~~~~~", "    ~~^~~"),
        # a subscript: its brackets
        ('    return d["z"] + 1', "           ~~~~~~", "           ~^^^^^"),
        ("    y = [1][5]", "        ~~~~~~", "        ~~~^^^"),
        ("    y = m[i][j]", "        ~~~~~~~", "        ~~~~^^^"),
        # not one run of `~` under the line: left as drawn
        ("    y = f(x)", "        ~~~~ ~", "        ~~~~ ~"),
    ],
)
def test_carets_as_cpython_draws_them(source: str, monty: str, cpython: str | None) -> None:
    shown = _cpython_carets(HEAD + source + "\n" + monty + "\nValueError: x")
    expected = HEAD + source + "\n" + (cpython + "\n" if cpython is not None else "") + "ValueError: x"
    assert shown == expected


def test_lines_that_are_not_carets_are_kept() -> None:
    text = HEAD + "    x = '~~~'\nValueError: ~~~"
    assert _cpython_carets(text) == text
