"""pr: paginate files with GNU's header, trailer, columns and numbering (the common options)."""

from __future__ import annotations

import re

from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import Out, command, decode, encode, fail, local_time, quote

PR_SPEC = CommandSpec(
    name="pr",
    usage="[OPTION]... [FILE]...",
    summary="Paginate or columnate FILE(s) for printing.",
    numeric="columns",
    opts=(
        Opt("a", "across", help="print columns across rather than down"),
        Opt(None, "columns", arg="required", metavar="COLUMN", help="output COLUMN columns"),
        Opt("d", "double-space", help="double space the output"),
        Opt("D", "date-format", arg="required", metavar="FORMAT", help="use FORMAT for the header date"),
        Opt("F", "form-feed", dest="form_feed", help="use form feeds instead of newlines to separate pages"),
        Opt("f", None, dest="form_feed"),
        Opt(
            "h", "header", arg="required", metavar="HEADER", help="use a centered HEADER instead of filename"
        ),
        Opt("J", "join-lines", help="merge full lines, turn off -W line truncation"),
        Opt("l", "length", arg="required", metavar="PAGE_LENGTH", help="set the page length (default 66)"),
        Opt("n", "number-lines", arg="optional", metavar="[SEP[DIGITS]]", help="number lines"),
        Opt("o", "indent", arg="required", metavar="MARGIN", help="offset each line with MARGIN spaces"),
        Opt("s", "separator", arg="optional", metavar="CHAR", help="separate columns by a single character"),
        Opt("S", "sep-string", arg="optional", metavar="STRING", help="separate columns by STRING"),
        Opt("t", "omit-header", help="omit page headers and trailers"),
        Opt("T", "omit-pagination", help="omit page headers and trailers, eliminate form feeds"),
        Opt("w", "width", arg="required", metavar="PAGE_WIDTH", help="set page width (default 72)"),
        Opt("W", "page-width", arg="required", metavar="PAGE_WIDTH", help="set page width always"),
    ),
)


def _int(ctx: Ctx, text: str, what: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 1:
        raise fail(ctx, f"invalid {what}: {quote(ctx, text)}")
    return v


@declare("pr", spec=PR_SPEC, effects=Effects.READS)
@command
def cmd_pr(ctx: Ctx) -> int:
    args = list(ctx.args)
    first_page, last_page = 1, 0
    rest: list[str] = []
    for a in args:
        m = re.fullmatch(r"\+(\d+)(?::(\d+))?", a)
        if m:
            first_page = int(m.group(1))
            last_page = int(m.group(2) or 0)
        else:
            rest.append(a)
    opts, files = ctx.parse(PR_SPEC, rest)
    cols = _int(ctx, opts.get("columns", "1"), "number of columns")
    length = int(opts.get("length", "66"))
    width = _int(ctx, opts.get("width") or opts.get("page_width") or "72", "page width")
    omit = bool(opts.get("omit_header") or opts.get("omit_pagination"))
    if length <= 10:
        omit = True
    body = length - (0 if omit else 10)
    if body <= 0:
        body = length
    margin = " " * int(opts.get("indent", "0"))
    sep: str | None = None
    if opts.has("separator"):
        sep = opts.get("separator") or "\t"
    if opts.has("sep_string"):
        sep = opts.get("sep_string") or ""
    number = opts.has("number_lines")
    num_sep, num_width = "\t", 5
    if number and opts.get("number_lines"):
        spec = opts.get("number_lines")
        if not spec[0].isdigit():
            num_sep, spec = spec[0], spec[1:]
        if spec:
            num_width = int(spec)
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, flush=out.flush)
    inputs.stdin_name = "standard input"
    for name, stream in inputs:
        with inputs.reading():
            data = ctx.read_all(stream)
            text = decode(data)
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if opts.get("double_space"):
                lines = [x for line in lines for x in (line, "")]
            if number:
                lines = [f"{i + 1:>{num_width}}{num_sep}{line}" for i, line in enumerate(lines)]
            mtime = ctx.clock()
            if name != "-":
                st = ctx.fs.try_stat(name)
                if st is not None:
                    mtime = st.mtime
            dt, _ = local_time(ctx, mtime)
            date = dt.strftime(opts.get("date_format") or "%Y-%m-%d %H:%M")  # type: ignore[attr-defined]
            title = opts.get("header") if opts.get("header") is not None else ("" if name == "-" else name)
            per_page = body * cols
            pages = [lines[i : i + per_page] for i in range(0, len(lines), per_page)] or [[]]
            for pno, page in enumerate(pages, 1):
                if pno < first_page or (last_page and pno > last_page):
                    continue
                rows = _layout(
                    page, cols, body, bool(opts.get("across")), width, sep, bool(opts.get("join_lines"))
                )
                if not omit:
                    page_text = f"Page {pno}"
                    avail = max(0, width - len(date) - len(title) - len(page_text))
                    lhs = avail >> 1
                    header = f"{date}{' ' * max(lhs, 1)}{title}{' ' * max(avail - lhs, 1)}{page_text}"
                    out.write(encode(f"\n\n{margin}{header}\n\n\n"))
                for row in rows:
                    out.write(encode(margin + row + "\n" if row else "\n"))
                if not omit:
                    if opts.get("form_feed"):
                        out.write(b"\f")
                    else:
                        out.write(b"\n" * (body - len(rows) + 5))
    out.flush()
    return inputs.status


def _layout(
    page: list[str], cols: int, body: int, across: bool, width: int, sep: str | None, join: bool
) -> list[str]:
    if cols == 1:
        return page
    sep_len = len(sep) if sep is not None else 1
    colw = (width - (cols - 1) * sep_len) // cols
    if across:
        grid = [page[i : i + cols] for i in range(0, len(page), cols)]
    else:
        n = len(page)
        if n >= body * cols:
            sizes = [body] * cols
        else:
            base, extra = divmod(n, cols)
            sizes = [base + (1 if i < extra else 0) for i in range(cols)]
        columns: list[list[str]] = []
        pos = 0
        for s in sizes:
            columns.append(page[pos : pos + s])
            pos += s
        nrows = max((len(c) for c in columns), default=0)
        grid = [[c[r] for c in columns if r < len(c)] for r in range(nrows)]
    rows: list[str] = []
    for cells in grid:
        if sep is not None:
            rows.append(sep.join(c if join else c[:colw] for c in cells))
            continue
        line = ""
        col = 0
        for i, cell in enumerate(cells):
            text = cell if join else cell.expandtabs(8)[:colw]
            line += text
            col += len(text)
            if i < len(cells) - 1:
                # GNU pads with tabs wherever a tab stop is reached
                goal = (i + 1) * (colw + 1)
                while (nxt := (col // 8 + 1) * 8) <= goal:
                    line += "\t"
                    col = nxt
                line += " " * (goal - col)
                col = goal
        rows.append(line)
    return rows
