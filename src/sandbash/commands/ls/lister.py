"""Reading, sorting and formatting the entries ls lists."""

from __future__ import annotations

import functools
import math

from ...expand.pattern import compile_pattern
from ...vfs.base import NS, Stat
from ...vfs.errors import FsError
from ..context import Ctx
from ..fsutil import (
    blocks_512,
    descriptor_stat,
    errmsg,
    filevercmp,
    format_full_time,
    group_name,
    human_size,
    join,
    mode_string,
    needs_quoting,
    quote,
    quoteaf,
    shell_quote,
    si_size,
    to_datetime,
    type_char,
    tz_from_env,
    user_name,
)
from .config import Config

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass


@dataclass
class Entry:
    name: str  # as displayed (operand or directory entry name)
    path: str  # path to reach it
    st: Stat | None  # None when the stat failed (dangling with -L)
    lst: Stat | None = None
    target: str | None = None  # symlink target
    target_st: Stat | None = None
    cmdline: bool = False

    @property
    def is_dir(self) -> bool:
        return self.st is not None and self.st.is_dir


def _display_width(text: str) -> int:
    if text.isascii() and text.isprintable():
        return len(text)
    import unicodedata  # (a name past ASCII, or with a control character, only)

    width = 0
    for ch in text:
        # control characters and undecodable bytes take no columns (mbsnwidth)
        if unicodedata.combining(ch) or ord(ch) < 32 or ord(ch) == 127 or 0xDC80 <= ord(ch) <= 0xDCFF:
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


