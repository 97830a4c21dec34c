"""The sqlite3 shell's dot-commands (the common ones; the rest are refused in one line)."""

from __future__ import annotations

import csv
import io
import shlex
from collections.abc import Callable

from ...vfs.errors import FsError
from .sqlite_errors import ShellExit, SqlFailed
from .sqlite_format import MODES, sql_literal, table_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .sqlite import Shell


IMPORT_BATCH = 512  # rows of .import sent to the worker at once
HELP = """.bail on|off             Stop after hitting an error.  Default OFF
.databases               List names and files of attached databases
.dump ?OBJECTS?          Render database content as SQL
.echo on|off             Turn command echo on or off
.exit ?CODE?             Exit this program with return-code CODE
.headers on|off          Turn display of headers on or off
.help ?-all? ?PATTERN?   Show help text for PATTERN
.import FILE TABLE       Import data from FILE into TABLE
.indexes ?TABLE?         Show names of indexes
.mode MODE ?TABLE?       Set output mode
.nullvalue STRING        Use STRING in place of NULL values
.once FILE               Output for the next SQL command only to FILE
.output ?FILE?           Send output to FILE or stdout if FILE is omitted
.print STRING...         Print literal STRING
.quit                    Exit this program
.read FILE               Read input from FILE
.schema ?PATTERN?        Show the CREATE statements matching PATTERN
.separator COL ?ROW?     Change the column and row separators
.show                    Show the current values for various settings
.tables ?TABLE?          List names of tables matching LIKE pattern TABLE
.width NUM1 NUM2 ...     Set minimum column widths for columnar output
"""
_NOT_HERE = {
    "shell",
    "system",
    "open",
    "save",
    "backup",
    "restore",
    "clone",
    "archive",
    "ar",
    "load",
    "excel",
    "cd",
    "vfsinfo",
    "vfslist",
    "vfsname",
    "log",
    "trace",
    "sha3sum",
    "testcase",
    "selftest",
}


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line, posix=True)
    except ValueError:
        return line.split()


def _bool(word: str) -> bool:
    return word.lower() in ("on", "yes", "true", "1")


def dot_command(sh: Shell, line: str, lineno: int | None) -> None:
    words = _words(line[1:])
    if not words:
        return
    cmd, args = words[0], words[1:]
    handler = _TABLE.get(cmd) or _TABLE.get(_prefix(cmd))
    if cmd in _NOT_HERE:
        sh.ctx.stderr.write(
            f"Error: .{cmd} is not supported in sandbash (no host files or processes)\n".encode()
        )
        sh.errors += 1
        raise SqlFailed(1)
    if handler is None:
        sh.ctx.stderr.write(
            f'Error: unknown command or invalid arguments:  "{cmd}". Enter ".help" for help\n'.encode()
        )
        sh.errors += 1
        raise SqlFailed(1)
    if cmd in ("quit", "exit"):
        sh.flush()
        raise ShellExit(int(args[0]) if cmd == "exit" and args and args[0].lstrip("-").isdigit() else 0)
    try:
        handler(sh, args)
    except (
        sh.lib.Error
    ) as e:  # a query of the dot-command failed (`.tables` of a file that is not a database)
        _fail(sh, f"Error: {e}")


def _cannot_open(sh: Shell, path: str, e: FsError) -> None:
    """The shell's words for a file `.read`/`.import` cannot open; a policy refusal is named,
    with its rule, after them (as `.output` names every failure)."""
    _fail(sh, f'Error: cannot open "{path}"' + (f" ({e.message})" if e.rule else ""))


def _prefix(cmd: str) -> str:
    """Dot-commands may be abbreviated to a unique prefix (`.tab`, `.sch`)."""
    hits = [name for name in _TABLE if name.startswith(cmd)] if cmd else []
    return hits[0] if len(hits) == 1 else ""


def _fail(sh: Shell, message: str) -> None:
    sh.flush()
    sh.ctx.stderr.write((message + "\n").encode("utf-8", "surrogateescape"))
    sh.errors += 1
    raise SqlFailed(1)


