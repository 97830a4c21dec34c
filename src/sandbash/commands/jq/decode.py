"""Reading JSON texts the way jq does.

The fast path is the C scanner of the `json` module (linear, no
backtracking). When it rejects a text, or nests too deep for it, a
character-level parser that follows jq's own state machine takes over: it
accepts what jq accepts (`nan`, `01`, `.5`), nests up to jq's limit, and
reports errors with jq's wording and line/column.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator

from ...limits import LimitExceeded, LimitKind
from .memory import text_cost
from .numbers import json_constant, json_float, json_int, make_literal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 10000
_WS = " \t\r\n"
_STRUCT = "[,]{:}"
_NOTHING: Any = object()
# where a literal token (`true`, `12`, `nan`, or junk such as NUL bytes) ends
_LITERAL_END = re.compile(r'[ \t\r\n"\[\],{}:]')
# a character no number literal holds (`nan`, `infinity` and exponents included)
_NOT_NUMERIC = re.compile(r"[^0-9A-Za-z.+\-]")
# text the slow parser walks between deadline checks
_SLOW_STEP = 1 << 16

_decoder = json.JSONDecoder(parse_float=json_float, parse_int=json_int, parse_constant=json_constant)
_scan_once: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]


def _utf8_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    if lead < 0xC0 or lead > 0xF4:
        return 0
    if lead < 0xE0:
        return 2
    return 3 if lead < 0xF0 else 4


def _jq_replace(err: UnicodeError) -> tuple[str, int]:
    """Replace an invalid UTF-8 sequence the way jq's decoder does: a bad
    lead byte alone, a truncated sequence up to the first non-continuation
    byte (or the end), an overlong/surrogate sequence whole."""
    assert isinstance(err, UnicodeDecodeError)
    data = err.object
    i = err.start
    length = _utf8_length(data[i])
    if length <= 1:
        return "\ufffd", i + 1
    if i + length > len(data):
        return "\ufffd", len(data)
    for k in range(1, length):
        if not 0x80 <= data[i + k] < 0xC0:
            return "\ufffd", i + k
    return "\ufffd", i + length


codecs.register_error("jqreplace", _jq_replace)


def decode_text(data: bytes) -> str:
    """Bytes to text with jq's replacement of invalid UTF-8."""
    return data.decode("utf-8", "jqreplace")


