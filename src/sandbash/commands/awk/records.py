"""Reading records (RS) and splitting them into fields (FS, FPAT, FIELDWIDTHS, CSV).

A `Reader` decodes its byte stream incrementally and re-reads RS before each
record, so assigning RS mid-stream takes effect at the next record as in gawk.
With a one-character RS (the usual newline) it splits whole chunks at once
and hands out the pieces, which keeps the per-record cost tiny.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Mapping

from ...limits import Budget, MemoryHold
from ...stdio.streams import BIG_BATCH, Stream, batch_charge
from .regex import Regex, RegexError, compile_regex

Splitter = Callable[[str], list[str]]

# fixed patterns (not user input): characters str.split() treats as
# whitespace but awk does not, and awk's default field
_ODD_SPACE = re.compile("[\r\v\f\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_ODD_ASCII = "\r\v\f\x1c\x1d\x1e\x1f"  # (the ASCII ones of _ODD_SPACE)


def _odd_space(text: str) -> bool:
    """Whether `text` holds a character str.split() takes for a blank and awk does not. ASCII text
    (the common case) by seven `in` tests, each a memchr-speed scan: the character class's search
    steps through every character about 25 times slower (0.33 s of a 20 MB awk run)."""
    if text.isascii():
        return any(c in text for c in _ODD_ASCII)
    return _ODD_SPACE.search(text) is not None


_AWK_FIELD = re.compile("[^ \t\n]+")

SINGLE, PARAGRAPH, REGEX, CSV = 0, 1, 2, 3


class Reader:
    """Records from one input; `rt` is the terminator of the last record."""

    __slots__ = (
        "stream",
        "ns",
        "dec",
        "buf",
        "pos",
        "lines",
        "idx",
        "eof",
        "rs_obj",
        "mode",
        "sep",
        "rx",
        "rt",
        "csv",
        "icase_obj",
        "charge",
        "odd",
        "budget",
    )

    def __init__(
        self,
        stream: Stream,
        ns: Mapping[str, object],
        csv: bool = False,
        charge: Callable[[int], None] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.stream = stream
        self.ns = ns
        self.dec = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.buf = ""
        self.pos = 0  # paragraph and regex modes read buf from here (earlier text is context)
        self.lines: list[str] = []
        self.idx = 0
        self.eof = False
        self.rs_obj: object = None
        self.mode = SINGLE
        self.sep = "\n"
        self.rx: Regex | None = None
        self.rt = ""
        self.csv = csv
        self.icase_obj: object = None
        self.charge = charge
        self.budget = budget
        # set once any decoded text holds a character str.split() would take
        # for whitespace but awk does not; until then fields split with str.split()
        self.odd = False

    # ------------------------------------------------------------ RS

    def _set_rs(self, rs: object) -> None:
        # put back lines already split with the old separator
        if self.idx < len(self.lines):
            sep = self.sep
            self.buf = "".join(line + sep for line in self.lines[self.idx :]) + self.buf[self.pos :]
            self.pos = 0
        self.lines = []
        self.idx = 0
        self.rs_obj = rs
        text = rs if isinstance(rs, str) else _num_text(rs)
        self.rx = None
        if text == "":
            self.mode = PARAGRAPH
        elif len(text) == 1:
            self.mode = CSV if self.csv and text == "\n" else SINGLE
            self.sep = text
        else:
            self.mode = REGEX
            icase = bool(self.ns.get("V_IGNORECASE"))
            try:
                self.rx = compile_regex(text, icase, self.budget)
            except RegexError:
                self.mode = SINGLE
                self.sep = text[0]

    def _more(self) -> bool:
        """Decode more input into buf, at least as much as is pending there (a record longer than a
        chunk grows its buffer geometrically: joined and searched O(n) times in all, where a chunk
        at a time was quadratic, seconds of copying for a 20 MB line); False at end of input. What
        is held of a long record is charged to max_memory while it is read, then checked against
        it with the copies a program makes of it (`batch_charge`): a line with no end grows to
        the limit, not to the host's memory."""
        if self.eof:
            return False
        pending = len(self.buf) - self.pos
        parts: list[str] = []
        got = 0
        hold = MemoryHold(self.budget) if self.budget is not None and pending >= BIG_BATCH else None
        try:
            while True:
                chunk = self.stream.read_chunk()
                if not chunk:
                    self.eof = True
                    tail = self.dec.decode(b"", True)
                    if tail:
                        self.odd = self.odd or _odd_space(tail)
                        parts.append(tail)
                    break
                if self.charge is not None:
                    self.charge(len(chunk) >> 10)
                text = self.dec.decode(chunk)
                if not self.odd and _odd_space(text):
                    self.odd = True
                parts.append(text)
                got += len(text)
                if got >= pending:
                    break
                if hold is not None:
                    hold.set(pending + got)
            if self.pos:
                # drop what was read, keeping one character so `^` cannot match here again
                self.buf = self.buf[self.pos - 1 :]
                self.pos = 1
            if hold is not None:
                hold.set(2 * (pending + got))  # the parts and their joined copy
            parts.insert(0, self.buf)
            self.buf = "".join(parts)
            if hold is not None:
                hold.set(batch_charge(len(self.buf)))
        finally:
            if hold is not None:
                hold.close()
        return not self.eof or got > 0

    # ------------------------------------------------------------ reading

    def read(self) -> str | None:
        rs = self.ns["V_RS"]
        if rs is not self.rs_obj:
            self._set_rs(rs)
        if self.mode == SINGLE:
            idx = self.idx
            if idx < len(self.lines):
                self.idx = idx + 1
                self.rt = self.sep
                return self.lines[idx]
            return self._read_single()
        if self.mode == PARAGRAPH:
            return self._read_paragraph()
        if self.mode == CSV:
            return self._read_csv()
        return self._read_regex()

    def batch(self) -> list[str] | None:
        """All complete records already split (newline-like RS), taken at
        once; None when the caller must use read()."""
        rs = self.ns["V_RS"]
        if rs is not self.rs_obj:
            self._set_rs(rs)
        if self.mode != SINGLE:
            return None
        if self.idx >= len(self.lines):
            rec = self._read_single()
            if rec is None:
                return []
            if not self.lines:
                return [rec]  # the last record, unterminated
            self.idx -= 1
        lines = self.lines[self.idx :] if self.idx else self.lines
        self.lines = []
        self.idx = 0
        return lines

    def _read_single(self) -> str | None:
        sep = self.sep
        while True:
            if sep in self.buf:
                parts = self.buf.split(sep)
                self.buf = parts.pop()
                self.lines = parts
                self.idx = 1
                self.rt = sep
                return parts[0]
            if not self._more():
                self.lines = []
                self.idx = 0
                if self.buf:
                    rec = self.buf
                    self.buf = ""
                    self.rt = ""
                    return rec
                return None

    def _read_paragraph(self) -> str | None:
        while True:
            buf = self.buf
            n = len(buf)
            pos = self.pos
            while pos < n and buf[pos] == "\n":
                pos += 1
            self.pos = pos
            if pos < n:
                i = buf.find("\n\n", pos)
                if i >= 0:
                    j = i + 2
                    while j < n and buf[j] == "\n":
                        j += 1
                    if j < n or self.eof:
                        self.rt = buf[i:j]
                        self.pos = j
                        return buf[pos:i]
            if not self._more():
                rest = self.buf[self.pos :]
                self.buf = ""
                self.pos = 0
                rec = rest.rstrip("\n")
                self.rt = rest[len(rec) :]
                return rec if rest else None

    def _read_regex(self) -> str | None:
        rx = self.rx
        assert rx is not None
        while True:
            buf = self.buf
            pos = self.pos
            m = None
            at = pos
            while at <= len(buf):
                found = rx.search(buf, at)
                if found is None:
                    break
                if found[1] > found[0]:
                    m = found
                    break
                at = found[0] + 1
            if m is not None and (m[1] < len(buf) or self.eof):
                self.rt = buf[m[0] : m[1]]
                self.pos = m[1]
                return buf[pos : m[0]]
            if not self._more():
                if m is not None:
                    continue
                rec = self.buf[self.pos :]
                self.buf = ""
                self.pos = 0
                if rec:
                    self.rt = ""
                    return rec
                return None

    def _read_csv(self) -> str | None:
        """Newline-terminated records whose quoted fields may hold newlines."""
        rec = self._line()
        if rec is None:
            return None
        while rec.count('"') % 2 == 1:
            more = self._line()
            if more is None:
                break
            rec += "\n" + more
        return rec

    def _line(self) -> str | None:
        if self.idx < len(self.lines):
            line = self.lines[self.idx]
            self.idx += 1
            self.rt = self.sep
            return line
        return self._read_single()

    def close(self) -> None:
        self.stream.close()


