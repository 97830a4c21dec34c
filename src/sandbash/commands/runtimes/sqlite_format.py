"""The sqlite3 shell's output modes, as sqlite 3.40's CLI prints them.

A result is its column names and rows of Python values (None, int, float, str, bytes). Text
conversion follows the CLI: REAL as `%!.15g` (`1.0`, `1.0e+20`, `Inf`), `%!.20g` in json, quote
and insert modes; blobs as their bytes (quote/insert: `X'hex'`). The columnar modes (column,
table, box, markdown) always print a header and size each column to its widest cell.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Row = Sequence[object]

MODES = (
    "ascii",
    "box",
    "column",
    "csv",
    "html",
    "insert",
    "json",
    "line",
    "list",
    "markdown",
    "quote",
    "table",
    "tabs",
)
# modes that print a header line whatever .headers says
ALWAYS_HEADER = frozenset({"table", "box", "markdown"})
COLUMNAR = frozenset({"column", "table", "box", "markdown"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# words that the CLI quotes as a table name in insert mode (the common ones)
_KEYWORDS = frozenset(
    {
        "table",
        "select",
        "from",
        "where",
        "order",
        "group",
        "by",
        "index",
        "insert",
        "values",
        "update",
        "delete",
        "create",
        "drop",
        "default",
        "key",
        "primary",
        "references",
        "join",
        "on",
        "as",
        "and",
        "or",
        "not",
        "null",
        "is",
        "in",
        "limit",
        "union",
        "all",
        "check",
    }
)


@dataclass
class Settings:
    """The shell's output state: .mode, .headers, .separator, .nullvalue."""

    mode: str = "list"
    headers: bool = False
    col_sep: str = "|"
    row_sep: str = "\n"
    null: str = ""
    table: str = "table"  # insert mode's table name
    widths: list[int] = field(default_factory=list)
    headers_set: bool = False  # -header/-noheader or .headers was given
    # `%!.20g` as SQLite's own printf spells it (its last digits are not glibc's); the shell sets it
    real20: Callable[[float], str] | None = None

    def set_mode(self, mode: str, table: str | None = None, dot: bool = False) -> None:
        """`.mode MODE` (dot) or the `-MODE` option, with sqlite 3.40's separator rules: only the
        dot-command gives csv its CRLF rows and turns column's header on (unless headers were set)."""
        self.mode = "list" if mode == "tabs" else mode
        if mode == "csv":
            self.col_sep = ","
            if dot:
                self.row_sep = "\r\n"
        elif mode == "tabs":
            self.col_sep = "\t"
        elif mode == "ascii":
            self.col_sep, self.row_sep = "\x1f", "\x1e"
        elif mode == "list":
            if self.col_sep == ",":
                self.col_sep = "|"
            if self.row_sep == "\r\n":
                self.row_sep = "\n"
        elif mode == "quote" and dot:
            self.col_sep, self.row_sep = ",", "\n"
        if mode == "column" and dot and not self.headers_set:
            self.headers = True
        if mode == "insert":
            self.table = table or "table"


def real_text(value: float, digits: int = 15) -> str:
    """SQLite's `%!.Ng`: always a decimal point, two-digit exponent, Inf for infinity."""
    if value != value:
        return ""
    if value in (float("inf"), float("-inf")):
        return "Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0.0"
    text = f"%.{digits}g" % value
    if "e" in text:
        mantissa, exp = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}e{exp}"
    return text if "." in text else text + ".0"