class ParseError(Exception):
    """Malformed JSON: `message` is jq's text, e.g. 'Invalid literal at line 1, column 4'."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Fail(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _string_body(raw: str) -> str:
    """Decode the escapes between a string's quotes (jq's found_string)."""
    if "\\" not in raw:
        for c in raw:
            if c < " ":
                raise _Fail("Invalid string: control characters from U+0000 through U+001F must be escaped")
        return raw
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        i += 1
        if c != "\\":
            if c < " ":
                raise _Fail("Invalid string: control characters from U+0000 through U+001F must be escaped")
            out.append(c)
            continue
        if i >= n:
            raise _Fail("Expected escape character at end of string")
        c = raw[i]
        i += 1
        simple = {"\\": "\\", '"': '"', "/": "/", "b": "\b", "f": "\f", "t": "\t", "n": "\n", "r": "\r"}.get(
            c
        )
        if simple is not None:
            out.append(simple)
            continue
        if c != "u":
            raise _Fail("Invalid escape")
        if i + 4 > n:
            raise _Fail("Invalid \\uXXXX escape")
        cp = _unhex4(raw[i : i + 4])
        if cp < 0:
            raise _Fail("Invalid characters in \\uXXXX escape")
        i += 4
        if 0xD800 <= cp <= 0xDBFF:
            low = _unhex4(raw[i + 2 : i + 6]) if raw[i : i + 2] == "\\u" and i + 6 <= n else -1
            if not 0xDC00 <= low <= 0xDFFF:
                raise _Fail("Invalid \\uXXXX\\uXXXX surrogate pair escape")
            i += 6
            cp = 0x10000 + (((cp - 0xD800) << 10) | (low - 0xDC00))
        elif 0xDC00 <= cp <= 0xDFFF:
            cp = 0xFFFD
        out.append(chr(cp))
    return "".join(out)


def _unhex4(h: str) -> int:
    if len(h) != 4:
        return -1
    try:
        return int(h, 16) if all(c in "0123456789abcdefABCDEF" for c in h) else -1
    except ValueError:
        return -1


def _literal(tok: str) -> Any:
    if tok[0] == "t" or tok[0] == "f" or (tok[0] == "n" and tok[1:2] == "u"):
        value = {"true": True, "false": False, "null": None}.get(tok, _NOTHING)
        if value is _NOTHING:
            raise _Fail("Invalid literal")
        return value
    if "_" in tok:
        raise _Fail("Invalid numeric literal")
    try:
        return make_literal(tok)
    except ValueError:
        raise _Fail("Invalid numeric literal") from None


class SlowParser:
    """jq's parser state machine, for one value at a time.

    With a stream it reads more text as it goes, keeping only the token in
    progress: malformed input fails where jq fails without being read whole
    first, and a token (string or literal) longer than `cap` characters
    stops the parse."""

    def __init__(self, text: str, pos: int, line: int, col: int, stream: JsonStream | None = None) -> None:
        self.s = text
        self.pos = pos
        self.line = line
        self.col = col
        self._str_start = 0
        self.stream = stream
        self.cap = stream.token_cap if stream is not None else 0
        self.moved = 0  # total offset shift from dropping parsed text

    def error(self, reason: str, at_eof: bool = False) -> ParseError:
        where = " at EOF" if at_eof else ""
        return ParseError(f"{reason}{where} at line {self.line}, column {self.col}")

    def _refill(self, keep: int) -> int:
        """Read more text, dropping s[:keep]: how far offsets moved, or -1 at the end of the input."""
        stream = self.stream
        if stream is None or stream.eof:
            return -1
        stream.pos = keep
        stream._more(max(65536, len(self.s) - keep))
        self.s = stream.buf
        self.moved += keep
        return keep

    def _checkpoint(self) -> None:
        stream = self.stream
        if stream is not None and stream._checkpoint is not None:
            # a charge over 1000 makes the budget look at the clock every step
            stream._checkpoint(1 + _SLOW_STEP // 64)

    def _token_too_long(self, tok_start: int, n: int) -> _Fail:
        """A literal token past the cap: jq's complaint about it, placed just past the cap."""
        cap = self.cap
        self.col -= n - (tok_start + cap + 1)
        tok = self.s[tok_start : tok_start + cap + 1]
        if tok[0] == "t" or tok[0] == "f" or tok[:2] == "nu":
            return _Fail("Invalid literal")
        if _NOT_NUMERIC.search(tok) is not None:
            return _Fail("Invalid numeric literal")
        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, cap)

    def next_value(self) -> Any:
        """The next value, or _NOTHING at the end; advances self.pos past it."""
        s = self.s
        n = len(s)
        i = self.pos
        stack: list[Any] = []
        nxt: Any = _NOTHING
        tok_start = -1
        try:
            while True:
                stop = min(n, i + _SLOW_STEP)
                while i < stop:
                    ch = s[i]
                    i += 1
                    self.col += 1
                    if ch == "\n":
                        self.line += 1
                        self.col = 0
                    is_lit = ch not in _WS and ch != '"' and ch not in _STRUCT
                    if not is_lit:
                        if tok_start >= 0:
                            if nxt is not _NOTHING:
                                raise _Fail("Expected separator between values")
                            nxt = _literal(s[tok_start : i - 1])
                            tok_start = -1
                        if not stack and nxt is not _NOTHING:
                            # the delimiter starts the next value; positions are
                            # recomputed from the buffer on the next call
                            self.pos = i - 1
                            return nxt
                    if is_lit:
                        if tok_start < 0:
                            tok_start = i - 1
                        # the rest of the token at once (no newlines in it)
                        m = _LITERAL_END.search(s, i)
                        j = m.start() if m is not None else n
                        self.col += j - i
                        i = j
                    elif ch == '"':
                        moved = self.moved
                        i = self._string_end(i)
                        if self.moved != moved:
                            s = self.s
                            n = len(s)
                            stop = min(n, i + _SLOW_STEP)
                        value = _string_body(s[self._str_start : i - 1])
                        if nxt is not _NOTHING:
                            raise _Fail("Expected separator between values")
                        nxt = value
                    elif ch in _STRUCT:
                        nxt = self._token(ch, stack, nxt)
                    if not stack and nxt is not _NOTHING and tok_start < 0 and not is_lit:
                        self.pos = i
                        return nxt
                if i < n:
                    self._checkpoint()
                    continue
                # the end of the text read so far
                if tok_start >= 0 and self.cap and n - tok_start > self.cap:
                    raise self._token_too_long(tok_start, n)
                moved = self._refill(tok_start if tok_start >= 0 else i)
                if moved < 0:
                    break
                s = self.s
                n = len(s)
                i -= moved
                if tok_start >= 0:
                    tok_start -= moved
            # end of input
            self.pos = n
            if tok_start >= 0:
                try:
                    if nxt is not _NOTHING:
                        raise _Fail("Expected separator between values")
                    nxt = _literal(s[tok_start:n])
                except _Fail as f:
                    raise self.error(f.reason, at_eof=True) from None
            if stack:
                raise self.error("Unfinished JSON term", at_eof=True)
            return nxt
        except _Fail as f:
            self.pos = i
            raise self.error(f.reason) from None

    def _string_end(self, i: int) -> int:
        """Index just past the closing quote of a string whose body starts at i
        (reading more text as needed: offsets may move, see self.moved)."""
        s = self.s
        n = len(s)
        self._str_start = i
        while True:
            q = s.find('"', i)
            b = s.find("\\", i, q if q >= 0 else n)
            if b >= 0 and b + 2 <= n:
                self._advance(i, b + 2)
                i = b + 2
                continue
            if b < 0 and q >= 0:
                self._advance(i, q + 1)
                return q + 1
            # the text read so far ends inside the string (maybe after a backslash)
            stop = b if b >= 0 else n
            self._advance(i, stop)
            i = stop
            if self.cap and n - self._str_start > self.cap:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.cap)
            moved = self._refill(self._str_start)
            if moved < 0:
                self._advance(i, n)
                raise _EOFInString()
            s = self.s
            n = len(s)
            i -= moved
            self._str_start -= moved

    def _advance(self, start: int, end: int) -> None:
        chunk = self.s[start:end]
        nl = chunk.count("\n")
        if nl:
            self.line += nl
            self.col = len(chunk) - chunk.rfind("\n") - 1
        else:
            self.col += len(chunk)

    def _token(self, ch: str, stack: list[Any], nxt: Any) -> Any:
        if ch == "[" or ch == "{":
            if len(stack) >= MAX_DEPTH:
                raise _Fail("Exceeds depth limit for parsing")
            if nxt is not _NOTHING:
                raise _Fail("Expected separator between values")
            stack.append([] if ch == "[" else {})
            return _NOTHING
        if ch == ":":
            if nxt is _NOTHING:
                raise _Fail("Expected string key before ':'")
            if not stack or type(stack[-1]) is not dict:
                raise _Fail("':' not as part of an object")
            if type(nxt) is not str:
                raise _Fail("Object keys must be strings")
            stack.append(_Key(nxt))
            return _NOTHING
        if ch == ",":
            if nxt is _NOTHING:
                raise _Fail("Expected value before ','")
            if not stack:
                raise _Fail("',' not as part of an object or array")
            top = stack[-1]
            if type(top) is list:
                top.append(nxt)
            elif type(top) is _Key:
                stack.pop()
                stack[-1][top.name] = nxt
            else:
                raise _Fail("Objects must consist of key:value pairs")
            return _NOTHING
        if ch == "]":
            if not stack or type(stack[-1]) is not list:
                raise _Fail("Unmatched ']'")
            if nxt is not _NOTHING:
                stack[-1].append(nxt)
            elif stack[-1]:
                raise _Fail("Expected another array element")
            return stack.pop()
        # '}'
        if not stack:
            raise _Fail("Unmatched '}'")
        top = stack[-1]
        if nxt is not _NOTHING:
            if type(top) is not _Key:
                raise _Fail("Objects must consist of key:value pairs")
            stack.pop()
            stack[-1][top.name] = nxt
        else:
            if type(top) is not dict:
                raise _Fail("Unmatched '}'")
            if top:
                raise _Fail("Expected another key-value pair")
        return stack.pop()