def _num_text(v: object) -> str:
    from .fmt import num2str

    return num2str(v, "%.6g") if isinstance(v, float) else str(v)


# ---------------------------------------------------------------- fields


def split_default(rec: str) -> list[str]:
    if _ODD_SPACE.search(rec) is None:
        return rec.split()
    return _AWK_FIELD.findall(rec)


def split_chars(rec: str) -> list[str]:
    return list(rec)


def _literal_splitter(sep: str) -> Splitter:
    def split(rec: str) -> list[str]:
        return rec.split(sep) if rec else []

    return split


def regex_split(rx: Regex, rec: str) -> list[str]:
    """Split on regex matches (empty matches never separate)."""
    if not rec:
        return []
    if rx.literal:  # plain text: its matches are str.split's, left to right without overlap
        return rec.split(rx.literal)
    out: list[str] = []
    pos = 0
    for st, en in rx.finditer(rec):
        if en == st:
            continue
        out.append(rec[pos:st])
        pos = en
    out.append(rec[pos:])
    return out


def _regex_splitter(rx: Regex) -> Splitter:
    def split(rec: str) -> list[str]:
        return regex_split(rx, rec)

    return split


def fs_splitter(
    fs: str, icase: bool = False, paragraph: bool = False, budget: Budget | None = None
) -> Splitter:
    """The splitter for a value of FS (raises RegexError for a bad regex)."""
    if fs == " ":
        return split_default
    if paragraph:
        # newline always separates fields in paragraph mode
        if len(fs) == 1 and fs != "\\":  # (IGNORECASE leaves a one-character FS as it is, as gawk)
            sep = fs

            def split_para(rec: str) -> list[str]:
                return rec.replace("\n", sep).split(sep) if rec else []

            return split_para
        if fs == "":
            return split_chars
        return _regex_splitter(compile_regex("(" + fs + ")|\n", icase, budget))
    if fs == "":
        return split_chars
    one = literal_separator(fs, icase, budget)
    if one is not None:
        return _literal_splitter(one)
    return _regex_splitter(compile_regex(fs, icase, budget))


