"""A long scalar written as PyYAML's Emitter writes it, with its work done by str and regex methods.

PyYAML decides a scalar's style (`analyze_scalar`) and writes it (`write_plain`, `write_double_quoted`,
`write_literal`) one character at a time in Python, calling nothing between two writes: a 9 MB string
took ~6 s of CPU there with no deadline check (a 2 s timeout ran past by seconds). For a scalar of
_LONG characters or more, the same decisions are made here by searches over the whole text (C loops,
milliseconds a megabyte), and the text is written in _PIECE pieces, so the dumper's stream (yqyaml's
_Sink) charges it and checks the deadline as it goes. The output is PyYAML's, byte for byte:
tests/unit/commands/test_yqemit.py compares both on random texts of every character class these
methods look at. Shorter scalars go to PyYAML unchanged."""

from __future__ import annotations

import re

import yaml  # type: ignore[import-untyped,unused-ignore]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# characters PyYAML counts as whitespace around an indicator, and as line breaks
_WS = "\0 \t\r\n\x85\u2028\u2029"
_BR = "\n\x85\u2028\u2029"
_LONG = 1 << 16
_PIECE = 1 << 18  # characters written at once (the sink settles and checks the deadline each 256 KB)

# the character tests of Emitter.analyze_scalar, each over the whole scalar
_INNER_FLOW = re.compile("[,?\\[\\]{}:]")  # searched from index 1
_COLON_BEFORE_WS = re.compile(":(?:[\0 \t\r\n\x85\u2028\u2029]|\\Z)")  # from index 1
_HASH_AFTER_WS = re.compile("[\0 \t\r\n\x85\u2028\u2029]#")
_BREAK = re.compile("[\n\x85\u2028\u2029]")
_BREAK_SPACE = re.compile("[\n\x85\u2028\u2029] ")
_SPACE_BREAK = re.compile(" [\n\x85\u2028\u2029]")
# special: not printable for the emitter (with allow_unicode: BMP but surrogates, U+FEFF, U+FFFE/F;
# above it, all but U+10FFFF, which PyYAML's range test leaves out)
_SPECIAL_UNICODE = re.compile("[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe]")
_SPECIAL_ASCII = re.compile("[^\n\x20-\x7e]")
# what write_double_quoted escapes
_ESCAPED_UNICODE = re.compile('["\\\\\x85\u2028\u2029\ufeff]|[^\x20-\x7e\xa0-\ud7ff\ue000-\ufffd]')
_ESCAPED_ASCII = re.compile('["\\\\\x85\u2028\u2029\ufeff]|[^\x20-\x7e]')
_RUNS = re.compile("[\n\x85\u2028\u2029]+|[^\n\x85\u2028\u2029]+")


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = yaml.emitter.Emitter.ESCAPE_REPLACEMENTS.get(ch)
    if named is not None:
        return "\\" + str(named)
    if ch <= "\xff":
        return f"\\x{ord(ch):02X}"
    if ch <= "\uffff":
        return f"\\u{ord(ch):04X}"
    return f"\\U{ord(ch):08X}"


def analyze(scalar: str, allow_unicode: bool) -> Any:
    """Emitter.analyze_scalar's ScalarAnalysis of a non-empty scalar, from whole-text searches."""
    first, last = scalar[0], scalar[-1]
    followed = len(scalar) == 1 or scalar[1] in _WS
    block = flow = scalar.startswith(("---", "..."))
    if first in "#,[]{}&*!|>'\"%@`" or (first == "-" and followed):
        block = flow = True
    elif first in "?:":
        flow = True
        block = block or followed
    if _INNER_FLOW.search(scalar, 1):
        flow = True
    if _COLON_BEFORE_WS.search(scalar, 1) or _HASH_AFTER_WS.search(scalar):
        block = flow = True
    breaks = _BREAK.search(scalar) is not None
    special = (_SPECIAL_UNICODE if allow_unicode else _SPECIAL_ASCII).search(scalar) is not None
    space_break = special or _SPACE_BREAK.search(scalar) is not None
    break_space = _BREAK_SPACE.search(scalar) is not None
    ends = first in _BR or last in _BR or first == " " or last == " "
    # which styles these allow, as analyze_scalar decides
    flow_plain = not (ends or break_space or space_break or breaks or flow)
    block_plain = not (ends or break_space or space_break or breaks or block)
    return yaml.emitter.ScalarAnalysis(
        scalar=scalar,
        empty=False,
        multiline=breaks,
        allow_flow_plain=flow_plain,
        allow_block_plain=block_plain,
        allow_single_quoted=not (break_space or space_break),
        allow_double_quoted=True,
        allow_block=not (last == " " or space_break),
    )


class LongScalars(yaml.emitter.Emitter):  # type: ignore[misc]
    """An Emitter whose long scalars are analysed and written by the functions above."""

    whitespace: bool  # (set by Emitter.__init__: the base class is untyped)

    def _long(self, text: str) -> bool:
        # (a text stream only; and never where PyYAML would fold a line at best_width: yq's is 2**30,
        # and an escape is at most 10 characters)
        return len(text) >= _LONG and not self.encoding and self.column + 10 * len(text) < self.best_width

    def analyze_scalar(self, scalar: str) -> Any:
        if len(scalar) < _LONG:
            return super().analyze_scalar(scalar)
        return analyze(scalar, bool(self.allow_unicode))

    def _write_pieces(self, text: str, escape: re.Pattern[str] | None = None, column: bool = True) -> None:
        for at in range(0, len(text), _PIECE):
            data = text[at : at + _PIECE]
            if escape is not None:
                data = escape.sub(_escape, data)
            if column:
                self.column += len(data)
            self.stream.write(data)

    def write_plain(self, text: str, split: bool = True) -> None:
        # a plain scalar has no line break (analyze_scalar allows no plain style then), and a space
        # folds only past best_width: the text goes out as it is
        if not self._long(text) or _BREAK.search(text):
            super().write_plain(text, split)
            return
        if self.root_context:
            self.open_ended = True
        if not self.whitespace:
            self.column += 1
            self.stream.write(" ")
        self.whitespace = False
        self.indention = False
        self._write_pieces(text)

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if not self._long(text):
            super().write_double_quoted(text, split)
            return
        self.write_indicator('"', True)
        self._write_pieces(text, _ESCAPED_UNICODE if self.allow_unicode else _ESCAPED_ASCII)
        self.write_indicator('"', False)

    def write_literal(self, text: str) -> None:
        if not self._long(text):
            super().write_literal(text)
            return
        hints = self.determine_block_hints(text)
        self.write_indicator("|" + hints, True)
        if hints[-1:] == "+":
            self.open_ended = True
        self.write_line_break()
        # runs of line breaks and of other characters, as write_literal meets them: a line is
        # indented before it and written without moving the column; the text ends with a break
        for run in _RUNS.finditer(text):
            part = run.group()
            if part[0] in _BR:
                for br in part:
                    self.write_line_break(None if br == "\n" else br)
                if run.end() < len(text):
                    self.write_indent()
            else:
                if run.start() == 0:
                    self.write_indent()
                self._write_pieces(part, column=False)
        if text[-1] not in _BR:
            self.write_line_break()
