"""column (util-linux 2.38): fill columns or rows with tabs, or format a table (-t)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

from ...limits import MemoryHold
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt, Parsed
from ..record import LOSES_ERRNO, Effects, declare
from ..textbasic.common import Out, char_width, decode, encode, split_records

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

COLUMN_SPEC = CommandSpec(
    name="column",
    usage="[options] [<file>...]",
    summary="Columnate lists.",
    opts=(
        Opt("t", "table", help="create a table"),
        Opt("n", "table-name", arg="required", metavar="<name>", help="table name for JSON output"),
        Opt("O", "table-order", arg="required", metavar="<columns>", help="specify order of output columns"),
        Opt("N", "table-columns", arg="required", metavar="<names>", help="comma separated columns names"),
        Opt(
            "l",
            "table-columns-limit",
            arg="required",
            metavar="<num>",
            help="maximal number of input columns",
        ),
        Opt("E", "table-noextreme", arg="required", metavar="<columns>", help="(accepted)"),
        Opt("d", "table-noheadings", help="don't print header"),
        Opt("e", "table-header-repeat", help="repeat header for each page"),
        Opt("H", "table-hide", arg="required", metavar="<columns>", help="don't print the columns"),
        Opt(
            "R", "table-right", arg="required", metavar="<columns>", help="right align text in these columns"
        ),
        Opt("T", "table-truncate", arg="required", metavar="<columns>", help="(accepted)"),
        Opt("W", "table-wrap", arg="required", metavar="<columns>", help="(accepted)"),
        Opt("L", "keep-empty-lines", help="don't ignore empty lines"),
        Opt("J", "json", help="use JSON output format for table"),
        Opt(
            "c",
            "output-width",
            arg="required",
            metavar="<width>",
            help="width of output in number of characters",
        ),
        Opt(
            "o",
            "output-separator",
            arg="required",
            metavar="<string>",
            help="columns separator for table output",
        ),
        Opt("s", "separator", arg="required", metavar="<string>", help="possible table delimiters"),
        Opt("x", "fillrows", help="fill rows before columns"),
    ),
)

TAB = 8
_CELLS_PER_CHECK = 4096  # cells split, measured or written between two deadline checks (a power of 2)


def _width(s: str) -> int:
    if s.isascii() and s.isprintable():
        return len(s)
    return sum(char_width(c) for c in s)  # control characters such as tabs take no columns


def _die(ctx: Ctx, message: str) -> CommandExit:
    ctx.error(message)
    return CommandExit(1)


def _read(ctx: Ctx, files: list[str], mem: MemoryHold) -> list[str] | None:
    lines: list[str] = []
    inputs = ctx.inputs(files, "{name}: {err}", "read failed: {err}")  # util-linux 2.38's words
    inputs.dash_is_stdin = not files  # (util-linux 2.38 opens `-` as a file: stdin only with no operand)
    for _name, stream in inputs:
        with inputs.reading():
            for batch, _tail in split_records(ctx, stream):
                # each line is held as text, then as cells and padded output
                mem.charge(sum(map(len, batch)) * 12 + 600 * len(batch))
                lines.extend(decode(b) for b in batch)
    return None if inputs.status else lines


def _fill(entries: list[str], termwidth: int, rows_first: bool, tick: Callable[[int], None]) -> list[str]:
    """`tick` charges the entries placed and checks the run's deadline."""
    widths = [_width(e) for e in entries]
    maxlength = max(widths)
    maxlength = (maxlength + TAB) & ~(TAB - 1)
    numcols = max(termwidth // maxlength, 1)
    out: list[str] = []
    if maxlength > termwidth:
        return [e + "\n" for e in entries]
    if rows_first:
        line: list[str] = []
        chcnt = col = 0
        endcol = maxlength
        for i, e in enumerate(entries):
            if i and not i & _CELLS_PER_CHECK - 1:
                tick(_CELLS_PER_CHECK)
            line.append(e)
            chcnt += widths[i]
            if i == len(entries) - 1:
                break
            col += 1
            if col == numcols:
                out.append("".join(line) + "\n")
                line = []
                chcnt = col = 0
                endcol = maxlength
            else:
                while (cnt := (chcnt + TAB) & ~(TAB - 1)) <= endcol:
                    line.append("\t")
                    chcnt = cnt
                endcol += maxlength
        if line:
            out.append("".join(line) + "\n")
        return out
    numrows = (len(entries) + numcols - 1) // numcols
    for row in range(numrows):
        tick(numcols)
        line = []
        endcol = maxlength
        base = row
        cnt = 0
        for _col in range(numcols):
            line.append(entries[base])
            cnt += widths[base]
            base += numrows
            if base >= len(entries):
                break
            while (chcnt := (cnt + TAB) & ~(TAB - 1)) <= endcol:
                line.append("\t")
                cnt = chcnt
            endcol += maxlength
        out.append("".join(line) + "\n")
    return out


def _columns_list(ctx: Ctx, spec: str, names: list[str], ncols: int) -> set[int]:
    """-R/-H/-O column lists: names or 1-based numbers."""
    out: set[int] = set()
    for tok in spec.split(","):
        if tok.isdigit():
            out.add(int(tok) - 1)
        elif tok in names:
            out.add(names.index(tok))
        elif tok:
            raise _die(ctx, f"undefined column name '{tok}'")
    return out


def _split_row(line: str, seps: str | None, limit: int) -> list[str]:
    """A line's cells: split at runs of blanks (at each character of `seps` with -s), into at most
    `limit` cells when it is not 0, the last keeping the rest of the line. (C-speed splits: a
    Python step a character, and a copy of the rest of the line a cell with -l, took seconds.)"""
    if seps is None:
        if not limit:
            return line.split()
        if limit == 1:
            rest = line.lstrip(" \t")
            return [rest.rstrip(" \t")] if rest else []
        # the first cells are runs of non-blanks; the last keeps what follows the one blank
        # after the cell before it
        cells: list[str] = []
        end = 0
        for m in _non_blanks()(line):
            cells.append(m.group())
            end = m.end()
            if len(cells) == limit - 1:
                rest = line[end + 1 :]
                if rest:
                    cells.append(rest.rstrip(" \t"))
                break
        return cells
    if not seps:
        return [line]
    one = seps[0]
    marked = line.translate({ord(c): one for c in seps[1:]}) if len(seps) > 1 else line
    cells = marked.split(one, limit - 1 if limit else -1)
    if len(seps) > 1 and limit and len(cells) == limit:
        cells[-1] = line[len(line) - len(cells[-1]) :]  # (with its own separators, as they were)
    return cells


@cache
def _non_blanks() -> Callable[[str], Iterator[re.Match[str]]]:
    """The runs of characters other than blank and tab (our own class: stdlib re, compiled at the
    first use)."""
    import re

    return re.compile("[^ \t]+").finditer


def _table(ctx: Ctx, lines: list[str], opts: object) -> list[str]:
    get = opts.get  # type: ignore[attr-defined]
    seps = get("separator")
    limit = int(get("table_columns_limit") or 0)
    keep_empty = bool(get("keep_empty_lines"))
    rows: list[list[str]] = []
    for line in lines:
        if line.strip() or keep_empty:
            cells = _split_row(line, seps, limit)
            rows.append(cells if cells != [""] else [])
            ctx.checkpoint(len(cells) // _CELLS_PER_CHECK * _CELLS_PER_CHECK + 1)
    names = get("table_columns").split(",") if get("table_columns") else []
    ncols = max([len(r) for r in rows] + [len(names)])
    if not rows:  # (util-linux prints no header and no JSON frame for an input with no line)
        return []
    hidden = _columns_list(ctx, get("table_hide"), names, ncols) if get("table_hide") else set()
    right = _columns_list(ctx, get("table_right"), names, ncols) if get("table_right") else set()
    order = list(range(ncols))
    if get("table_order"):
        first: list[int] = []
        for tok in get("table_order").split(","):
            idx = int(tok) - 1 if tok.isdigit() else (names.index(tok) if tok in names else -1)
            if idx < 0 and not tok.isdigit():
                raise _die(ctx, f"undefined column name '{tok}'")
            if 0 <= idx < ncols:  # (a number past the last column, or 0, orders nothing)
                first.append(idx)
        chosen = set(first)
        order = first + [i for i in order if i not in chosen]
    order = [i for i in order if i not in hidden]
    if get("json"):  # (in the table's order, without the hidden columns)
        return [_json(get("table_name") or "table", names, rows, order)]
    table = list(rows)
    if names and not get("table_noheadings"):
        table.insert(0, names)
    widths = [0] * ncols  # (row by row, with a deadline check every so many cells)
    for r in table:
        ctx.checkpoint()
        for i, text in enumerate(r):
            if i and not i & _CELLS_PER_CHECK - 1:
                ctx.checkpoint(_CELLS_PER_CHECK)
            widths[i] = max(widths[i], _width(text))
    osep = get("output_separator")
    osep = "  " if osep is None else osep
    out: list[str] = []
    for r in table:
        ctx.checkpoint()
        padded: list[str] = []
        for pos, i in enumerate(order):
            if pos and not pos & _CELLS_PER_CHECK - 1:
                ctx.checkpoint(_CELLS_PER_CHECK)
            text = r[i] if i < len(r) else ""
            pad = widths[i] - _width(text)
            last = pos == len(order) - 1
            if i in right and (text or not last):  # (an empty last cell is not padded, even right-aligned)
                padded.append(" " * pad + text)
            else:
                padded.append(text if last else text + " " * pad)
        out.append(osep.join(padded) + "\n")
    return out


def _json(name: str, names: list[str], rows: list[list[str]], order: list[int]) -> str:
    import json  # (column -J only: ~5 M instructions of a first column)

    lines = ["{", f"   {json.dumps(name)}: ["]
    objs: list[str] = []
    for r in rows:
        fields = []
        for i in order:
            if i >= len(names):
                continue
            n = names[i]
            value = json.dumps(r[i], ensure_ascii=False) if i < len(r) and r[i] else "null"
            fields.append(f"         {json.dumps(n)}: {value}")
        objs.append("{\n" + ",\n".join(fields) + "\n      }")
    if objs:
        lines.append("      " + ",".join(objs))
    lines.append("   ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


@declare("column", spec=COLUMN_SPEC, effects=Effects.READS, write_failure=LOSES_ERRNO)
def cmd_column(ctx: Ctx) -> int:
    opts, files = ctx.parse(COLUMN_SPEC)
    termwidth = _check_options(ctx, opts)
    with ctx.hold_memory() as mem:
        lines = _read(ctx, files, mem)
        if lines is None:
            return 1
        return _column(ctx, opts, lines, termwidth)


_U32_MAX = 2**32 - 1
_U64 = 2**64


def _strtou32(ctx: Ctx, text: str, message: str) -> int:
    """util-linux's strtou32_or_err: strtoumax in base 10 (leading blanks and a sign allowed; a minus
    wraps, so `-1` is out of range while `-0` is 0), the whole text a number, at most 2^32-1."""
    body = text.lstrip(" \t\n\v\f\r")
    sign = body[:1] if body[:1] in "+-" else ""
    digits = body[len(sign) :]
    if not digits.isascii() or not digits.isdigit():
        raise _die(ctx, f"{message}: '{text}'")
    value = int(digits)
    if sign == "-" and value:
        value = _U64 - value if value <= _U64 else _U64
    if value > _U32_MAX:
        raise _die(ctx, f"{message}: '{text}': Numerical result out of range")
    return value


# The options that shape a table; util-linux refuses them outside table mode (-t, or -J).
_TABLE_ONLY = (
    "table_order",
    "table_name",
    "table_wrap",
    "table_hide",
    "table_truncate",
    "table_noextreme",
    "table_right",
    "table_columns",
)


# util-linux's pairs of options that exclude each other, in its table's order, with their long names.
_EXCLUSIVE = (
    (("json", "--json"), ("fillrows", "--fillrows")),
    (("table", "--table"), ("fillrows", "--fillrows")),
)


def _check_options(ctx: Ctx, opts: Parsed) -> int:
    """util-linux's checks: numbers and exclusive options as its option loop meets them, then the
    modes after the loop, all before any file is read. Returns the output width."""
    termwidth = 80
    seen: set[str] = set()
    for key, value in opts.order:
        for pair in _EXCLUSIVE:
            keys = [k for k, _long in pair]
            if key in keys and any(k in seen and k != key for k in keys):
                raise _die(ctx, "mutually exclusive arguments: " + " ".join(long for _k, long in pair))
        seen.add(key)
        if key == "output_width":
            termwidth = _strtou32(ctx, value, "invalid columns argument")
        elif key == "table_columns_limit" and not _strtou32(ctx, value, "invalid columns limit argument"):
            raise _die(ctx, "columns limit must be greater than zero")
    if not (opts.get("table") or opts.get("json")) and any(opts.get(k) is not None for k in _TABLE_ONLY):
        raise _die(ctx, "option --table required for all --table-*")
    if opts.get("json") and not opts.get("table_columns"):
        raise _die(ctx, "option --table-columns required for --json")
    return termwidth


def _column(ctx: Ctx, opts: Parsed, lines: list[str], termwidth: int) -> int:
    out = Out(ctx.stdout)
    if opts.get("table") or opts.get("json"):
        result = _table(ctx, lines, opts)
    else:
        # A blank line is no entry; -L keeps it as an empty one (its blanks dropped).
        keep = bool(opts.get("keep_empty_lines"))
        entries = [line if line.strip() else "" for line in lines if keep or line.strip()]
        result = _fill(entries, termwidth, bool(opts.get("fillrows")), ctx.checkpoint) if entries else []
    for text in result:
        out.write(encode(text))
    out.flush()
    return 0
