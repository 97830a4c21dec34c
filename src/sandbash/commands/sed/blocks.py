"""sed programs that work line by line without state, run over blocks of whole lines.

A program of one command, `s/RE/REPL/[g]` (or `-n 's/RE/REPL/p'`), `-n '/RE/p'` (`/RE/!p`) or
`/RE/d` (`/RE/!d`), with no range, no line number and no hold space, gives each line's output
from that line alone. Its regex is compiled again in line mode (no construct matches a newline,
`^`/`$` match at every line's ends), so a search over a block of lines finds, in each line, what
a search of that line alone finds: the block is searched once from C, and only the matches (or
the selected lines) cost Python work, where the cycle costs a dozen calls per line.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...limits import LimitExceeded, LimitKind
from ...regex import Match, Regex, RegexError, compile_regex
from ...stdio.streams import Stream
from . import charsub

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .parse import Repl
    from .run import Runner


class Plan:
    __slots__ = ("chars", "global_", "keep", "kind", "line", "print_", "repl", "rx")

    def __init__(self, kind: str, rx: Regex, keep: bool = True) -> None:
        self.kind = kind  # "s": substitute; "lines": keep (or drop) the lines that match
        self.rx = rx
        self.keep = keep
        self.repl: Repl | None = None
        self.global_ = False
        self.print_ = False  # -n with s///p: only the lines substituted
        self.line = 0  # how long the line being written is so far (its newline not yet written)
        self.chars: charsub.CharSub | None = None  # s///g done by bytes operations


def plan(runner: Runner, names: list[str]) -> Plan | None:
    """The block plan of the program, or None when it must run cycle by cycle."""
    if (
        len(runner.cmds) != 1
        or len(names) != 1
        or runner.in_place
        or runner.unbuffered
        or runner.posix
        or runner.sep != b"\n"
    ):
        return None
    c = runner.cmds[0]
    if c.a2 is not None:
        return None
    if c.name == "s":
        if (
            c.a1 is not None
            or c.negate
            or c.occurrence != 1
            or c.evaluate
            or c.wfile
            or c.mline
            or c.rx_empty
            or c.repl is None
            or c.print_ != (1 if runner.quiet else 0)
        ):
            return None
        rx = _line_regex(c.rx)
        if rx is None:
            return None
        p = Plan("s", rx)
        p.repl, p.global_, p.print_ = c.repl, c.global_, runner.quiet
        if not runner.quiet and c.rx is not None:
            p.chars = charsub.plan(c.rx, rx, c.repl, expand, c.global_)
        return p
    if c.name not in "pd" or c.a1 is None or c.a1.kind != "re" or (c.name == "p") != runner.quiet:
        return None
    rx = _line_regex(c.a1.rx)
    if rx is None:
        return None
    # -n /RE/p and /RE/!d keep the lines that match; -n /RE/!p and /RE/d the others
    return Plan("lines", rx, keep=(c.name == "p") != c.negate)


def _line_regex(rx: Regex | None) -> Regex | None:
    if rx is None or not isinstance(rx.pattern, str):
        return None
    pat = rx.pattern
    # the buffer anchors \` \' and a newline (\n, or one written out) mean the pattern space,
    # which a line in a block is not
    if "\n" in pat or any(s in pat for s in ("\\`", "\\'", "\\n")):
        return None
    try:
        return compile_regex(
            pat, rx.flavor, rx.icase, False, dialect="sed", line_mode=True, budget=rx._budget
        )
    except RegexError:
        return None


def run(runner: Runner, name: str, p: Plan) -> int:
    inputs = runner.operands([name])
    for _name, stream in inputs:
        with inputs.reading():
            _run_stream(runner, stream, p)
    return runner.status


def _run_stream(runner: Runner, stream: Stream, p: Plan) -> None:
    ctx = runner.ctx
    carry: list[bytes] = []  # the unfinished line, across chunks
    size = 0  # its bytes
    with ctx.hold_memory() as mem:
        for chunk in stream.chunks():
            ctx.checkpoint((len(chunk) >> 12) + 1)
            end = chunk.rfind(b"\n")
            if end < 0:
                carry.append(chunk)
                size += len(chunk)
                mem.set(size)
                continue
            carry.append(chunk[: end + 1])
            if len(carry) > 1:
                mem.set(2 * (size + end + 1))  # the parts and their joined copy
            block = b"".join(carry)
            carry = [chunk[end + 1 :]]
            size = len(carry[0])
            mem.set(2 * len(block) + size)  # (the block, and what is made of it at most)
            _block(runner, p, block, len(block) - 1)
        if len(carry) > 1:
            mem.set(2 * size)
        rest = b"".join(carry)
        if rest:
            mem.set(2 * len(rest))  # (a last line without a newline: charged as a block is)
            _block(runner, p, rest, len(rest))


def _block(runner: Runner, p: Plan, block: bytes, end: int) -> None:
    """Write the output of block's lines; `end` is where its last line ends (before its newline)."""
    if p.kind == "lines":
        _write(runner, p, _lines(runner, p, block, end))
    else:
        _substitute(runner, p, block, end)


