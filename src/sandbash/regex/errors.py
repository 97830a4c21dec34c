"""The one error type of the regex layer, worded like glibc's regerror()."""

from __future__ import annotations

# glibc's messages (regcomp.c __re_error_msgid), used by grep, sed, expr, awk
UNMATCHED_BRACKET = "Unmatched [, [^, [:, [., or [="
UNMATCHED_PAREN = "Unmatched ( or \\("
UNMATCHED_RPAREN = "Unmatched ) or \\)"
UNMATCHED_BRACE = "Unmatched \\{"
BAD_BRACE = "Invalid content of \\{\\}"
BAD_BACKREF = "Invalid back reference"
BAD_PRECEDING = "Invalid preceding regular expression"
BAD_RANGE = "Invalid range end"
BAD_CLASS = "Invalid character class name"
BAD_COLLATE = "Invalid collation character"
TRAILING_BACKSLASH = "Trailing backslash"
TOO_BIG = "Regular expression too big"
PREMATURE_END = "Premature end of regular expression"
INVALID = "Invalid regular expression"


class RegexError(Exception):
    """A pattern that does not compile.

    `message` is the tool-independent text (`Unmatched ( or \\(`); `kind` is
    "syntax" normally and "class_syntax" for `[:space:]` outside a bracket,
    which GNU tools report without their usual prefix (sed exits 4 there).
    `offset` is the pattern index where the problem was seen, when known."""

    def __init__(self, message: str, kind: str = "syntax", offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.offset = offset

    def __str__(self) -> str:
        return self.message