def literal_separator(fs: str, icase: bool = False, budget: Budget | None = None) -> str | None:
    """The text a value of FS (not " ") splits records at as plain text, outside paragraph mode:
    one character (IGNORECASE leaves it case-sensitive: gawk 5.2's FS="a" does not split at "A",
    split()'s separator likewise), or a longer FS that is plain text as a regex and not under
    IGNORECASE (FS="ms=", ", ", "::": its matches are str.split's, left to right without overlap,
    so a record is one split, not a call per separator); None when it is a regex or empty."""
    if len(fs) == 1:
        return fs
    return (compile_regex(fs, icase, budget).literal or None) if fs else None


def fpat_splitter(fpat: str, icase: bool = False, budget: Budget | None = None) -> Splitter:
    rx = compile_regex(fpat, icase, budget)

    def split(rec: str) -> list[str]:
        if not rec:
            return []
        return [rec[st:en] for st, en in rx.finditer(rec)]

    return split


def fieldwidths_splitter(spec: str) -> Splitter | None:
    """FIELDWIDTHS: "[skip:]width ..." with an optional final "*"; None if invalid."""
    widths: list[tuple[int, int]] = []  # (skip, width); width -1 = the rest
    items = spec.split()
    for k, item in enumerate(items):
        skip_s, colon, w = item.rpartition(":")
        if not colon:
            skip_s = "0"
        if w == "*" and k == len(items) - 1:
            width = -1
        elif w.isdigit():
            width = int(w)
        else:
            return None
        if not skip_s.isdigit():
            return None
        widths.append((int(skip_s), width))

    def split(rec: str) -> list[str]:
        out: list[str] = []
        pos = 0
        n = len(rec)
        for skip, width in widths:
            pos += skip
            if pos >= n:
                break
            if width < 0:
                out.append(rec[pos:])
                pos = n
                break
            out.append(rec[pos : pos + width])
            pos += width
        return out

    return split


def split_csv(rec: str) -> list[str]:
    """RFC 4180 fields: commas separate, double quotes enclose, "" is a quote."""
    if not rec:
        return []
    out: list[str] = []
    i = 0
    n = len(rec)
    while True:
        if i < n and rec[i] == '"':
            i += 1
            parts: list[str] = []
            while i < n:
                j = rec.find('"', i)
                if j < 0:
                    parts.append(rec[i:])
                    i = n
                    break
                parts.append(rec[i:j])
                if j + 1 < n and rec[j + 1] == '"':
                    parts.append('"')
                    i = j + 2
                    continue
                i = j + 1
                break
            # text after the closing quote up to the comma belongs to the field
            j = rec.find(",", i)
            if j < 0:
                parts.append(rec[i:])
                out.append("".join(parts))
                return out
            parts.append(rec[i:j])
            out.append("".join(parts))
            i = j + 1
        else:
            j = rec.find(",", i)
            if j < 0:
                out.append(rec[i:])
                return out
            out.append(rec[i:j])
            i = j + 1
