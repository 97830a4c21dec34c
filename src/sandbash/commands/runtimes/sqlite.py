"""`sqlite3`: the SQLite command-line shell over database files of the virtual filesystem.

The engine is the standard library's sqlite3 (SQLite 3.40 here), in a worker process of its own
(sqlite_child.py, reached through sqlite_remote.py): SQLite's own memory (sorts, temporary tables,
the page cache) is capped there at the run's memory budget left, and the deadline or cancellation
kills it. A database file is read whole from the Vfs into an in-memory database (`deserialize`)
and written back whole (`serialize`) when the shell ends, if it changed: the file lives in the
sandbox (policy, quota) and SQLite never opens a host file. ATTACH, VACUUM INTO and load_extension
are refused by an authorizer (and the attach limit is 0); the database may not grow past the run's
memory budget (max_page_count).
See sqlite_format.py for the output modes, sqlite_dot.py for the dot-commands and sqlite_errors.py
for how the shell stops.
"""

from __future__ import annotations

import errno
import functools
from collections.abc import Callable

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import Stream, StreamReadError
from ...vfs.errors import FsError
from ..context import Ctx
from ..record import Effects, declare
from .common import memory_left
from .sqlite_dot import dot_command
from .sqlite_errors import ShellExit, SqlFailed
from .sqlite_format import COLUMNAR, MODES, Formatter, Settings, columnar, text
from .sqlite_guards import SQLITE_MAX_LENGTH, Aux
from .sqlite_remote import Remote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VERSION = "3.40.1"
OPTIONS_HELP = """Usage: sqlite3 [OPTIONS] FILENAME [SQL]
FILENAME is the name of an SQLite database. A new database is created
if the file does not previously exist.
OPTIONS include:
   -ascii               set output mode to 'ascii'
   -bail                stop after hitting an error
   -box                 set output mode to 'box'
   -cmd COMMAND         run "COMMAND" before reading stdin
   -column              set output mode to 'column'
   -csv                 set output mode to 'csv'
   -echo                print commands before execution
   -header              turn headers on
   -html                set output mode to HTML
   -json                set output mode to 'json'
   -line                set output mode to 'line'
   -list                set output mode to 'list'
   -markdown            set output mode to 'markdown'
   -newline SEP         set output row separator. Default: '\\n'
   -noheader            turn headers off
   -nullvalue TEXT      set text string for NULL values. Default ''
   -quote               set output mode to 'quote'
   -readonly            open the database read-only
   -separator SEP       set output column separator. Default: '|'
   -table               set output mode to 'table'
   -tabs                set output mode to 'tabs'
   -version             show SQLite version
"""
_WITH_ARG = {
    "cmd",
    "init",
    "newline",
    "nullvalue",
    "separator",
    "vfs",
    "mmap",
    "lookaside",
    "pagecache",
    "heap",
    "maxsize",
}
_IGNORED = {"batch", "interactive", "stats", "nofollow", "memtrace", "safe", "sorterref"}
MAX_READ_DEPTH = 25


def split_sql(sql: str, complete: Callable[[str], bool]) -> list[str]:
    """The statements of `sql` (each with its `;`), in order; the tail without one is the last.
    Quotes, identifiers and comments are skipped; a `;` inside CREATE TRIGGER ... END does not
    end the statement (`complete` is sqlite3.complete_statement)."""
    out: list[str] = []
    start = i = 0
    n = len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = sql.find(close, i + 1)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        i += 1
        if c == ";" and complete(sql[start:i]):
            out.append(sql[start:i])
            start = i
    if sql[start:].strip():
        out.append(sql[start:])
    return out


@declare("sqlite3", effects=Effects.OPAQUE, summary="the SQLite shell over database files of the sandbox")
def cmd_sqlite3(ctx: Ctx) -> int:
    try:
        import sqlite3  # stdlib, but a Python may be built without it
    except ImportError:
        ctx.error("runtime not installed (this Python has no sqlite3 module)")
        return 127
    shell = Shell(ctx, sqlite3)
    return shell.main()


