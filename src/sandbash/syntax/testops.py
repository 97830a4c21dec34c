"""The operators of a conditional expression, one table for `test`/`[` (posix/testexpr.py) and
`[[ ]]` (the parser, which adds `=~`): a word is an operator where these sets say so."""

from __future__ import annotations

# unary file and string tests (bash's test_unop: `-o` is the option test, `-v` a variable's)
UNARY_TESTS = frozenset("-" + c for c in "abcdefghkprstuwxGLNOSovRzn")
# binary string, integer and file comparisons
BINARY_TESTS = frozenset(
    ["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"]
)
