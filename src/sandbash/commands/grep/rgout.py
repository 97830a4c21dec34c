"""ripgrep's own output where it differs from grep's: counts that leave out files without
matches, --count-matches, the "binary file matches" notice, --json messages, and brace globs."""

from __future__ import annotations

import base64
import json
import time

from ...regex import Regex
from ...stdio.streams import Stream
from ..context import Ctx
from .core import CHUNK, Options, Searcher

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_GLOB_ALTERNATIVES = 1024  # `-g` brace expansion bound (a pattern is not a brace bomb)


def expand_braces(glob: str) -> list[str]:
    """`*.{py,js}` -> `*.py`, `*.js` (nested braces too; `\\{` is literal), as ripgrep's globs."""
    out = [glob]
    done: list[str] = []
    while out:
        g = out.pop()
        span = _first_group(g)
        if span is None:
            done.append(g)
            continue
        start, end, alternatives = span
        for alt in alternatives:
            out.append(g[:start] + alt + g[end:])
        if len(out) + len(done) > MAX_GLOB_ALTERNATIVES:
            raise ValueError(f"glob '{glob}': more than {MAX_GLOB_ALTERNATIVES} alternatives")
    return sorted(set(done), key=done.index)


def _first_group(g: str) -> tuple[int, int, list[str]] | None:
    """The first top-level `{a,b}` in g: (start, end past `}`, alternatives)."""
    i = 0
    while i < len(g):
        c = g[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth = 0
            parts: list[str] = []
            last = i + 1
            j = i
            while j < len(g):
                d = g[j]
                if d == "\\":
                    j += 2
                    continue
                if d == "{":
                    depth += 1
                elif d == "}":
                    depth -= 1
                    if depth == 0:
                        parts.append(g[last:j])
                        return i, j + 1, parts
                elif d == "," and depth == 1:
                    parts.append(g[last:j])
                    last = j + 1
                j += 1
            return None  # unbalanced: literal
        i += 1
    return None


class RgSearcher(Searcher):
    """grep's searcher with ripgrep's differences in what it prints."""

    def __init__(
        self, ctx: Ctx, rx: Regex | None, line_rx: Regex | None, opts: Options, count_matches: bool = False
    ) -> None:
        super().__init__(ctx, rx, line_rx, opts)
        self.count_matches = count_matches
        self._nul_at = -1

    def search_stream(self, stream: Stream, name: str) -> bool:
        self._nul_at = -1
        if self.count_matches:
            try:
                return self._count_all_matches(stream, name)
            finally:
                self.flush_out()
        return super().search_stream(_NulWatch(stream, self), name)

    def _write_count(self, name: str, n: int) -> None:
        if n:  # ripgrep leaves out the files without matches
            super()._write_count(name, n)

    def _binary_message(self, name: str) -> None:
        self.flush_out()
        prefix = f"{name}: " if self.o.with_fname else ""
        self.ctx.out(
            f'{prefix}binary file matches (found "\\0" byte around offset {max(self._nul_at, 0)})\n'.encode(
                "utf-8", "surrogateescape"
            )
        )

    def _count_all_matches(self, stream: Stream, name: str) -> bool:
        total = 0
        for buf in _line_chunks(stream, self.ctx):
            # (a byte as an int: see builtins/io._read_record)
            if self.o.binary == "without-match" and 0 in buf:
                return False  # a binary file found while walking is skipped, as for the other counts
            for ls, le in self.selected_spans(buf, len(buf)):
                total += sum(1 for _ in self._matches(buf[ls:le]))
        if total:
            self.any_selected = True
            self._write_count(name, total)
        return total > 0


class _NulWatch(Stream):
    """Passes reads through, noting where the first NUL byte is (for the binary notice)."""

    readable = True

    def __init__(self, inner: Stream, searcher: RgSearcher) -> None:
        super().__init__()
        self.inner = inner
        self.searcher = searcher
        self.offset = 0

    def _fill(self, n: int) -> bytes:
        data = self.inner.read(n)
        if self.searcher._nul_at < 0:
            at = data.find(b"\0")
            if at >= 0:
                self.searcher._nul_at = self.offset + at
        self.offset += len(data)
        return data


def _line_chunks(stream: Stream, ctx: Ctx) -> Any:
    """Chunks of whole lines (the last one may lack its newline)."""
    leftover = b""
    while True:
        chunk = stream.read(CHUNK)
        ctx.checkpoint(1 + len(chunk) // 4096)
        if not chunk:
            if leftover:
                yield leftover
            return
        buf = leftover + chunk
        cut = buf.rfind(b"\n")
        if cut < 0:
            leftover = buf
            continue
        leftover = buf[cut + 1 :]
        yield buf[: cut + 1]


# ------------------------------------------------------------ --json


def _data(raw: bytes) -> dict[str, str]:
    """ripgrep's arbitrary data: text when it is UTF-8, base64 bytes otherwise."""
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"bytes": base64.b64encode(raw).decode()}


def _elapsed(seconds: float) -> dict[str, Any]:
    nanos = int(seconds * 1e9)
    return {"secs": nanos // 10**9, "nanos": nanos % 10**9, "human": f"{seconds:.6f}s"}


class JsonPrinter:
    """`rg --json`: begin/match/end messages for each file with a match, then a summary."""

    def __init__(self, ctx: Ctx, rx: Regex, invert: bool) -> None:
        self.ctx = ctx
        self.rx = rx
        self.invert = invert
        self.started = time.monotonic()
        self.totals = {
            "bytes_printed": 0,
            "bytes_searched": 0,
            "matched_lines": 0,
            "matches": 0,
            "searches": 0,
            "searches_with_match": 0,
        }
        self.searching = 0.0  # seconds spent in the searches (the summary's "elapsed")

    def _emit(self, message: dict[str, Any], sort: bool = False) -> int:
        line = json.dumps(message, separators=(",", ":"), sort_keys=sort, ensure_ascii=False) + "\n"
        data = line.encode("utf-8", "surrogateescape")
        self.ctx.out(data)
        return len(data)

    def search(self, stream: Stream, name: str, explicit: bool = False) -> bool:
        started = time.monotonic()
        path = _data(name.encode("utf-8", "surrogateescape"))
        stats = {
            "searches": 1,
            "searches_with_match": 0,
            "bytes_searched": 0,
            "bytes_printed": 0,
            "matched_lines": 0,
            "matches": 0,
        }
        offset = 0
        lineno = 1
        for buf in _line_chunks(stream, self.ctx):
            stats["bytes_searched"] += len(buf)
            for line in buf.splitlines(keepends=True):
                body = line.rstrip(b"\n")
                if self.invert:
                    subs: list[tuple[int, int]] = []
                    hit = self.rx.search(body) is None
                else:
                    subs = [m.span() for m in self.rx.finditer(body)]
                    hit = bool(subs)
                if hit:
                    if not stats["matched_lines"]:
                        stats["bytes_printed"] += self._emit({"type": "begin", "data": {"path": path}})
                    stats["matched_lines"] += 1
                    stats["matches"] += len(subs)
                    stats["bytes_printed"] += self._emit(
                        {
                            "type": "match",
                            "data": {
                                "path": path,
                                "lines": _data(line),
                                "line_number": lineno,
                                "absolute_offset": offset,
                                "submatches": [
                                    {"match": _data(body[s:e]), "start": s, "end": e} for s, e in subs
                                ],
                            },
                        }
                    )
                offset += len(line)
                lineno += 1
        took = time.monotonic() - started
        if stats["matched_lines"]:
            self.searching += took
            stats["searches_with_match"] = 1
            end_stats = {"elapsed": _elapsed(took), **stats}
            self._emit({"type": "end", "data": {"path": path, "binary_offset": None, "stats": end_stats}})
            for key, value in stats.items():  # ripgrep's summary counts the files with a match only
                self.totals[key] += value
        return stats["matched_lines"] > 0

    def summary(self) -> None:
        total = _elapsed(time.monotonic() - self.started)
        self._emit(
            {
                "data": {
                    "elapsed_total": total,
                    "stats": {**self.totals, "elapsed": _elapsed(self.searching)},
                },
                "type": "summary",
            },
            sort=True,
        )