class Lister:
    def __init__(self, ctx: Ctx, cfg: Config) -> None:
        self.ctx = ctx
        self.cfg = cfg
        self.fs = ctx.fs
        self.tz: _dt.tzinfo | None = None  # TZ's zone, read by the first time shown (-l)
        self.now = ctx.fs.vfs.clock()
        self.status = 0
        self.out: list[str] = []
        self.ignore = [compile_pattern(p) for p in cfg.ignore]
        self.hide = [compile_pattern(p) for p in cfg.hide]
        self.needs_stat = (
            cfg.fmt == "long"
            or cfg.size
            or cfg.inode
            or cfg.indicator in ("classify", "file-type")
            or cfg.sort in ("time", "size")
        )

    # --- building entries
    def descriptor_target(self, path: str) -> Stat | None:
        """What an operand link leads to: the command's own descriptor for /dev/fd/N."""
        try:
            st = descriptor_stat(self.ctx, path, True)
        except FsError:
            return None
        return st if st is not None else self.fs.try_stat(path)

    def make_entry(
        self, name: str, path: str, cmdline: bool, known: Stat | FsError | None = None, label: str = ""
    ) -> Entry | None:
        """`label`: the name a message gives `path` when it differs (a name listed in ".")."""
        fs = self.fs
        cfg = self.cfg
        try:
            if isinstance(known, FsError):
                raise known
            lst = known if known is not None else None
            if lst is None and cmdline:
                lst = descriptor_stat(self.ctx, path, False)
            if lst is None:
                lst = fs.lstat(path)
        except FsError as e:
            if cmdline:
                self.ctx.error(f"cannot access {quoteaf(path)}: {errmsg(e)}")
                self.status = 2
                return None
            raise
        entry = Entry(name, path, lst, lst, cmdline=cmdline)
        if lst.is_link:
            try:
                entry.target = fs.readlink(path)
            except FsError:
                entry.target = None
            tst = self.descriptor_target(path) if cmdline else fs.try_stat(path)
            entry.target_st = tst
            follow = cfg.deref == "always" or (
                cmdline
                and (
                    cfg.deref == "cmdline" or (cfg.deref == "cmdline-dir" and tst is not None and tst.is_dir)
                )
            )
            if follow:
                if tst is None:
                    # GNU only stats (and so only notices) when the output needs it
                    if cmdline or self.needs_stat:
                        # (why: a loop of links, a refused target, or none at all)
                        why = fs.stat_error(path)
                        self.ctx.error(
                            f"cannot access {quoteaf(label or path)}: "
                            + (errmsg(why) if why else "No such file or directory")
                        )
                    if cmdline:
                        self.status = 2
                        return None
                    if self.needs_stat:
                        self.status = max(self.status, 1)
                    entry.st = None
                else:
                    entry.st = tst
        return entry

    def visible(self, name: str) -> bool:
        cfg = self.cfg
        if name.startswith("."):
            if cfg.show == "normal":
                return False
            if cfg.show == "almost" and name in (".", ".."):
                return False
            if cfg.show == "all":
                return True
        if cfg.ignore_backups and name.endswith("~") and cfg.show == "normal":
            return False
        if any(p.fullmatch(name) for p in self.ignore):
            return False
        return not (cfg.show == "normal" and any(p.fullmatch(name) for p in self.hide))

    # --- sorting
    def sort(self, entries: list[Entry]) -> list[Entry]:
        cfg = self.cfg
        if cfg.sort == "none":
            out = list(entries)
        else:

            def name_key(e: Entry) -> bytes:
                return e.name.encode("utf-8", "surrogateescape")

            out = sorted(entries, key=name_key)
            if cfg.sort == "time":
                out.sort(key=lambda e: -self.time_of(e))
            elif cfg.sort == "size":
                out.sort(key=lambda e: -(e.st.size if e.st is not None else 0))
            elif cfg.sort == "extension":
                out.sort(key=lambda e: _extension(e.name))
            elif cfg.sort == "version":
                out = sorted(entries, key=functools.cmp_to_key(_version_cmp))
            elif cfg.sort == "width":
                out.sort(key=lambda e: _display_width(e.name))
            if cfg.reverse:
                out.reverse()
        if cfg.dirs_first:
            # symlinks to directories count as directories here (GNU is_linked_directory)
            def dir_like(e: Entry) -> bool:
                return e.is_dir or (e.target_st is not None and e.target_st.is_dir)

            out = [e for e in out if dir_like(e)] + [e for e in out if not dir_like(e)]
        return out

    def time_of(self, e: Entry) -> int:
        """The entry's time that -t sorts by and -l shows, in nanoseconds."""
        st = e.st
        if st is None:
            return 0
        return {"atime": st.atime_ns, "ctime": st.ctime_ns}.get(self.cfg.time, st.mtime_ns)

    # --- names
    def quote_name(self, name: str) -> str:
        style = self.cfg.quoting
        if style == "literal":
            if self.cfg.hide_control:
                return "".join(
                    "?" if (ord(c) < 32 or ord(c) == 127 or 0xDC80 <= ord(c) <= 0xDCFF) else c for c in name
                )
            return name
        if style == "shell-escape":
            return shell_quote(name)
        if style == "shell-escape-always":
            return quoteaf(name)
        if style in ("shell", "shell-always"):
            return _shell_plain(name, style == "shell-always", self.cfg.hide_control)
        if style in ("locale", "clocale"):
            return quote(name)
        if style == "c-maybe":
            escaped = _c_escape(name, True)
            return f'"{escaped}"' if escaped != name else name
        escaped = _c_escape(name, style == "c")
        return f'"{escaped}"' if style == "c" else escaped

    def indicator(self, st: Stat | None) -> str:
        style = self.cfg.indicator
        if style == "none" or st is None:
            return ""
        t = type_char(st.mode)
        if t == "d":
            return "/"
        if style == "slash":
            return ""
        if t == "l":
            return "@"
        if t == "p":
            return "|"
        if t == "s":
            return "="
        if t == "-" and style == "classify" and st.mode & 0o111:
            return "*"
        return ""

    # --- output
    def emit(self, text: str) -> None:
        self.out.append(text)
        if len(self.out) > 256:
            self.flush()

    def flush(self) -> None:
        if self.out:
            self.ctx.out("".join(self.out))
            self.out = []

    def print_entries(self, entries: list[Entry], with_total: bool) -> None:
        cfg = self.cfg
        if not entries and not with_total:
            return
        if cfg.fmt == "long" or cfg.size:
            if with_total:
                total = sum(blocks_512(e.st) for e in entries if e.st is not None)
                self.emit(f"total {self.blocks_text(total)}{cfg.eol}")
        if cfg.fmt == "long":
            self.print_long(entries)
            return
        inode_w = (
            max((len(str(e.st.ino)) for e in entries if e.st is not None), default=1) if cfg.inode else 0
        )
        blocks_w = (
            max((len(self.blocks_text(blocks_512(e.st))) for e in entries if e.st is not None), default=1)
            if cfg.size
            else 0
        )
        cells: list[tuple[str, int]] = []
        for e in entries:
            self.ctx.checkpoint()
            prefix = ""
            commas = cfg.fmt == "commas"
            if cfg.inode:
                ino = str(e.st.ino) if e.st is not None else "?"
                prefix += (ino if commas else ino.rjust(inode_w)) + " "
            if cfg.size:
                b = self.blocks_text(blocks_512(e.st)) if e.st is not None else "?"
                prefix += (b if commas else b.rjust(blocks_w)) + " "
            shown = self.quote_name(e.name) + self.indicator(e.st)
            cells.append((prefix + shown, _display_width(prefix + shown)))
        if cfg.fmt == "one":
            for text, _ in cells:
                self.emit(text + cfg.eol)
        elif cfg.fmt == "commas":
            self.print_commas(cells)
        else:
            self.print_columns(cells, cfg.fmt == "columns")

    def blocks_text(self, blocks: int) -> str:
        nbytes = blocks * 512
        cfg = self.cfg
        if cfg.human:
            return human_size(nbytes) if cfg.human == 1024 else si_size(nbytes)
        return f"{math.ceil(nbytes / cfg.block_size)}{cfg.block_suffix}"

    def print_commas(self, cells: list[tuple[str, int]]) -> None:
        width = self.cfg.width
        pos = 0
        parts: list[str] = []
        for i, (text, length) in enumerate(cells):
            if i:
                if not width or pos + length + 2 < width:
                    pos += 2
                    parts.append(", ")
                else:
                    pos = 0
                    parts.append(",\n")
            parts.append(text)
            pos += length
        self.emit("".join(parts) + "\n")

    def print_columns(self, cells: list[tuple[str, int]], by_columns: bool) -> None:
        n = len(cells)
        if n == 0:
            return
        widths = self._column_widths(cells, by_columns)
        ncols = len(widths)
        rows = (n + ncols - 1) // ncols
        lines: list[str] = []
        if by_columns:
            for r in range(rows):
                line: list[str] = []
                pos = 0
                idx = r
                col = 0
                while True:
                    text, length = cells[idx]
                    line.append(text)
                    idx += rows
                    if idx >= n:
                        break
                    line.append(self._indent(pos + length, pos + widths[col]))
                    pos += widths[col]
                    col += 1
                lines.append("".join(line))
        else:
            line = []
            pos = 0
            for i, (text, length) in enumerate(cells):
                col = i % ncols
                if col == 0 and i:
                    lines.append("".join(line))
                    line = []
                    pos = 0
                line.append(text)
                if col < ncols - 1 and i < n - 1:
                    line.append(self._indent(pos + length, pos + widths[col]))
                    pos += widths[col]
            lines.append("".join(line))
        self.emit("".join(line_ + "\n" for line_ in lines))

    def _column_widths(self, cells: list[tuple[str, int]], by_columns: bool) -> list[int]:
        """GNU's calculate_columns: the most columns whose widths fit the line."""
        n = len(cells)
        width = self.cfg.width
        max_cols = n if width == 0 else max(1, min(width // 3, n))
        best = [max(length for _, length in cells)]
        for cols in range(max_cols, 1, -1):
            rows = (n + cols - 1) // cols
            if by_columns and (cols - 1) * rows >= n:
                continue
            col_w = [0] * cols
            for i, (_, length) in enumerate(cells):
                c = i // rows if by_columns else i % cols
                col_w[c] = max(col_w[c], length + (0 if c == cols - 1 else 2))
            if width == 0 or sum(col_w) < width:
                return col_w
        return best

    def _indent(self, start: int, end: int) -> str:
        # GNU pads with spaces only when the width is unlimited
        tab = self.cfg.tabsize if self.cfg.width else 0
        out: list[str] = []
        while start < end:
            if tab and end // tab > (start + 1) // tab:
                out.append("\t")
                start += tab - start % tab
            else:
                out.append(" ")
                start += 1
        return "".join(out)

    # --- long format
    def format_time(self, ns: int) -> str:
        style = self.cfg.time_style
        t = ns / NS
        tz = self.tz
        if tz is None:  # (datetime is imported by a listing that shows a time, not by every ls)
            tz = self.tz = tz_from_env(self.ctx.env)
        d = to_datetime(t, tz)
        if style == "full-iso":
            return format_full_time(ns, tz)
        if style == "long-iso":
            return d.strftime("%Y-%m-%d %H:%M")
        recent = self.now - 31556952 // 2 < t <= self.now
        if style == "iso":
            return d.strftime("%m-%d %H:%M") if recent else d.strftime("%Y-%m-%d ")
        if style.startswith("+"):
            fmt = style[1:]
            if "\n" in fmt:
                old_fmt, recent_fmt = fmt.split("\n", 1)
                fmt = recent_fmt if recent else old_fmt
            return _strftime(d, fmt, ns)
        if recent:
            return f"{d.strftime('%b')} {d.day:2d} {d.strftime('%H:%M')}"
        return f"{d.strftime('%b')} {d.day:2d}  {d.year}"

    def print_long(self, entries: list[Entry]) -> None:
        cfg = self.cfg
        rows: list[tuple[Entry, list[str]]] = []
        for e in entries:
            self.ctx.checkpoint()
            st = e.st
            if st is None:
                kind = type_char(e.lst.mode) if e.lst is not None else "?"
                rows.append((e, ["?", "?", kind + "?" * 9, "?", "?", "?", "?", "?"]))
                continue
            owner = str(st.uid) if cfg.numeric else user_name(st.uid)
            grp = str(st.gid) if cfg.numeric else group_name(st.gid)
            if st.is_chr or type_char(st.mode) == "b":
                size = f"{st.rdev >> 8 & 0xFFF}, {(st.rdev & 0xFF) | (st.rdev >> 12 & 0xFFF00)}"
            elif cfg.human:
                size = human_size(st.size) if cfg.human == 1024 else si_size(st.size)
            elif cfg.block_size_given:
                size = f"{math.ceil(st.size / cfg.block_size)}{cfg.block_suffix}"
            else:
                size = str(st.size)
            rows.append(
                (
                    e,
                    [
                        str(st.ino),
                        self.blocks_text(blocks_512(st)),
                        mode_string(st.mode),
                        str(st.nlink),
                        owner,
                        grp,
                        size,
                        self.format_time(self.time_of(e)),
                    ],
                )
            )
        widths = [max((len(r[1][k]) for r in rows), default=0) for k in range(8)]
        dev_rows = [
            r for r in rows if r[0].st is not None and (r[0].st.is_chr or type_char(r[0].st.mode) == "b")
        ]
        if dev_rows:
            major_w = max(len(r[1][6].split(", ")[0]) for r in dev_rows)
            minor_w = max(len(r[1][6].split(", ")[1]) for r in dev_rows)
            widths[6] = max(widths[6], major_w + 2 + minor_w)
        for e, cols in rows:
            parts: list[str] = []
            if cfg.inode:
                parts.append(cols[0].rjust(widths[0]) + " ")
            if cfg.size:
                parts.append(cols[1].rjust(widths[1]) + " ")
            parts.append(f"{cols[2]} {cols[3].rjust(widths[3])} ")
            for k, show in ((4, cfg.owner), (5, cfg.group), (4, cfg.author)):
                if show:
                    value = cols[k]
                    parts.append(
                        (value.rjust(widths[k]) if value.isdigit() else value.ljust(widths[k])) + " "
                    )
            if cfg.context:
                parts.append("? ")
            size = cols[6]
            if ", " in size and e.st is not None:
                major, minor = size.split(", ")
                minor_w = max(len(r[1][6].split(", ")[1]) for r in dev_rows)
                parts.append(f"{major.rjust(widths[6] - 2 - minor_w)}, {minor.rjust(minor_w)} ")
            else:
                parts.append(size.rjust(widths[6]) + " ")
            parts.append((cols[7] if e.st is not None else cols[7].rjust(widths[7])) + " ")
            parts.append(self.quote_name(e.name))
            if e.st is None:
                pass
            elif e.lst is not None and e.lst.is_link and e.st is e.lst:
                parts.append(" -> " + self.quote_name(e.target or ""))
                if cfg.indicator != "none" and e.target_st is not None:
                    parts.append(self.indicator(e.target_st))
            else:
                parts.append(self.indicator(e.st))
            self.emit("".join(parts) + cfg.eol)

    # --- directories
    def list_dir(self, path: str, cmdline: bool) -> tuple[list[Entry], bool]:
        try:
            names = self.fs.listdir(path)
        except FsError as e:
            self.ctx.error(f"cannot open directory {quoteaf(path)}: {errmsg(e)}")
            self.status = 2 if cmdline else max(self.status, 1)
            return [], False
        if self.cfg.show == "all":
            names = [".", "..", *names]
        # an entry per name (stat result, strings, sort keys): the listing must
        # fit in the run's memory (a host directory of millions of names)
        with self.ctx.hold_memory() as mem:
            mem.charge(_ENTRY_BYTES * len(names) + sum(map(len, names)))
        entries: list[Entry] = []
        shown = [n for n in names if n not in (".", "..") and self.visible(n)]
        known = dict(zip(shown, self.fs.lstat_many(path, shown), strict=True))
        for name in names:
            self.ctx.checkpoint()
            if not self.visible(name):
                continue
            child = join(path, name)
            try:
                # (GNU stats a name listed in "." without "./": its attach)
                label = name if path == "." else ""
                entry = self.make_entry(name, child, False, known.get(name), label)
            except FsError as e:
                self.ctx.error(f"cannot access {quoteaf(label or child)}: {errmsg(e)}")
                self.status = max(self.status, 1)
                continue
            if entry is not None:
                entries.append(entry)
        return self.sort(entries), True


# bytes one listed entry holds besides its name
_ENTRY_BYTES = 600


def _extension(name: str) -> tuple[bytes, bytes]:
    dot = name.rfind(".")
    ext = name[dot:] if dot > 0 else ""
    return ext.encode("utf-8", "surrogateescape"), name.encode("utf-8", "surrogateescape")


def _version_cmp(x: Entry, y: Entry) -> int:
    a = x.name.encode("utf-8", "surrogateescape")
    b = y.name.encode("utf-8", "surrogateescape")
    return filevercmp(a, b) or (a > b) - (a < b)


def _shell_plain(name: str, always: bool, hide_control: bool) -> str:
    """The shell quoting styles without $'' escapes: control characters stay
    raw (or become ? with -q) inside the quotes."""
    if hide_control:
        name = "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in name)
    if not always and not needs_quoting(name):
        return name
    controls = any(ord(c) < 32 or ord(c) == 127 for c in name)
    if "'" in name and not controls and quoteaf(name).startswith('"'):
        return '"' + name + '"'
    return "'" + name.replace("'", "'\\''") + "'"


def _c_escape(name: str, c_style: bool) -> str:
    out: list[str] = []
    for ch in name:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"' and c_style:
            out.append('\\"')
        elif ch == " " and not c_style:
            out.append("\\ ")
        elif ch in "\a\b\f\n\r\t\v":
            out.append(
                {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[
                    ch
                ]
            )
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\{code - 0xDC00:03o}")
        elif code < 32 or code == 127:
            out.append(f"\\{code:03o}")
        else:
            out.append(ch)
    return "".join(out)


def _strftime(d: _dt.datetime, fmt: str, ns: int) -> str:
    """strftime plus %N (nanoseconds), which Python lacks."""
    return d.strftime(fmt.replace("%N", f"{ns % NS:09d}").replace("%-", "%"))