def _columns(sh: Shell, names: list[str]) -> None:
    """Names in columns down then across, 80 wide, as .tables and .indexes print them."""
    if not names:
        return
    width = max(len(n) for n in names)
    ncol = max(1, 80 // (width + 2))
    nrow = (len(names) + ncol - 1) // ncol
    for i in range(nrow):
        cells = []
        for j in range(i, len(names), nrow):
            cells.append(("" if j < nrow else "  ") + names[j].ljust(width))
        sh.write("".join(cells) + "\n")


def _query(sh: Shell, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    return list(sh.db.execute(sql, params).fetchall())


def do_tables(sh: Shell, args: list[str]) -> None:
    pattern = args[0] if args else "%"
    rows = _query(
        sh,
        "SELECT name FROM sqlite_schema WHERE type IN ('table','view') "
        "AND name NOT LIKE 'sqlite_%' AND name LIKE ? ORDER BY 1",
        (pattern,),
    )
    _columns(sh, [str(r[0]) for r in rows])


def do_indexes(sh: Shell, args: list[str]) -> None:
    pattern = args[0] if args else "%"
    rows = _query(
        sh, "SELECT name FROM sqlite_schema WHERE type='index' AND tbl_name LIKE ? ORDER BY 1", (pattern,)
    )
    _columns(sh, [str(r[0]) for r in rows])


def _view_note(sh: Shell, name: str) -> str:
    cols = [str(r[1]) for r in _query(sh, "SELECT * FROM pragma_table_info(?)", (name,))]
    return f"\n/* {name}({','.join(cols)}) */"


def _create_text(sql: str) -> str:
    """The CLI shows a table created with a quoted name as CREATE TABLE IF NOT EXISTS."""
    prefix = 'CREATE TABLE "'
    return "CREATE TABLE IF NOT EXISTS " + sql[13:] if sql.startswith(prefix) else sql


def do_schema(sh: Shell, args: list[str]) -> None:
    pattern = next((a for a in args if not a.startswith("--")), "%")
    rows = _query(
        sh,
        "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND tbl_name LIKE ? "
        "AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
        (pattern,),
    )
    for kind, name, sql in rows:
        note = _view_note(sh, str(name)) if kind == "view" else ""
        sh.write(f"{_create_text(str(sql))}{note};\n")


def do_dump(sh: Shell, args: list[str]) -> None:
    pattern = args[0] if args else "%"
    sh.write("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
    rows = _query(
        sh,
        "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND tbl_name LIKE ? "
        "AND (name NOT LIKE 'sqlite_%' OR name = 'sqlite_sequence') ORDER BY type='table' DESC, rowid",
        (pattern,),
    )
    for kind, name, sql in rows:
        if name == "sqlite_sequence":
            sh.write("DELETE FROM sqlite_sequence;\n")  # AUTOINCREMENT counters: the table itself exists
        else:
            sh.write(f"{_create_text(str(sql))};\n")
        if kind != "table":
            continue
        quoted = table_name(str(name))
        cur = sh.db.execute(f'SELECT * FROM "{str(name).replace(chr(34), chr(34) * 2)}"')
        while True:
            batch = cur.fetchmany(256)
            if not batch:
                break
            sh.ctx.checkpoint(len(batch))
            for row in batch:
                sh.write(
                    f"INSERT INTO {quoted} VALUES({','.join(sql_literal(v, True, sh.st.real20) for v in row)});\n"
                )
    sh.write("COMMIT;\n")


def do_mode(sh: Shell, args: list[str]) -> None:
    if not args:
        sh.write(f"current output mode: {sh.st.mode}\n")
        return
    mode = args[0]
    if mode not in MODES:
        _fail(sh, f"Error: mode should be one of: {' '.join(MODES)}")
    sh.st.set_mode(mode, args[1] if len(args) > 1 else None, dot=True)


def do_headers(sh: Shell, args: list[str]) -> None:
    if len(args) != 1:
        _fail(sh, "Usage: .headers on|off")
    sh.st.headers = _bool(args[0])
    sh.st.headers_set = True


def do_separator(sh: Shell, args: list[str]) -> None:
    if not args:
        _fail(sh, "Usage: .separator COL ?ROW?")
    sh.st.col_sep = _unescape(args[0])
    if len(args) > 1:
        sh.st.row_sep = _unescape(args[1])


def _unescape(s: str) -> str:
    return s.replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r").replace("\\\\", "\\")


def do_nullvalue(sh: Shell, args: list[str]) -> None:
    sh.st.null = args[0] if args else ""


def do_bail(sh: Shell, args: list[str]) -> None:
    sh.bail = bool(args) and _bool(args[0])


def do_echo(sh: Shell, args: list[str]) -> None:
    sh.echo = bool(args) and _bool(args[0])


def do_width(sh: Shell, args: list[str]) -> None:
    sh.st.widths = [int(a) if a.lstrip("-").isdigit() else 0 for a in args]


def do_print(sh: Shell, args: list[str]) -> None:
    sh.write(" ".join(args) + "\n")


def do_help(sh: Shell, args: list[str]) -> None:
    sh.write(HELP)


def do_databases(sh: Shell, args: list[str]) -> None:
    mode = "r/o" if sh.readonly else "r/w"
    sh.write(f'main: "{sh.db_path or ""}" {mode}\n')


def do_show(sh: Shell, args: list[str]) -> None:
    st = sh.st
    items = [
        ("echo", "on" if sh.echo else "off"),
        ("headers", "on" if st.headers else "off"),
        ("mode", st.mode),
        ("nullvalue", f'"{st.null}"'),
        ("output", "stdout" if sh.out_file is None else "file"),
        ("colseparator", repr(st.col_sep)),
        ("rowseparator", repr(st.row_sep)),
        ("filename", sh.db_path or ":memory:"),
    ]
    for k, v in items:
        sh.write(f"{k:>12}: {v}\n")


def _redirect(sh: Shell, args: list[str], once: bool) -> None:
    if not args or args[0] in ("stdout", "-"):
        sh.set_output(None)
        return
    path = args[-1]
    if path.startswith("|") or args[0].startswith("-"):
        _fail(sh, f"Error: {'.once' if once else '.output'} {args[0]}: not supported in sandbash")
    try:
        sh.set_output(sh.ctx.open_out(path), once)
    except FsError as e:
        _fail(sh, f'Error: cannot open "{path}" ({e.message})')


def do_output(sh: Shell, args: list[str]) -> None:
    _redirect(sh, args, False)


def do_once(sh: Shell, args: list[str]) -> None:
    _redirect(sh, args, True)


def do_read(sh: Shell, args: list[str]) -> None:
    if len(args) != 1:
        _fail(sh, "Usage: .read FILE")
    if sh.depth >= 25:
        _fail(sh, "Error: .read nested too deeply")
    try:
        stream = sh.ctx.open_in(args[0])
    except FsError as e:
        _cannot_open(sh, args[0], e)
        return
    sh.depth += 1
    try:
        sh.process(sh.read_stream(stream))
    finally:
        sh.depth -= 1
        if stream is not sh.ctx.stdin:
            stream.close()


def do_import(sh: Shell, args: list[str]) -> None:
    opts = [a for a in args if a.startswith("--")]
    rest = [a for a in args if not a.startswith("--")]
    skip = 0
    if "--skip" in args:
        at = args.index("--skip")
        skip = int(args[at + 1]) if at + 1 < len(args) and args[at + 1].isdigit() else 0
        rest = [a for a in rest if a != str(skip)]
    if len(rest) != 2:
        _fail(sh, "Usage: .import FILE TABLE")
    path, table = rest
    csv_mode = "--csv" in opts or (sh.st.mode == "csv" and "--ascii" not in opts)
    try:
        data = sh.ctx.read_input(path).decode("utf-8", "surrogateescape")
    except FsError as e:
        _cannot_open(sh, path, e)
        return
    with sh.ctx.hold_memory() as mem:
        mem.charge(len(data) * 4)
        records = _records(
            data,
            csv_mode,
            sh.st.col_sep if not csv_mode else ",",
            "\x1e" if "--ascii" in opts else sh.st.row_sep,
        )
        _insert(sh, path, table, records[skip:])


def _records(data: str, csv_mode: bool, sep: str, row_sep: str) -> list[list[str]]:
    if csv_mode:
        return [r for r in csv.reader(io.StringIO(data, newline=""), delimiter=sep or ",") if r]
    rows = data.split(row_sep or "\n")
    if rows and rows[-1] == "":
        rows.pop()
    return [r.split(sep) if sep else [r] for r in rows]


def _insert(sh: Shell, path: str, table: str, records: list[list[str]]) -> None:
    if not records:
        return
    exists = _query(sh, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name=?", (table,))[0][0]
    quoted = '"' + table.replace('"', '""') + '"'
    if not exists:
        header, records = records[0], records[1:]
        cols = ", ".join('"' + c.replace('"', '""') + '" TEXT' for c in header)
        sh.db.execute(f"CREATE TABLE IF NOT EXISTS {quoted}(\n{cols})")
    ncol = len(sh.db.execute(f"SELECT * FROM {quoted} LIMIT 0").description or ())
    insert = f"INSERT INTO {quoted} VALUES({','.join('?' * ncol)})"
    sh.db.execute("BEGIN")
    try:
        batch: list[list[str | None]] = []  # rows go to the worker in batches (one round trip each)
        for n, rec in enumerate(records, start=2 if not exists else 1):
            if len(rec) != ncol:
                fix = "filling the rest with NULL" if len(rec) < ncol else "extras ignored"
                sh.ctx.stderr.write(
                    f"{path}:{n}: expected {ncol} columns but found {len(rec)} - {fix}\n".encode()
                )
            batch.append([*rec[:ncol], *[None] * (ncol - len(rec))])
            if len(batch) >= IMPORT_BATCH:
                sh.db.executemany(insert, batch)
                sh.ctx.checkpoint(len(batch))
                batch = []
        sh.db.executemany(insert, batch)
    finally:
        sh.db.execute("COMMIT")


_TABLE: dict[str, Callable[[Shell, list[str]], None]] = {
    "tables": do_tables,
    "indexes": do_indexes,
    "indices": do_indexes,
    "schema": do_schema,
    "dump": do_dump,
    "mode": do_mode,
    "headers": do_headers,
    "header": do_headers,
    "separator": do_separator,
    "nullvalue": do_nullvalue,
    "bail": do_bail,
    "echo": do_echo,
    "width": do_width,
    "print": do_print,
    "help": do_help,
    "databases": do_databases,
    "show": do_show,
    "output": do_output,
    "once": do_once,
    "read": do_read,
    "import": do_import,
    "quit": do_help,
    "exit": do_help,
    "timer": lambda sh, a: None,
    "changes": lambda sh, a: None,
}
