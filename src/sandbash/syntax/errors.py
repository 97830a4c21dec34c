"""The one exception type the parser raises."""

from __future__ import annotations


class ParseError(Exception):
    """A syntax error, carrying bash's wording.

    `message` is the text after `bash: line N: ` (for example
    "syntax error near unexpected token `)'"; empty where bash reports nothing of the error
    itself, as for `[[ ]]`); `line` is the line bash reports;
    `source_line` is the offending line bash echoes after a token error; `col` the 1-based
    column of the offending token (0: not known).
    `incomplete` is True when more input could complete the script (EOF inside
    a construct), which an interactive prompt uses to ask for more lines.
    """

    def __init__(
        self,
        message: str,
        line: int,
        source_line: str | None = None,
        incomplete: bool = False,
        extra: list[tuple[str, int]] | None = None,
        keep_status: bool = False,
        discard_line: bool = False,
        col: int = 0,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.source_line = source_line
        self.incomplete = incomplete
        # further (message, line) pairs bash prints after the first one
        self.extra = extra or []
        # errors inside [[ ]] end the script with the previous $?, not 2 (bash quirk)
        self.keep_status = keep_status
        # a bad compound assignment `x=(a & b)`: bash reports it, discards the rest of that input
        # line with status 1 and reads on (parse.y's DISCARD), in scripts, -c strings, eval and source
        self.discard_line = discard_line
        self.col = col
        # raised while reading a `$( )` or `<( )`: bash's parse_comsub makes a kept status of 0 a 1
        self.in_comsub = False


class ParseLimit(ParseError):
    """The input is over a parser limit (`limit`: max_tokens or max_ast_depth)."""

    def __init__(self, limit: str, value: int, line: int) -> None:
        super().__init__(f"{limit} exceeded", line)
        self.limit = limit
        self.value = value