def blob_text(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")


def text(value: object, null: str) -> str:
    """A value as the list-like modes print it."""
    if value is None:
        return null
    if isinstance(value, float):
        return real_text(value)
    if isinstance(value, bytes):
        return blob_text(value)
    return str(value)


def _real20(value: float, real20: Callable[[float], str] | None) -> str:
    return real20(value) if real20 is not None else real_text(value, 20)


def sql_literal(value: object, insert: bool, real20: Callable[[float], str] | None = None) -> str:
    """quote and insert modes: SQL literal text."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        if value in (float("inf"), float("-inf")):
            big = "1e999" if insert else "Inf"
            return big if value > 0 else "-" + big
        return _real20(value, real20)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    s = "'" + str(value).replace("'", "''") + "'"
    if insert:
        # the CLI spells line breaks out so that one INSERT stays on one line
        for ch, esc, code in (("\n", "\\n", 10), ("\r", "\\r", 13)):
            if ch in s:
                s = "replace(" + s.replace(ch, esc) + f",'{esc}',char({code}))"
    return s


def json_string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif o < 0x20:
            out.append(
                {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, f"\\u{o:04x}")
            )
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_value(value: object, real20: Callable[[float], str] | None = None) -> str:
    if value is None:
        return "null"
    if isinstance(value, float):
        if value in (float("inf"), float("-inf")):
            return "1e999" if value > 0 else "-1e999"
        return _real20(value, real20)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return json_string(blob_text(value))
    return json_string(str(value))


def csv_field(s: str, sep: str, is_null: bool) -> str:
    if is_null:
        return s
    needs = (
        s == "" or (sep != "" and sep in s) or any(ord(c) < 0x21 or c in '",' or ord(c) >= 0x7F for c in s)
    )
    return '"' + s.replace('"', '""') + '"' if needs else s


def _html(s: str) -> str:
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def table_name(name: str) -> str:
    if _IDENT.match(name) and name.lower() not in _KEYWORDS:
        return name
    return '"' + name.replace('"', '""') + '"'


class Formatter:
    """Prints one statement's result; `rows()` takes the rows as they are stepped (only the
    columnar modes hold a whole result, to size the columns)."""

    def __init__(self, st: Settings, names: list[str], write: Callable[[str], None]) -> None:
        self.st = st
        self.names = names
        self.write = write
        self.count = 0

    def row(self, row: Row) -> None:
        st, mode = self.st, self.st.mode
        first = self.count == 0
        self.count += 1
        if mode in ("list", "csv", "tabs", "ascii"):
            sep = st.col_sep
            if first and st.headers:
                heads = [csv_field(n, sep, False) if mode == "csv" else n for n in self.names]
                self.write(sep.join(heads) + st.row_sep)
            cells = [text(v, st.null) for v in row]
            if mode == "csv":
                cells = [csv_field(c, sep, v is None) for c, v in zip(cells, row, strict=False)]
            self.write(sep.join(cells) + st.row_sep)
        elif mode == "line":
            width = max(5, *(len(n) for n in self.names))  # the CLI's names column is at least 5 wide
            lines = [f"{n:>{width}} = {text(v, st.null)}\n" for n, v in zip(self.names, row, strict=False)]
            self.write(("" if first else "\n") + "".join(lines))
        elif mode == "json":
            fields = ",".join(
                f"{json_string(n)}:{json_value(v, st.real20)}" for n, v in zip(self.names, row, strict=False)
            )
            self.write(("[" if first else ",\n") + "{" + fields + "}")
        elif mode in ("quote", "insert"):
            vals = ",".join(sql_literal(v, mode == "insert", st.real20) for v in row)
            if mode == "quote":
                if first and st.headers:
                    self.write(",".join(sql_literal(n, False) for n in self.names) + "\n")
                self.write(vals + "\n")
            else:
                cols = "(" + ",".join(table_name(n) for n in self.names) + ")" if st.headers else ""
                self.write(f"INSERT INTO {table_name(st.table)}{cols} VALUES({vals});\n")
        elif mode == "html":
            if first and st.headers:
                self.write("<TR>" + "".join(f"<TH>{_html(n)}</TH>\n" for n in self.names) + "</TR>\n")
            self.write("<TR>" + "".join(f"<TD>{_html(text(v, st.null))}</TD>\n" for v in row) + "</TR>\n")

    def end(self) -> None:
        if self.st.mode == "json" and self.count:
            self.write("]\n")


def columnar(st: Settings, names: list[str], rows: list[list[str]], write: Callable[[str], None]) -> None:
    """column, table, box, markdown: every cell already text; multi-line cells span lines."""
    if not rows:
        return
    n = len(names)
    split = [[c.split("\n") for c in r] for r in rows]
    widths = [len(h) for h in names]
    for i, w in enumerate(st.widths[:n]):
        if w:
            widths[i] = abs(w)
    for r in split:
        for i, lines in enumerate(r):
            widths[i] = max(widths[i], *(len(x) for x in lines))
    multi = any(len(lines) > 1 for r in split for lines in r)
    mode = st.mode

    def line(cells: list[str], center: bool = False) -> str:
        out = []
        for c, w in zip(cells, widths, strict=False):
            if center:
                left = (w - len(c)) // 2
                out.append(" " * left + c + " " * (w - len(c) - left))
            else:
                out.append(c + " " * (w - len(c)))
        if mode == "column":
            return "  ".join(out) + "\n"
        bar = "│" if mode == "box" else "|"
        return bar + " " + f" {bar} ".join(out) + f" {bar}\n"

    def rule(left: str, mid: str, right: str, fill: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right + "\n"

    if mode == "box":
        write(rule("┌", "┬", "┐", "─") + line(names, True) + rule("├", "┼", "┤", "─"))
    elif mode == "table":
        write(rule("+", "+", "+", "-") + line(names, True) + rule("+", "+", "+", "-"))
    elif mode == "markdown":
        write(line(names, True) + rule("|", "|", "|", "-"))
    elif st.headers:
        write(line(names) + "  ".join("-" * w for w in widths) + "\n")
    for k, r in enumerate(split):
        if k and multi:
            if mode == "box":
                write(rule("├", "┼", "┤", "─"))
            elif mode == "table":
                write(rule("+", "+", "+", "-"))
            elif mode == "column":
                write("\n")
        for j in range(max(len(x) for x in r)):
            write(line([x[j] if j < len(x) else "" for x in r]))
    if mode == "box":
        write(rule("└", "┴", "┘", "─"))
    elif mode == "table":
        write(rule("+", "+", "+", "-"))
