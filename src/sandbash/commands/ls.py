"""ls, dir and vdir (GNU coreutils 9.1).

Output is never a terminal, so the default format is one name per line, names
are shown literally and no colour is used (GNU also disables colour when TERM
is unset, as it is in the sandbox). Names sort in byte order, as in the
C.UTF-8 locale; directory contents are read in that order, not readdir order.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import unicodedata
from dataclasses import dataclass, field

from ..expand.pattern import compile_pattern
from ..vfs.base import Stat
from ..vfs.errors import FsError
from .context import CommandExit, Ctx
from .fsutil import (
    blocks_512,
    errmsg,
    filevercmp,
    format_full_time,
    group_name,
    human_size,
    join,
    mode_string,
    nanos,
    parse_size,
    quote,
    quoteaf,
    shell_quote,
    si_size,
    to_datetime,
    type_char,
    tz_from_env,
    user_name,
)
from .options import CommandSpec, Opt, Parsed

SPEC = CommandSpec(
    name="ls",
    usage="[OPTION]... [FILE]...",
    summary="List information about the FILEs (the current directory by default).",
    opts=(
        Opt("a", "all", help="do not ignore entries starting with ."),
        Opt("A", "almost-all", help="do not list implied . and .."),
        Opt(None, "author", help="with -l, print the author of each file"),
        Opt("b", "escape", help="print C-style escapes for nongraphic characters"),
        Opt(None, "block-size", arg="required", metavar="SIZE", help="with -l, scale sizes by SIZE"),
        Opt("B", "ignore-backups", help="do not list implied entries ending with ~"),
        Opt("c", None, dest="c", help="sort by / show ctime"),
        Opt("C", None, dest="C", help="list entries by columns"),
        Opt(None, "color", arg="optional", metavar="WHEN", help="colorize the output (never in the sandbox)"),
        Opt("d", "directory", help="list directories themselves, not their contents"),
        Opt("D", "dired", help="generate output designed for Emacs' dired mode"),
        Opt("f", None, dest="f", help="list all entries in directory order"),
        Opt("F", "classify", arg="optional", metavar="WHEN", help="append indicator (one of */=>@|) to entries"),
        Opt(None, "file-type", help="likewise, except do not append '*'"),
        Opt(None, "format", arg="required", metavar="WORD", help="across -x, commas -m, horizontal -x, long -l, single-column -1, verbose -l, vertical -C"),
        Opt(None, "full-time", help="like -l --time-style=full-iso"),
        Opt("g", None, dest="g", help="like -l, but do not list owner"),
        Opt(None, "group-directories-first", help="group directories before files"),
        Opt("G", "no-group", help="in a long listing, don't print group names"),
        Opt("h", "human-readable", help="with -l and -s, print sizes like 1K 234M 2G etc."),
        Opt(None, "si", help="likewise, but use powers of 1000 not 1024"),
        Opt("H", "dereference-command-line", help="follow symbolic links listed on the command line"),
        Opt(None, "dereference-command-line-symlink-to-dir", help="follow each command line symbolic link that points to a directory"),
        Opt(None, "hide", arg="required", metavar="PATTERN", multi=True, help="do not list implied entries matching shell PATTERN"),
        Opt(None, "hyperlink", arg="optional", metavar="WHEN", help="hyperlink file names"),
        Opt(None, "indicator-style", arg="required", metavar="WORD", help="append indicator with style WORD to entry names"),
        Opt("i", "inode", help="print the index number of each file"),
        Opt("I", "ignore", arg="required", metavar="PATTERN", multi=True, help="do not list implied entries matching shell PATTERN"),
        Opt("k", "kibibytes", help="default to 1024-byte blocks for file system usage"),
        Opt("l", None, dest="l", help="use a long listing format"),
        Opt("L", "dereference", help="show information for the file references rather than for the link itself"),
        Opt("m", None, dest="m", help="fill width with a comma separated list of entries"),
        Opt("n", "numeric-uid-gid", help="like -l, but list numeric user and group IDs"),
        Opt("N", "literal", help="print entry names without quoting"),
        Opt("o", None, dest="o", help="like -l, but do not list group information"),
        Opt("p", None, dest="p", help="append / indicator to directories"),
        Opt("q", "hide-control-chars", help="print ? instead of nongraphic characters"),
        Opt(None, "show-control-chars", help="show nongraphic characters as-is"),
        Opt("Q", "quote-name", help="enclose entry names in double quotes"),
        Opt(None, "quoting-style", arg="required", metavar="WORD", help="use quoting style WORD for entry names"),
        Opt("r", "reverse", help="reverse order while sorting"),
        Opt("R", "recursive", help="list subdirectories recursively"),
        Opt("s", "size", help="print the allocated size of each file, in blocks"),
        Opt("S", None, dest="S", help="sort by file size, largest first"),
        Opt(None, "sort", arg="required", metavar="WORD", help="sort by WORD instead of name: none, size, time, version, extension"),
        Opt(None, "time", arg="required", metavar="WORD", help="change the default of using modification times"),
        Opt(None, "time-style", arg="required", metavar="TIME_STYLE", help="time/date format with -l"),
        Opt("t", None, dest="t", help="sort by time, newest first"),
        Opt("T", "tabsize", arg="required", metavar="COLS", help="assume tab stops at each COLS instead of 8"),
        Opt("u", None, dest="u", help="sort by / show access time"),
        Opt("U", None, dest="U", help="do not sort; list entries in directory order"),
        Opt("v", None, dest="v", help="natural sort of (version) numbers within text"),
        Opt("w", "width", arg="required", metavar="COLS", help="set output width to COLS.  0 means no limit"),
        Opt("x", None, dest="x", help="list entries by lines instead of by columns"),
        Opt("X", None, dest="X", help="sort alphabetically by entry extension"),
        Opt("Z", "context", help="print any security context of each file"),
        Opt(None, "zero", help="end each output line with NUL, not newline"),
        Opt("1", None, dest="one", help="list one file per line"),
    ),
    usage_status=2,
)


def _choice(ctx: Ctx, value: str, option: str, choices: dict[str, str]) -> str:
    """GNU argmatch: exact or unique-prefix match, else the 'Valid arguments' error."""
    if value in choices:
        return choices[value]
    found = {v for k, v in choices.items() if k.startswith(value)} if value else set()
    if len(found) == 1:
        return found.pop()
    kind = "ambiguous" if found else "invalid"
    lines = [f"ls: {kind} argument {quote(value)} for {quote('--' + option)}", "Valid arguments are:"]
    groups: dict[str, list[str]] = {}
    for k, v in choices.items():
        groups.setdefault(v, []).append(k)
    for names in groups.values():
        lines.append("  - " + ", ".join(quote(n) for n in names))
    lines.append("Try 'ls --help' for more information.")
    ctx.stderr.write(("\n".join(lines) + "\n").encode())
    raise CommandExit(2)


@dataclass
class Config:
    fmt: str = "one"  # one, long, columns, across, commas
    show: str = "normal"  # normal, almost, all
    ignore_backups: bool = False
    ignore: list[str] = field(default_factory=list)
    hide: list[str] = field(default_factory=list)
    sort: str = "name"  # name, none, size, time, version, extension
    reverse: bool = False
    time: str = "mtime"
    recursive: bool = False
    directory: bool = False
    deref: str = "cmdline-dir"  # never, always, cmdline, cmdline-dir
    indicator: str = "none"  # none, slash, file-type, classify
    inode: bool = False
    size: bool = False
    human: int = 0  # 0, 1024, 1000
    block_size: int = 1024
    block_size_given: bool = False
    block_suffix: str = ""
    numeric: bool = False
    owner: bool = True
    group: bool = True
    author: bool = False
    context: bool = False
    time_style: str = "locale"
    quoting: str = "literal"
    hide_control: bool = False
    width: int = 80
    tabsize: int = 8
    dirs_first: bool = False
    eol: str = "\n"


def _configure(ctx: Ctx, opts: Parsed) -> Config:
    c = Config()
    if ctx.name == "dir":
        c.fmt, c.quoting = "columns", "escape"
    elif ctx.name == "vdir":
        c.fmt, c.quoting = "long", "escape"
    cols_env = ctx.env.get("COLUMNS", "")
    if cols_env.isdigit() and int(cols_env) > 0:
        c.width = int(cols_env)
    sort_given = False
    time_given = False
    for key, value in opts.order:
        if key in ("l", "g", "o", "numeric_uid_gid"):
            c.fmt = "long"
        elif key == "one":
            c.fmt = "one"
        elif key == "C":
            c.fmt = "columns"
        elif key == "x":
            c.fmt = "across"
        elif key == "m":
            c.fmt = "commas"
        elif key == "format":
            c.fmt = _choice(ctx, value, "format", {
                "verbose": "long", "long": "long", "commas": "commas", "horizontal": "across",
                "across": "across", "vertical": "columns", "single-column": "one"})
        elif key == "full_time":
            c.fmt = "long"
            c.time_style = "full-iso"
        elif key == "all":
            c.show = "all"
        elif key == "almost_all":
            c.show = "almost"
        elif key == "f":
            c.show = "all"
            c.sort = "none"
            sort_given = True
            if c.fmt == "long":
                c.fmt = "one"
            c.size = False
        elif key in ("t", "S", "U", "v", "X", "sort"):
            sort_given = True
            word = value if key == "sort" else {"t": "time", "S": "size", "U": "none", "v": "version", "X": "extension"}[key]
            c.sort = _choice(ctx, word, "sort", {
                "none": "none", "time": "time", "size": "size", "extension": "extension", "version": "version",
                "width": "width"}) if key == "sort" else word
        elif key in ("u", "c"):
            c.time = "atime" if key == "u" else "ctime"
            time_given = True
        elif key == "time":
            c.time = _choice(ctx, value, "time", {
                "atime": "atime", "access": "atime", "use": "atime", "ctime": "ctime", "status": "ctime",
                "mtime": "mtime", "modification": "mtime", "birth": "mtime", "creation": "mtime"})
            time_given = True
        elif key == "classify":
            when = _choice(ctx, value, "classify", {
                "always": "always", "yes": "always", "force": "always", "never": "never", "no": "never",
                "none": "never", "auto": "auto", "tty": "auto", "if-tty": "auto"}) if value is not None else "always"
            c.indicator = "classify" if when == "always" else "none"
        elif key == "file_type":
            c.indicator = "file-type"
        elif key == "p":
            c.indicator = "slash"
        elif key == "indicator_style":
            c.indicator = _choice(ctx, value, "indicator-style", {
                "none": "none", "slash": "slash", "file-type": "file-type", "classify": "classify"})
        elif key == "quoting_style":
            c.quoting = _choice(ctx, value, "quoting-style", {
                "literal": "literal", "shell": "shell", "shell-always": "shell-always",
                "shell-escape": "shell-escape", "shell-escape-always": "shell-escape-always", "c": "c",
                "escape": "escape", "locale": "locale", "clocale": "locale"})
        elif key == "literal":
            c.quoting = "literal"
        elif key == "quote_name":
            c.quoting = "c"
        elif key == "escape":
            c.quoting = "escape"
        elif key == "hide_control_chars":
            c.hide_control = True
        elif key == "show_control_chars":
            c.hide_control = False
        elif key in ("human_readable", "si"):
            c.human = 1024 if key == "human_readable" else 1000
        elif key == "block_size":
            text = value.lstrip("'")
            size = parse_size(text if text[:1].isdigit() else "1" + text, allow_b_suffix=False)
            if value in ("human-readable", "si"):
                c.human = 1024 if value == "human-readable" else 1000
            elif size is None or size == 0:
                ctx.error(f"invalid --block-size argument '{value}'")
                raise CommandExit(2)
            else:
                c.block_size, c.block_size_given, c.human = size, True, 0
                # `--block-size=K` (no digits) shows the unit after each number
                c.block_suffix = "" if text[:1].isdigit() else text
        elif key == "kibibytes":
            c.block_size = 1024
        elif key in ("dereference", "dereference_command_line", "dereference_command_line_symlink_to_dir"):
            c.deref = {"dereference": "always", "dereference_command_line": "cmdline"}.get(key, "cmdline-dir")
        elif key == "width":
            if not value.isdigit():
                ctx.error(f"invalid line width: {quote(value)}")
                raise CommandExit(2)
            c.width = int(value)
        elif key == "tabsize":
            if not value.isdigit():
                ctx.error(f"invalid tab size: {quote(value)}")
                raise CommandExit(2)
            c.tabsize = int(value)
        elif key == "time_style":
            c.time_style = value
    if opts.has("g"):
        c.owner = False
    if opts.has("o") or opts.has("no_group"):
        c.group = False
    c.numeric = opts.has("numeric_uid_gid")
    c.author = opts.has("author")
    c.context = opts.has("context")
    c.recursive = opts.has("recursive")
    c.directory = opts.has("directory")
    c.inode = opts.has("inode")
    c.size = opts.has("size")
    c.reverse = opts.has("reverse")
    c.dirs_first = opts.has("group_directories_first")
    c.ignore_backups = opts.has("ignore_backups")
    c.ignore = list(opts.get("ignore", []))
    c.hide = list(opts.get("hide", []))
    if opts.has("zero"):
        c.eol = "\0"
    # -u/-c sort by that time unless -l shows it (then -t is needed to sort)
    if time_given and not sort_given and c.fmt != "long":
        c.sort = "time"
    if c.deref == "cmdline-dir" and not any(opts.has(k) for k in (
            "dereference_command_line_symlink_to_dir",)) and (
            c.directory or c.indicator == "classify" or c.fmt == "long"):
        c.deref = "never"
    given_style = style = c.time_style
    if style.startswith("posix-"):
        style = style[6:]
    c.time_style = style
    if not (style.startswith("+") or style in ("full-iso", "long-iso", "iso", "locale")):
        ctx.stderr.write(
            f"ls: invalid argument {quote(given_style)} for ‘time style’\nValid arguments are:\n"
            "  - [posix-]full-iso\n  - [posix-]long-iso\n  - [posix-]iso\n  - [posix-]locale\n"
            "  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\nTry 'ls --help' for more information.\n".encode()
        )
        raise CommandExit(2)
    return c


# ------------------------------------------------------------ entries


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
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


class Lister:
    def __init__(self, ctx: Ctx, cfg: Config) -> None:
        self.ctx = ctx
        self.cfg = cfg
        self.fs = ctx.fs
        self.tz: _dt.tzinfo = tz_from_env(ctx.env)
        self.now = ctx.fs.vfs.clock()
        self.status = 0
        self.out: list[str] = []
        self.ignore = [compile_pattern(p) for p in cfg.ignore]
        self.hide = [compile_pattern(p) for p in cfg.hide]
        self.needs_stat = (cfg.fmt == "long" or cfg.size or cfg.inode or cfg.indicator in ("classify", "file-type")
                           or cfg.sort in ("time", "size"))

    # --- building entries
    def make_entry(self, name: str, path: str, cmdline: bool) -> Entry | None:
        fs = self.fs
        cfg = self.cfg
        try:
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
            tst = fs.try_stat(path)
            entry.target_st = tst
            follow = cfg.deref == "always" or (cmdline and (
                cfg.deref == "cmdline" or (cfg.deref == "cmdline-dir" and tst is not None and tst.is_dir)))
            if follow:
                if tst is None:
                    # GNU only stats (and so only notices) when the output needs it
                    if cmdline or self.needs_stat:
                        self.ctx.error(f"cannot access {quoteaf(path)}: No such file or directory")
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

    def time_of(self, e: Entry) -> float:
        st = e.st
        if st is None:
            return 0.0
        return {"atime": st.atime, "ctime": st.ctime}.get(self.cfg.time, st.mtime)

    # --- names
    def quote_name(self, name: str) -> str:
        style = self.cfg.quoting
        if style == "literal":
            if self.cfg.hide_control:
                return "".join("?" if (ord(c) < 32 or ord(c) == 127 or 0xDC80 <= ord(c) <= 0xDCFF) else c for c in name)
            return name
        if style in ("shell-escape", "shell"):
            return shell_quote(name)
        if style in ("shell-escape-always", "shell-always"):
            return quoteaf(name)
        if style == "locale":
            return quote(name)
        escaped = _c_escape(name, style == "c")
        return f'"{escaped}"' if style == "c" else escaped

    def indicator(self, st: Stat | None, for_link_target: bool = False) -> str:
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
        inode_w = max((len(str(e.st.ino)) for e in entries if e.st is not None), default=1) if cfg.inode else 0
        blocks_w = max((len(self.blocks_text(blocks_512(e.st))) for e in entries if e.st is not None), default=1) \
            if cfg.size else 0
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
    def format_time(self, t: float) -> str:
        style = self.cfg.time_style
        d = to_datetime(t, self.tz)
        if style == "full-iso":
            return format_full_time(t, self.tz)
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
            return _strftime(d, fmt, t)
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
            rows.append((e, [str(st.ino), self.blocks_text(blocks_512(st)), mode_string(st.mode), str(st.nlink),
                             owner, grp, size, self.format_time(self.time_of(e))]))
        widths = [max((len(r[1][k]) for r in rows), default=0) for k in range(8)]
        dev_rows = [r for r in rows if r[0].st is not None and (r[0].st.is_chr or type_char(r[0].st.mode) == "b")]
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
                    parts.append((value.rjust(widths[k]) if value.isdigit() else value.ljust(widths[k])) + " ")
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
        entries: list[Entry] = []
        for name in names:
            self.ctx.checkpoint()
            if not self.visible(name):
                continue
            child = join(path, name)
            try:
                entry = self.make_entry(name, child, False)
            except FsError as e:
                self.ctx.error(f"cannot access {quoteaf(child)}: {errmsg(e)}")
                self.status = max(self.status, 1)
                continue
            if entry is not None:
                entries.append(entry)
        return self.sort(entries), True


def _extension(name: str) -> tuple[bytes, bytes]:
    dot = name.rfind(".")
    ext = name[dot:] if dot > 0 else ""
    return ext.encode("utf-8", "surrogateescape"), name.encode("utf-8", "surrogateescape")


def _version_cmp(x: Entry, y: Entry) -> int:
    a = x.name.encode("utf-8", "surrogateescape")
    b = y.name.encode("utf-8", "surrogateescape")
    return filevercmp(a, b) or (a > b) - (a < b)


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
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\{code - 0xDC00:03o}")
        elif code < 32 or code == 127:
            out.append(f"\\{code:03o}")
        else:
            out.append(ch)
    return "".join(out)


def _strftime(d: _dt.datetime, fmt: str, t: float) -> str:
    """strftime plus %N (nanoseconds), which Python lacks."""
    return d.strftime(fmt.replace("%N", f"{nanos(t):09d}").replace("%-", "%"))


def cmd_ls(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC if ctx.name == "ls" else _renamed(ctx.name))
    cfg = _configure(ctx, opts)
    lister = Lister(ctx, cfg)
    implicit = not operands
    if implicit:
        operands = ["."]
    files: list[Entry] = []
    dirs: list[Entry] = []
    for op in operands:
        ctx.checkpoint()
        entry = lister.make_entry(op, op, True)
        if entry is None:
            continue
        if entry.is_dir and not cfg.directory:
            dirs.append(entry)
        else:
            files.append(entry)
    files = lister.sort(files)
    dirs = lister.sort(dirs) if cfg.sort != "none" else dirs
    print_names = len(operands) > 1 or cfg.recursive
    if files:
        lister.print_entries(files, with_total=False)
        if dirs:
            lister.emit("\n")
    first = True
    stack: list[tuple[str, bool]] = [(d.path, True) for d in reversed(dirs)]
    seen: set[int] = set()
    while stack:
        path, cmdline = stack.pop()
        ctx.checkpoint()
        st = ctx.fs.try_stat(path)
        if st is not None and cfg.recursive:
            if st.ino in seen:
                ctx.error(f"{quoteaf(path)}: not listing already-listed directory")
                lister.status = 2
                continue
            seen.add(st.ino)
        if print_names:
            if not first:
                lister.emit("\n")
            first = False
            lister.emit(lister.quote_name(path) + ":\n")
        entries, ok = lister.list_dir(path, cmdline)
        if ok:
            lister.print_entries(entries, with_total=True)
        if cfg.recursive:
            subdirs = [e for e in entries if e.is_dir and e.name not in (".", "..")
                       and (e.lst is None or not e.lst.is_link or cfg.deref == "always")]
            for e in reversed(subdirs):
                stack.append((e.path, False))
    lister.flush()
    return lister.status


def _renamed(name: str) -> CommandSpec:
    return CommandSpec(name=name, usage=SPEC.usage, summary=SPEC.summary, opts=SPEC.opts, usage_status=2)


cmd_dir = cmd_ls
cmd_vdir = cmd_ls
