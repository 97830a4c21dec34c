"""Pure implementations shared by the builtins and the commands of the same
name (echo, printf, test): no shell state, no interpreter imports."""


def number_text(s: str) -> str:
    """The part of `s` bash's legal_number reads as a number: strtoimax skips leading C-locale
    spaces (a newline, \r, \v or \f too), then only blanks (space, tab) may follow the digits.
    (Here, not in testexpr.py, which the builtins' option parser and `exit`/`shift` would import.)"""
    return s.lstrip(" \t\n\v\f\r").rstrip(" \t")