class Shell:
    """One sqlite3 invocation: options, the database, then -cmd, SQL arguments or stdin."""

    def __init__(self, ctx: Ctx, lib: Any) -> None:
        self.ctx = ctx
        self.lib = lib
        self.st = Settings()
        self.bail = False
        self.echo = False
        self.readonly = False
        self.db_path: str | None = None
        self.original = b""
        self.conn: Remote | None = None
        self.aux: Any = None  # sqlite_guards.Aux: SQLite's printf for the shell's own float text
        self.out: Stream = ctx.stdout
        self.out_file: Stream | None = None
        self.once = False
        self.errors = 0
        self.depth = 0
        self._buf: list[str] = []
        self._buf_len = 0

    # ------------------------------------------------------------ options

    def _options(self) -> tuple[list[str], list[str]] | int:
        """(-cmd commands, [db, sql...]) or an exit status."""
        ctx, st = self.ctx, self.st
        cmds: list[str] = []
        operands: list[str] = []
        args = ctx.args
        i = 0
        while i < len(args):
            a = args[i]
            i += 1
            if not a.startswith("-") or a == "-":
                operands.append(a)
                continue
            name = a.lstrip("-")
            if name in _WITH_ARG:
                if i >= len(args):
                    ctx.stderr.write(f"sqlite3: Error: missing argument to {a}\n".encode())
                    return 1
                val = args[i]
                i += 1
                if name == "cmd":
                    cmds.append(val)
                elif name == "separator":
                    st.col_sep = val
                elif name == "newline":
                    st.row_sep = val
                elif name == "nullvalue":
                    st.null = val
                elif name == "init":
                    cmds.append(f".read {val}")
                continue
            if name in MODES:
                st.set_mode(name)
            elif name in ("header", "headers"):
                st.headers = st.headers_set = True
            elif name in ("noheader", "noheaders"):
                st.headers, st.headers_set = False, True
            elif name == "bail":
                self.bail = True
            elif name == "echo":
                self.echo = True
            elif name == "readonly":
                self.readonly = True
            elif name == "version":
                ctx.out(f"{VERSION} 2022-12-28 14:03:47 (sandbash)\n")
                return 0
            elif name == "help":
                ctx.stderr.write(OPTIONS_HELP.encode())
                return 0
            elif name in _IGNORED:
                pass
            else:
                ctx.stderr.write(
                    f"sqlite3: Error: unknown option: {a}\nUse -help for a list of options.\n".encode()
                )
                return 1
        return cmds, operands

    # ------------------------------------------------------------ database

    def _open(self, path: str | None) -> int:
        lib, ctx = self.lib, self.ctx
        if path is not None and path not in ("", ":memory:"):
            from .sqlite_uri import UriError, open_target

            try:
                target, mode, readonly = open_target(path)
            except UriError as e:
                ctx.stderr.write(f'Error: unable to open database "{path}": {e}\n'.encode())
                return 1
            self.readonly = self.readonly or readonly
            self.db_path = target  # (None: `file:...?mode=memory`, no file)
            try:
                try:
                    st = ctx.fs.stat(target) if target is not None else None
                except FsError as e:
                    if e.rule or e.errno != errno.ENOENT or mode != "rwc":
                        raise  # (a refused name is not a new database; ro and rw need one)
                    assert target is not None  # (stat was asked)
                    parent = target.rsplit("/", 1)[0] if "/" in target else "."
                    if not ctx.fs.is_dir(parent or "/"):
                        raise
                else:
                    if st is not None and st.size and target is not None:
                        ctx.budget.charge_memory(st.size)
                        self._held = st.size
                        self.original = ctx.fs.read_bytes(target)
            except FsError as e:
                # SQLite's words; a policy refusal is named with its rule instead
                why = e.message if e.rule else "unable to open database file"
                ctx.stderr.write(f'Error: unable to open database "{path}": {why}\n'.encode())
                return 1
        length = max(1, min(ctx.limits.max_string_length, SQLITE_MAX_LENGTH))
        self.aux = Aux(lib, length)
        self.conn = Remote(ctx, lib)
        # (the database image sandbash holds is charged above; the worker's copy stands for it)
        self.conn.setup(memory_left(ctx), length, self.readonly, self.original)
        self.st.real20 = functools.lru_cache(maxsize=4096)(self._real20)
        return 0

    @property
    def db(self) -> Remote:
        """The open connection (the shell runs nothing before `_open` made it)."""
        assert self.conn is not None
        return self.conn

    def _real20(self, value: float) -> str:
        return str(self.aux.call("printf", ("%!.20g", value)))

    def _save(self) -> int:
        """Write the database back to its file if it changed."""
        if self.db_path is None or self.conn is None:
            return 0
        try:
            data = self.conn.serialize()
        except self.lib.OperationalError:
            data = b""  # (an empty in-memory database has no image: sqlite3_serialize gives none)
        if data == self.original or (not self.original and not self._has_schema()):
            return 0
        with self.ctx.hold_memory() as mem:
            mem.charge(len(data))
            try:
                self.ctx.fs.write_bytes(self.db_path, data)
            except FsError as e:
                self.ctx.stderr.write(
                    f'Error: unable to write database "{self.db_path}": {e.message}\n'.encode()
                )
                return 1
        return 0

    def _has_schema(self) -> bool:
        row = self.db.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        return bool(row and row[0])

    # ------------------------------------------------------------ output

    def write(self, s: str) -> None:
        self._buf.append(s)
        self._buf_len += len(s)
        if self._buf_len >= 65536:
            self.flush()

    def flush(self) -> None:
        if self._buf:
            data = "".join(self._buf).encode("utf-8", "surrogateescape")
            self._buf.clear()
            self._buf_len = 0
            self.out.write(data)

    def set_output(self, stream: Stream | None, once: bool = False) -> None:
        self.flush()
        if self.out_file is not None:
            self.out_file.close()
        self.out_file = stream
        self.out = stream if stream is not None else self.ctx.stdout
        self.once = once

    # ------------------------------------------------------------ running SQL

    def run_sql(self, sql: str, line: int | None) -> None:
        """Run every statement of `sql`; the first failure prints its message and raises SqlFailed
        (`line` None: from an argument or -cmd, worded as such)."""
        for stmt in split_sql(sql, self.lib.complete_statement):
            self._statement(stmt, line)
        if self.once:
            self.set_output(None)

    def _statement(self, stmt: str, line: int | None) -> None:
        lib, ctx = self.lib, self.ctx
        rows: list[list[str]] = []
        fmt: Formatter | None = None
        names: list[str] = []
        try:
            cur = self.db.execute(stmt)
            if cur.description is None:
                return
            names = [d[0] for d in cur.description]
            columnar_mode = self.st.mode in COLUMNAR
            fmt = None if columnar_mode else Formatter(self.st, names, self.write)
            with ctx.hold_memory() as mem:
                while True:
                    batch = cur.fetchmany(256)
                    if not batch:
                        break
                    ctx.checkpoint(len(batch))
                    for row in batch:
                        if fmt is not None:
                            fmt.row(row)
                        else:
                            cells = [text(v, self.st.null) for v in row]
                            mem.charge(sum(len(c) for c in cells) * 2 + 64)
                            rows.append(cells)
                if fmt is not None:
                    fmt.end()
                else:
                    columnar(self.st, names, rows, self.write)
        except lib.Error as e:
            if fmt is not None:
                fmt.end()
            self.flush()
            self._sql_error(e, line)
        except BaseException:  # a limit, the deadline: what was printed is ended as SQLite's error would
            if fmt is not None:
                fmt.end()
            self.flush()
            raise

    def _sql_error(self, e: Any, line: int | None) -> None:
        code = getattr(e, "sqlite_errorcode", 1) or 1
        primary = code & 0xFF
        msg = str(e)
        if msg == "database or disk is full" and primary == 13:
            raise LimitExceeded(LimitKind.MAX_MEMORY, self.ctx.limits.max_memory) from None
        if primary == 18 and self.aux is not None and self.aux.limit < SQLITE_MAX_LENGTH:
            # SQLITE_TOOBIG under sandbash's own length limit (the real shell's is 1e9): the limit
            # is named, as the guards name it, rather than a value the real shell would give
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.aux.limit) from None
        # SQLITE_ERROR, SQLITE_AUTH: the statement did not compile; SQLITE_NOTADB: the schema
        # could not be read to compile it (`sqlite3 notes.txt 'create table t(a)'`)
        prepare = primary in (1, 23, 26)
        denied = str(getattr(e, "denied", ""))  # what the worker's authorizer refused
        if primary == 23 and denied:
            msg += f" ({denied})"
        if line is None:
            code_ = f" ({primary})" if primary == 26 else ""
            text_ = f"Error: in prepare, {msg}{code_}" if prepare else f"Error: stepping, {msg} ({primary})"
        else:
            text_ = (
                f"Parse error near line {line}: {msg}"
                if prepare
                else f"Runtime error near line {line}: {msg} ({primary})"
            )
        self.ctx.stderr.write((text_ + "\n").encode("utf-8", "surrogateescape"))
        self.errors += 1
        raise SqlFailed(1 if primary in (1, 23) else primary)

    # ------------------------------------------------------------ input

    def command(self, text_: str, line: int | None) -> None:
        """One argument or -cmd: a dot-command if it starts with '.', else SQL."""
        if text_.startswith("."):
            dot_command(self, text_, line)
        else:
            self.run_sql(text_, line)

    def process(self, readline: Callable[[], str]) -> None:
        """Input read line by line (stdin, .read): dot-commands at the start of a line when no
        SQL is pending; SQL runs when its text is a complete statement. An error stops the rest
        of that statement group; with -bail it stops the input."""
        buf: list[str] = []
        start = lineno = pending = 0
        # a statement that never completes (`yes | sqlite3`) must not grow past max_string_length
        limit = self.ctx.limits.max_string_length
        while True:
            raw = readline()
            if not raw:
                break
            lineno += 1
            self.ctx.checkpoint()
            pending = pending + len(raw) if buf else len(raw)
            if pending > limit:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)
            if not buf and (raw.startswith(".") or raw.startswith("#")):
                if raw.startswith("."):
                    self._echo(raw)
                    self._guarded(self.command, raw.rstrip("\n"), lineno)
                continue
            if not buf:
                if not raw.strip():
                    continue
                start = lineno
            buf.append(raw)
            if ";" not in raw:
                continue  # no statement ends on this line (sqlite3's shell asks only then too)
            joined = "".join(buf)
            if self.lib.complete_statement(joined):
                buf = []
                self._echo(joined)
                self._guarded(self.run_sql, joined.rstrip(), start)
        if buf and "".join(buf).strip():
            tail = "".join(buf)
            self._echo(tail)
            self._guarded(self.run_sql, tail.rstrip(), start)

    def _echo(self, text_: str) -> None:
        """-echo / .echo on: each input command as read, before it runs."""
        if self.echo:
            self.write(text_.rstrip("\n") + "\n")

    def _guarded(self, fn: Callable[..., None], *args: object) -> None:
        try:
            fn(*args)
        except SqlFailed:
            if self.bail:
                raise

    def read_stream(self, stream: Stream) -> Callable[[], str]:
        limit = self.ctx.limits.max_string_length

        def readline() -> str:
            try:
                return stream.readline(limit=limit).decode("utf-8", "surrogateescape")
            except StreamReadError:
                return ""  # (the shell reads with fgets: a failed read is the end, `sqlite3 < dir`)

        return readline

    # ------------------------------------------------------------ main

    def main(self) -> int:
        parsed = self._options()
        if isinstance(parsed, int):
            return parsed
        cmds, operands = parsed
        self._held = 0
        try:
            status = self._open(operands[0] if operands else None)
            if status:
                return status
            try:
                status = self._run(cmds, operands[1:])
            finally:
                self.flush()
                self.set_output(None)
                if self._held:
                    self.ctx.budget.release_memory(self._held)
            saved = self._save()
            return status or saved
        finally:
            for held in (self.conn, self.aux):
                if held is not None:
                    held.close()  # the in-memory databases go now, not when the collector finds them

    def _run(self, cmds: list[str], sql: list[str]) -> int:
        try:
            # -cmd and SQL arguments stop at their first error, with its status
            for c in [*cmds, *sql]:
                self.command(c, None)
        except ShellExit as e:
            return int(e.status)
        except SqlFailed as e:
            return int(e.status)
        if sql:
            return 0
        try:
            self.process(self.read_stream(self.ctx.stdin))
        except ShellExit as e:
            return int(e.status)
        except SqlFailed:
            return 1
        return 1 if self.errors else 0
