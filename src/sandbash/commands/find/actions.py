"""find's actions: printing, -exec/-execdir/-ok, -delete, -prune, -quit."""

from __future__ import annotations

from collections.abc import Callable

from ...stdio.streams import Stream
from ...vfs.errors import FsError
from ..fsutil import errmsg, quote
from ..shellutils.common import run_program
from .entry import Entry, Quit, State
from .output import FormatError, compile_format, ls_line, render
from .parse import FindError, Parser, Pred
from .tests import handler

ARG_MAX = 128 * 1024  # bytes of arguments per -exec ... + invocation


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _open(p: Parser, name: str) -> Stream:
    """The file of -fprint/-fprintf/-fls, created (truncated) once at parse time."""
    path = p.arg(name)
    state = p.state
    if path in state.files:
        return state.files[path]
    try:
        stream = p.ctx.open_out(path)
    except FsError as e:
        raise FindError(f"{quote(path)}: {errmsg(e)}")
    state.files[path] = stream
    return stream


def _writer(state: State, stream: Stream | None) -> Callable[[bytes], None]:
    if stream is None:
        return state.emit
    return stream.write


@handler("-print", "-print0", "-fprint", "-fprint0")
def _print(p: Parser, name: str) -> Pred:
    p.has_action = True
    stream = _open(p, name) if name.startswith("-f") else None
    write = _writer(p.state, stream)
    end = b"\0" if name.endswith("0") else b"\n"

    def act(e: Entry) -> bool:
        write(_encode(e.path) + end)
        return True

    return act


@handler("-printf", "-fprintf")
def _printf(p: Parser, name: str) -> Pred:
    p.has_action = True
    stream = _open(p, name) if name == "-fprintf" else None
    fmt = p.arg(name)
    try:
        pieces = compile_format(fmt, p.ctx.error)
    except FormatError as e:
        raise FindError(str(e))
    state = p.state
    write = _writer(state, stream)

    def act(e: Entry) -> bool:
        write(_encode(render(e, pieces, state)))
        return True

    return act


@handler("-ls", "-fls")
def _ls(p: Parser, name: str) -> Pred:
    p.has_action = True
    stream = _open(p, name) if name == "-fls" else None
    state = p.state
    write = _writer(state, stream)

    def act(e: Entry) -> bool:
        write(_encode(ls_line(e, state)))
        return True

    return act


@handler("-prune")
def _prune(p: Parser, name: str) -> Pred:
    p.uses_prune = True
    state = p.state

    def act(e: Entry) -> bool:
        if not state.depth_first:
            state.prune = True
        return True

    return act


@handler("-quit")
def _quit(p: Parser, name: str) -> Pred:
    def act(e: Entry) -> bool:
        raise Quit()

    return act


@handler("-delete")
def _delete(p: Parser, name: str) -> Pred:
    p.has_action = True
    p.uses_delete = True
    p.state.depth_first = True
    ctx = p.ctx
    state = p.state

    def act(e: Entry) -> bool:
        if e.path in (".", "./"):
            return True
        try:
            if e.lst.is_dir:
                ctx.fs.rmdir(e.path)
            else:
                ctx.fs.unlink(e.path)
            return True
        except FsError as err:
            ctx.error(f"cannot delete {quote(e.path)}: {errmsg(err)}")
            state.status = 1
            return False

    return act


class _Exec:
    """One -exec/-execdir/-ok/-okdir: runs through ctx.run so the interpreter's
    policy and limits apply to every command."""

    def __init__(self, p: Parser, name: str) -> None:
        self.ctx = p.ctx
        self.state = p.state
        self.name = name
        self.in_dir = name in ("-execdir", "-okdir")
        self.ask = name in ("-ok", "-okdir")
        args: list[str] = []
        self.batch = False
        while True:
            if p.pos >= len(p.tokens):
                raise FindError(f"missing argument to `{name}'")
            tok = p.next()
            if tok == ";":
                break
            if tok == "+" and args and args[-1] == "{}" and not self.ask:
                self.batch = True
                args.pop()
                break
            args.append(tok)
        if not args:
            raise FindError(f"missing argument to `{name}'")
        if self.batch and any("{}" in a for a in args):
            raise FindError(f"Only one instance of {{}} is supported with {name} ... +")
        self.args = args
        self.pending: list[tuple[str, str]] = []  # (directory or "", path)
        self.pending_size = 0

    def _argv(self, path: str) -> list[str]:
        return [a.replace("{}", path) for a in self.args]

    def _place(self, e: Entry) -> tuple[str, str]:
        """(directory to run in, the name to pass) for -execdir."""
        path = e.path.rstrip("/") or "/"
        if "/" not in path:
            return ".", "./" + path
        head, base = path.rsplit("/", 1)
        return (head or "/"), ("./" + base if base else path)

    def _run(self, argv: list[str], directory: str | None) -> int:
        state = self.state
        state.flush()
        stdin: bytes | None = b"" if self.ask else None
        # a program the shell cannot run fails here, worded as GNU find words it
        return run_program(self.ctx, argv, stdin=stdin, cwd=directory)

    def __call__(self, e: Entry) -> bool:
        self.ctx.checkpoint()
        if self.batch:
            directory, name = self._place(e) if self.in_dir else ("", e.path)
            if self.pending and (
                self.pending_size > ARG_MAX or (self.in_dir and self.pending[0][0] != directory)
            ):
                self.flush()
            self.pending.append((directory, name))
            self.pending_size += len(name) + 1
            return True
        run_in: str | None = None
        name = e.path
        if self.in_dir:
            run_in, name = self._place(e)
        argv = self._argv(name)
        if self.ask:
            prompt = f"< {argv[0]} ... {name} > ? "
            self.state.flush()
            self.ctx.stderr.write(_encode(prompt))
            try:
                answer = self.ctx.stdin.readline()
            except OSError:
                answer = b""
            if answer[:1] not in (b"y", b"Y"):
                return False
        return self._run(argv, run_in) == 0

    def flush(self) -> None:
        if not self.pending:
            return
        directory = self.pending[0][0] if self.in_dir else None
        argv = list(self.args) + [name for _, name in self.pending]
        self.pending = []
        self.pending_size = 0
        if self._run(argv, directory) != 0:
            self.state.status = 1


@handler("-exec", "-execdir", "-ok", "-okdir")
def _exec(p: Parser, name: str) -> Pred:
    p.has_action = True
    ex = _Exec(p, name)
    if ex.batch:
        p.finishers.append(ex.flush)
    return ex