class _Key:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _EOFInString(Exception):
    pass


def _needs_slow(text: str, start: int, end: int) -> bool:
    """Surrogate escapes (`\\uD800`-`\\uDFFF`): jq pairs or replaces them
    differently from the C scanner."""
    i = text.find("\\u", start, end)
    while i >= 0:
        hi = text[i + 2 : i + 4]
        if len(hi) == 2 and hi[0] in "dD" and hi[1] in "89abcdefABCDEF":
            return True
        i = text.find("\\u", i + 2, end)
    return False


def _too_deep(value: Any, text: str, start: int, end: int) -> bool:
    """Would jq's parser stack (containers plus pending object keys) pass
    MAX_DEPTH? Cheap when the text has too few brackets to get there; else
    a level-by-level walk, exact only for the rare very deep values."""
    if text.count("[", start, end) + text.count("{", start, end) < MAX_DEPTH // 2:
        return False
    level: list[Any] = [value]
    depth = 0
    while level:
        depth += 1
        if depth >= MAX_DEPTH // 2:
            return _too_deep_exact(value)
        nxt: list[Any] = []
        for v in level:
            children = v if type(v) is list else v.values()
            nxt.extend([x for x in children if type(x) is list or type(x) is dict])
        level = nxt
    return False


def _too_deep_exact(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return True
        if type(v) is list:
            stack.extend((x, depth + 1) for x in v if type(x) is list or type(x) is dict)
        elif type(v) is dict:
            stack.extend((x, depth + 2) for x in v.values() if type(x) is list or type(x) is dict)
    return False


def _is_scalar_end(value: Any) -> bool:
    t = type(value)
    return t is not str and t is not list and t is not dict


_FAST_MAX = 1 << 26  # characters of one unfinished value the C scanner may retry over
_SCAN_RATE = 4e6  # characters per second the scanner manages on dense values (with its hooks)
# text a read adds to the buffer at a time (a file's one large chunk is cut), and how much of the
# buffer one value may span before what it will decode to is charged ahead of the C scanner
_PIECE = 1 << 20


class JsonStream:
    """Successive JSON values from a text that arrives in chunks."""

    def __init__(
        self,
        chunks: Iterator[bytes],
        checkpoint: Callable[[int], None] | None = None,
        token_cap: int = 0,
        remaining: Callable[[], float] | None = None,
        charge: Callable[[int], None] | None = None,
    ) -> None:
        self._chunks = chunks
        # what decoded values hold, charged by memory.text_cost of their text: the values read are
        # charged as they are taken (take_cost), and a value spanning more than _PIECE of text
        # before the C scanner builds it in one call (a 60 MB array of `[]` held 1.8 GB, 5,000,000
        # `[[[[1]]]]` slurped held 1.1 GB under a 256 MB max_memory, nothing charged)
        self._charge = charge
        self.held = 0  # charged for the value in progress (live until it is made)
        self._in_slow = False
        self._taken = 0  # buf offset up to which the text read was charged
        self._untaken = 0  # cost of text read and dropped from buf, not yet charged
        self._spare = ""  # the rest of a large piece of decoded text
        self._spare_at = 0
        self._remaining = remaining  # seconds left in the run, when it has a deadline
        self.token_cap = token_cap  # longest string or literal token read (0: no cap)
        self._dec = codecs.getincrementaldecoder("utf-8")("jqreplace")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.lines_before = 0  # newlines in text already dropped from buf
        self._checkpoint = checkpoint
        self._started = False
        self.last_end = 0  # where the last value's parse completed (buf offset)
        self.failed = False

    def _more(self, want: int = 65536) -> bool:
        """Read at least `want` more characters (or to the end)."""
        if self.eof:
            return False
        got = 0
        parts = [self.buf[self.pos :]] if self.pos < len(self.buf) else []
        charge = self._charge
        if charge is not None:
            if self.pos > self._taken:
                self._untaken += text_cost(self.buf[self._taken : self.pos])
            self._taken = 0
            if not self._in_slow and len(self.buf) - self.pos <= _PIECE:
                self.held = 0  # (kept while a value larger than that is read further)
        self.lines_before += self.buf.count("\n", 0, self.pos)
        self.last_end -= self.pos
        while got < want:
            if self._spare:
                text = self._spare[self._spare_at : self._spare_at + _PIECE]
                self._spare_at += _PIECE
                if self._spare_at >= len(self._spare):
                    self._spare = ""
                parts.append(text)
                got += len(text)
                self._slow_read(text)
                continue
            chunk = next(self._chunks, None)
            if chunk is None:
                tail = self._dec.decode(b"", final=True)
                if tail:
                    parts.append(tail)
                self.eof = True
                break
            text = self._dec.decode(chunk)
            if not self._started:
                if text.startswith("\ufeff"):
                    text = text[1:]
                self._started = bool(text) or self._started
            if len(text) > _PIECE and charge is not None:
                self._spare, self._spare_at = text, _PIECE
                text = text[:_PIECE]
            parts.append(text)
            got += len(text)
            self._slow_read(text)
            if self._checkpoint is not None:
                self._checkpoint(1 + len(chunk) // 4096)
        self.buf = "".join(parts)
        self.pos = 0
        if self._in_slow:
            self._taken = len(self.buf)  # (charged as it was read: _slow_read)
        return True

    def _slow_read(self, text: str) -> None:
        """Text the slow parser reads: its values are built as it goes, charged now."""
        if self._in_slow and self._charge is not None:
            cost = text_cost(text)
            self.held += cost
            self._charge(cost)

    def take_cost(self) -> int:
        """What the text read since the last call decodes to (text_cost), to be charged."""
        cost = self._untaken
        self._untaken = 0
        if self.pos > self._taken:
            cost += text_cost(self.buf[self._taken : self.pos])
        self._taken = max(self._taken, self.pos)
        return cost

    def _before_scan(self, start: int) -> None:
        """Charge what the rest of a large buffer decodes to before the C scanner builds a value
        spanning it (not interruptible; the increase only, on a retry over more text)."""
        if self._charge is not None and len(self.buf) - start > _PIECE and self._taken < len(self.buf):
            if start > self._taken:  # (the values before it are charged by take_cost)
                self._untaken += text_cost(self.buf[self._taken : start])
            cost = text_cost(self.buf[start:])
            if cost > self.held:
                self._charge(cost - self.held)
                self.held = cost
            self._taken = len(self.buf)  # the rest of the buffer is charged: held while it is read

    def _skip_ws(self) -> None:
        buf = self.buf
        i = self.pos
        n = len(buf)
        while i < n and buf[i] in _WS:
            i += 1
        self.pos = i

    def next(self) -> Any:
        """The next value, or _NOTHING at the end. Raises ParseError."""
        if self.failed:
            return _NOTHING
        want = 1 << 20
        while True:
            self._skip_ws()
            if self.pos >= len(self.buf):
                if self.eof:
                    return _NOTHING
                self._more()
                continue
            start = self.pos
            self._before_scan(start)
            try:
                value, end = _scan_once(self.buf, start)
            except (StopIteration, ValueError) as e:
                # the C scanner cannot be interrupted and starts over on every
                # refill: an unfinished value it could not finish in the time
                # left (or past _FAST_MAX) goes to the slow parser instead
                grow = min(max(want, len(self.buf) * 7), _FAST_MAX, self._affordable() - len(self.buf))
                if (
                    not self.eof
                    and len(self.buf) - start < _FAST_MAX
                    and grow >= len(self.buf)
                    and self._maybe_cut(e)
                ):
                    self._more(grow)
                    want *= 8
                    continue
                return self._slow()
            except RecursionError:
                return self._slow()
            n = len(self.buf)
            if end >= n and not self.eof:
                self._more(want)
                want *= 4
                continue
            scalar = _is_scalar_end(value)
            if (
                scalar
                and end < n
                and self.buf[end] not in _WS
                and self.buf[end] not in _STRUCT
                and self.buf[end] != '"'
            ):
                # `01`, `truex`: jq reads one literal token there
                if not self.eof:
                    self._more(want)
                return self._slow()
            if _needs_slow(self.buf, start, end):
                return self._slow()
            if not scalar and end - start > 10000 and _too_deep(value, self.buf, start, end):
                return self._slow()
            self.pos = end
            self.last_end = end if scalar else end - 1
            return value

    def _affordable(self) -> int:
        """How many characters one more scan may cover in the time left."""
        if self._remaining is None:
            return _FAST_MAX
        return int(self._remaining() / 3 * _SCAN_RATE)

    def _maybe_cut(self, e: Exception) -> bool:
        """Could the C scanner's failure be the end of the text read so far,
        so that more text may mend it? (Otherwise the slow parser takes over
        at once, reading on only as far as it needs.)"""
        pos = e.value if isinstance(e, StopIteration) else getattr(e, "pos", None)
        if type(pos) is not int:
            return True
        left = len(self.buf) - pos
        if isinstance(e, json.JSONDecodeError) and e.msg.startswith("Unterminated string"):
            return not self.token_cap or left <= self.token_cap + 1
        # a cut literal (`tru`, `-Infinit`), escape or delimiter
        return left <= 32

    def _slow(self) -> Any:
        line, col = self.position(self.pos)
        parser = SlowParser(self.buf, self.pos, line, col, self)
        self._in_slow = True
        self._untaken += self.take_cost()
        self._taken = len(self.buf)
        self._slow_read(self.buf[self.pos :])
        try:
            value = parser.next_value()
        except _EOFInString:
            self.failed = True
            end_line, end_col = self.position(len(self.buf))
            raise ParseError(f"Unfinished string at EOF at line {end_line}, column {end_col}") from None
        except ParseError:
            self.failed = True
            raise
        finally:
            self._in_slow = False
            self.held = 0
        self.buf = parser.s
        self.pos = parser.pos
        self.last_end = parser.pos
        return value

    def position(self, offset: int) -> tuple[int, int]:
        """jq's (line, column) after reading buf[:offset]."""
        line = 1 + self.lines_before + self.buf.count("\n", 0, offset)
        nl = self.buf.rfind("\n", 0, offset)
        return line, offset - nl - 1

    def total_lines(self) -> int:
        """Newlines in the whole text, once it has been read to its end."""
        return self.lines_before + self.buf.count("\n")

    def line_number(self) -> int:
        """input_line_number: newlines in the lines read when the last value completed."""
        p = self.last_end
        count = self.lines_before + self.buf.count("\n", 0, max(p, 0))
        if self.buf.find("\n", max(p, 0)) >= 0:
            count += 1
        elif not self.eof:
            count += 1
        return count


def parse_single(text: str) -> Any:
    """One JSON text, as `fromjson`, --argjson and --jsonargs read it.

    Raises ParseError with jq's message, including the `(while parsing ...)`."""
    stream = JsonStream(iter([text.encode("utf-8", "surrogatepass")]))
    try:
        value = stream.next()
        if value is _NOTHING:
            raise ParseError("Expected JSON value")
        extra = stream.next()
        if extra is not _NOTHING:
            raise ParseError("Unexpected extra JSON values")
    except ParseError as e:
        raise ParseError(f"{e.message} (while parsing '{text}')") from None
    return value


NOTHING = _NOTHING