def _write(runner: Runner, p: Plan, parts: list[bytes]) -> None:
    data = b"".join(parts)
    if p.line + len(data) > runner.max_len:  # s/x/&&&&/g over a long line: the string limit, as a cycle's
        pieces = data.split(b"\n")
        pieces[0] = b"%d" % (p.line + len(pieces[0]))  # (only its length counts)
        if max(len(x) if i else int(x) for i, x in enumerate(pieces)) > runner.max_len:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, runner.max_len)
    nl = data.rfind(b"\n")
    p.line = p.line + len(data) if nl < 0 else len(data) - nl - 1
    if data:
        runner.dest.write(data)


def _lines(runner: Runner, p: Plan, block: bytes, end: int) -> list[bytes]:
    """The lines that match (or, not keeping, the others), each searched once."""
    search = p.rx.search
    checkpoint = runner.ctx.checkpoint
    out: list[bytes] = []
    pos = 0
    last = 0  # (not keeping: where the lines not yet written start)
    n = 0
    size = len(block)
    while pos < size:  # (a last line without its newline ends at the block's end)
        m = search(block, pos, end)
        if m is None:
            break
        s, e = m.span()
        ls = block.rfind(b"\n", pos, s) + 1 or pos
        le = block.find(b"\n", e)
        le = size if le < 0 else le + 1
        if p.keep:
            out.append(block[ls:le])
        else:
            out.append(block[last:ls])
            last = le
        pos = le
        n += 1
        if not n & 4095:
            checkpoint()
    if not p.keep:
        out.append(block[last:])
    return out


def _substitute(runner: Runner, p: Plan, block: bytes, end: int) -> None:
    """Write each line with its first match (or, global, every match) replaced; with print_, only
    the lines replaced in. What is made is written every 4096 replacements (a long replacement
    over many matches is never held whole)."""
    repl = p.repl
    assert repl is not None
    simple = repl.simple
    rx = p.rx
    checkpoint = runner.ctx.checkpoint
    out: list[bytes] = []
    last = 0  # where the text not yet copied starts
    le = -1  # end of the line (after its newline) of the last match replaced
    if p.chars is not None:
        p.chars.run(block, lambda data: _write(runner, p, [data]), checkpoint)
        return
    if p.global_ and simple is not None and not p.print_:
        _substitute_spans(runner, p, simple, block, end)
        return
    if p.global_:
        matches = rx.finditer(block, 0, end)
    else:
        matches = _first_per_line(rx, block, end)
    for n, m in enumerate(matches, 1):
        s, e = m.span()
        if s >= le:  # the first match of a line
            if p.print_:
                if le > 0:
                    out.append(block[last:le])
                last = block.rfind(b"\n", 0, s) + 1
            le = block.find(b"\n", e)
            le = len(block) + 1 if le < 0 else le + 1  # (past the end: an empty match there is this line's)
        out.append(block[last:s])
        out.append(simple if simple is not None else expand(repl, m))
        last = e
        if not n & 4095:
            checkpoint()
            _write(runner, p, out)
            out.clear()
    if p.print_:
        if le > 0:
            out.append(block[last:le])
    else:
        out.append(block[last:])
    _write(runner, p, out)


def _substitute_spans(runner: Runner, p: Plan, text: bytes, block: bytes, end: int) -> None:
    """s/RE/TEXT/g: every match replaced by the same text, from the matches' spans alone."""
    checkpoint = runner.ctx.checkpoint
    out: list[bytes] = []
    append = out.append
    last = 0
    for n, (s, e) in enumerate(p.rx.spans(block, 0, end), 1):
        append(block[last:s])
        append(text)
        last = e
        if not n & 4095:
            checkpoint()
            _write(runner, p, out)
            out.clear()
    append(block[last:])
    _write(runner, p, out)


def _first_per_line(rx: Regex, block: bytes, end: int) -> Iterator[Match]:
    """The first match of each line, a search from each line's start (what s/RE/X/ replaces)."""
    pos = 0
    while pos <= end:
        m = rx.search(block, pos, end)
        if m is None:
            return
        yield m
        nl = block.find(b"\n", m.end())
        if nl < 0:
            return
        pos = nl + 1


def expand(repl: Repl, m: Match) -> bytes:
    """Build one replacement, applying \\L \\U \\E \\l \\u."""
    out: list[bytes] = []
    mode = ""  # "L" or "U"
    one = ""  # "l" or "u" for the next character
    for kind, v in repl.parts:
        if kind == "case":
            if v in "LU":
                mode = v
                one = ""
            elif v == "E":
                mode = ""
                one = ""
            else:
                one = v
            continue
        # (a group past the regex's, allowed by --posix, is empty)
        piece = v if kind == "lit" else ((m.group(v) if v <= m.re.groups else None) or b"")
        if not piece:
            continue
        if mode or one:
            text = piece.decode("utf-8", "surrogateescape")
            if mode == "L":
                text = text.lower()
            elif mode == "U":
                text = text.upper()
            if one:
                text = (text[0].lower() if one == "l" else text[0].upper()) + text[1:]
                one = ""
            piece = text.encode("utf-8", "surrogateescape")
        out.append(piece)
    return b"".join(out)
