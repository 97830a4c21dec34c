"""GNU ed's buffer, addresses and commands, as scripts drive them.

Lines are held as `Line` objects so that marks (`kx`) follow a line when it moves; a substituted
line is a new object, as GNU replaces the line's node. Every error is GNU's `?` on standard
output (the message itself only after `H`, or with `h`); the exit status is 1 once any command
failed, and 2 when the input ends on an unsaved buffer that no `q` warned about."""

from __future__ import annotations

import errno
from collections.abc import Callable

from ...limits import MemoryHold
from ...regex import Regex, RegexError, compile_regex
from ...regex.brackets import bracket_end
from ...stdio.streams import BufferWriter, StreamReadError
from ...vfs.errors import FsError
from ..context import Ctx

_LINE_COST = 64  # memory charged per line object besides its text

INV_ADDR = "Invalid address"
INV_SUFFIX = "Invalid command suffix"
NO_FILE = "No current filename"
MODIFIED = "Warning: buffer modified"
NO_MATCH = "No match"


class EdError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Quit(Exception):
    pass


class Line:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Cursor:
    """The command line being read, and where."""

    __slots__ = ("s", "i")

    def __init__(self, s: str) -> None:
        self.s = s
        self.i = 0

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def take(self) -> str:
        ch = self.peek()
        self.i += 1
        return ch

    def blanks(self) -> None:
        while self.peek() in (" ", "\t") and self.peek():
            self.i += 1

    def number(self) -> int:
        j = self.i
        while self.peek().isdigit() and self.peek().isascii():
            self.i += 1
        n = int(self.s[j : self.i])
        if n > 2**31 - 1:
            raise EdError("Number out of range")
        return n

    def rest(self) -> str:
        text = self.s[self.i :]
        self.i = len(self.s)
        return text


class Editor:
    def __init__(
        self,
        ctx: Ctx,
        dispatch: Callable[[Editor, _Cursor, list[int], bool], None],
        *,
        counts: bool,
        diagnostics: bool,
        strip_cr: bool,
        ere: bool,
        restricted: bool,
        verbose: bool,
        script_file: bool,
    ) -> None:
        self.ctx = ctx
        # runs one command after its addresses (commands.run_command; given, as it imports this)
        self.dispatch: Callable[[Editor, _Cursor, list[int], bool], None] = dispatch
        self.counts = counts
        self.diagnostics = diagnostics
        self.strip_cr = strip_cr
        self.ere = ere
        self.restricted = restricted
        self.verbose = verbose
        self.script_file = script_file
        self.prompt = "*"
        self.prompt_on = False
        self.mem: MemoryHold | None = None
        self.lines: list[Line] = []
        self.cur = 0
        self.modified = False
        self.warned = False  # the last command was a warning about the unsaved buffer
        self.filename = ""
        self.marks: dict[str, Line] = {}
        self.undo: tuple[list[Line], int, bool] | None = None
        self.changed = False  # the command line being run changed the buffer
        self.last_rx: Regex | None = None  # the last pattern of any command (an empty one repeats it)
        self.subst_rx: Regex | None = None  # the last substitution's
        self.last_repl: str | None = None
        self.last_sub: tuple[list[tuple[str, str]], int, bool] | None = None  # replacement, count, g
        self.last_shell: str | None = None
        self.cut: list[str] = []
        self.errmsg = ""
        self.err_status = 0
        self.lineno = 0  # input lines read (GNU's "script, line N")
        self.queue: list[str] | None = None  # a global command's list, read in place of stdin
        self.in_global = False
        # during a global command, the id()s of lines taken out (the command's undo step keeps
        # them alive, so an id is not reused meanwhile)
        self.removed: set[int] | None = None

    # ------------------------------------------------------------------ input and output

    def out(self, text: str) -> None:
        self.ctx.out(text.encode("utf-8", "surrogateescape"))

    def say(self, message: str) -> None:
        """A diagnostic on stderr, without ed's name (GNU: `FILE: No such file or directory`)."""
        self.ctx.stdout.flush()
        self.ctx.stderr.write(f"{message}\n".encode("utf-8", "surrogateescape"))

    def read_input(self) -> str | None:
        if self.queue is not None:
            return self.queue.pop(0) if self.queue else None
        try:
            raw = self.ctx.stdin.readline()
        except StreamReadError as e:
            if e.errno != errno.EBADF:
                raise
            raw = b""  # (GNU ed takes a closed fd 0 for the end of its input)
        if not raw:
            return None
        self.lineno += 1
        return raw.decode("utf-8", "surrogateescape").removesuffix("\n")

    def read_text(self) -> list[str]:
        """The lines of an a, i or c command, up to a line holding only `.` (or the input's end;
        in a global command's list, the list's end)."""
        text: list[str] = []
        while True:
            line = self.read_input()
            if line is None or line == ".":
                return text
            if self.queue is not None and line.endswith("\\"):
                line = line[:-1]
            self.ctx.checkpoint()
            text.append(line)

    def new_line(self, text: str) -> Line:
        if self.mem is not None:
            self.mem.charge(len(text) + _LINE_COST)
        return Line(text)

    # ------------------------------------------------------------------ the command loop

    def main_loop(self) -> int:
        while True:
            if self.prompt_on:
                self.out(self.prompt)
            line = self.read_input()
            if line is None:
                if self.modified and not self.warned:
                    self.fail(MODIFIED)
                    return 2
                return self.err_status
            try:
                self.run_line(line)
            except _Quit:
                return self.err_status
            except EdError as e:
                self.err_status = 1
                if self.fail(e.message):
                    return self.err_status

    def fail(self, message: str) -> bool:
        """Report an error (`?`, and the message when verbose); whether ed ends here (a script
        read from a regular file)."""
        self.errmsg = message
        self.out("?\n")
        if self.script_file:
            if self.verbose:
                self.out(f"script, line {self.lineno}: {message}\n")
            return True
        if self.verbose:
            self.out(message + "\n")
        return False

    def run_line(self, line: str) -> None:
        """One command line at the top level: an undo step when it changes the buffer."""
        before = (list(self.lines), self.cur, self.modified)
        self.changed = False
        warned = self.warned
        self.warned = False
        try:
            self.command(_Cursor(line), warned)
        finally:
            if self.changed:
                self.undo = before
                self.modified = True

    def command(self, c: _Cursor, warned: bool = False) -> None:
        self.ctx.checkpoint()
        addrs = self.addresses(c)
        self.dispatch(self, c, addrs, warned)

    # ------------------------------------------------------------------ addresses

    def check(self, addr: int) -> int:
        if addr < 0 or addr > len(self.lines):
            raise EdError(INV_ADDR)
        return addr

    def addresses(self, c: _Cursor) -> list[int]:
        """The addresses before a command, as GNU's extract_addresses reads them: `,` alone is
        1,$ and `;` alone .,$; `A,` and `A;` repeat A; `;` makes each address current."""
        addrs: list[int] = []
        pending: int | None = None
        while True:
            addr = self.term(c)
            sep = c.peek() if c.peek() in (",", ";", "%") else ""
            lead = False
            if addr is None:
                if pending is not None:
                    addr = pending
                elif not sep:
                    return addrs
                else:
                    addr, lead = (self.cur if sep == ";" else 1), True
            addrs.append(self.check(addr))
            if not sep:
                return addrs
            c.i += 1
            if sep == ";":
                self.cur = addr
            pending = len(self.lines) if lead else addr

    def term(self, c: _Cursor) -> int | None:
        """One address with its offsets (`$-2`, `/re/+1`, `'a`, `+`, `2 1`), or None."""
        c.blanks()
        start = c.i
        addr = self.cur
        first = True
        while True:
            ch = c.peek()
            if ch.isdigit() and ch.isascii():
                if not first:
                    raise EdError(INV_ADDR)
                addr = c.number()
            elif ch and ch in "+- \t":  # a blank before a number adds it, as `+` does
                c.i += 1
                if ch in " \t":
                    c.blanks()
                if c.peek().isdigit() and c.peek().isascii():
                    n = c.number()
                    addr += -n if ch == "-" else n
                elif ch in "+-":
                    addr += 1 if ch == "+" else -1
            elif ch and ch in ".$/?'":
                if not first:
                    raise EdError(INV_ADDR)
                c.i += 1
                if ch == ".":
                    addr = self.cur
                elif ch == "$":
                    addr = len(self.lines)
                elif ch == "'":
                    addr = self.mark_addr(c.take())
                else:
                    addr = self.search(self.pattern(c, ch), forward=ch == "/")
            else:
                return None if c.i == start else addr
            first = False

    def mark_addr(self, name: str) -> int:
        if not ("a" <= name <= "z"):
            raise EdError("Invalid mark character")
        line = self.marks.get(name)
        if line is not None:
            for i, other in enumerate(self.lines, 1):
                if other is line:
                    return i
        raise EdError(INV_ADDR)

    def search(self, rx: Regex, forward: bool) -> int:
        n = len(self.lines)
        addr = self.cur
        for _ in range(n):
            addr = addr % n + 1 if forward else (addr - 2) % n + 1
            self.ctx.checkpoint()
            if rx.search(self.lines[addr - 1].text):
                return addr
        raise EdError(NO_MATCH)

    # ------------------------------------------------------------------ regular expressions

    def pattern(self, c: _Cursor, delim: str) -> Regex:
        """An address's or a global command's pattern (the opening delimiter already read), with
        its `I` suffix (case-insensitive)."""
        text = self.pattern_text(c, delim, closed=False)
        icase = c.peek() == "I"
        c.i += icase
        return self.compile(text, icase)

    def pattern_text(self, c: _Cursor, delim: str, closed: bool) -> str:
        """The pattern up to `delim`. A missing closing delimiter ends it at the line's end, or is
        an error where more must follow (`closed`: s)."""
        j = c.i
        s = c.s
        while j < len(s) and s[j] != delim:
            if s[j] == "\\":
                j += 1
            elif s[j] == "[":
                end = bracket_end(s, j)
                j = end if end >= 0 else len(s)
            j += 1
        if j >= len(s) and closed:
            raise EdError("Missing pattern delimiter")
        text = s[c.i : min(j, len(s))]
        c.i = j + 1 if j < len(s) else len(s)
        if delim != "\\" and "\\" + delim in text and delim not in "()[]{}.*+?|^$<>":
            text = text.replace("\\" + delim, delim)
        return text

    def compile(self, text: str, icase: bool) -> Regex:
        """A pattern compiled (BRE, or ERE with -E); an empty one is the previous pattern."""
        if not text:
            if icase:
                raise EdError("Suffix 'I' not allowed on empty regexp")
            if self.last_rx is None:
                raise EdError("No previous pattern")
            return self.last_rx
        try:
            rx = compile_regex(text, "ere" if self.ere else "bre", icase, budget=self.ctx.budget)
        except RegexError as e:
            raise EdError(e.message) from None
        self.last_rx = rx
        return rx

    # ------------------------------------------------------------------ buffer edits

    def insert(self, after: int, texts: list[str]) -> None:
        """Put lines after line `after`; the last one put becomes current."""
        if texts:
            self.lines[after:after] = [self.new_line(t) for t in texts]
            self.changed = True
        self.cur = after + len(texts)

    def delete(self, first: int, second: int) -> list[Line]:
        gone = self.lines[first - 1 : second]
        del self.lines[first - 1 : second]
        if self.removed is not None:
            self.removed.update(map(id, gone))
        self.changed = True
        self.cur = first if first <= len(self.lines) else len(self.lines)
        return gone

    # ------------------------------------------------------------------ files

    def open_initial(self, name: str) -> None:
        """The file named on the command line: a missing one is a new file (its name only said on
        stderr); another error makes the run's status 1."""
        self.filename = name
        try:
            self.read_file(name, 0)
        except EdError as e:
            self.err_status = 1
            self.errmsg = e.message
            self.out("?\n")
        except FsError as e:
            if e.errno != errno.ENOENT:
                self.err_status = 1
                self.errmsg = "Cannot open input file"
                self.out("?\n")
        self.modified = False

    def check_name(self, name: str) -> None:
        """Restricted mode (-r) edits only files of the working directory, and runs nothing."""
        if self.restricted and name.startswith("!"):
            raise EdError("Shell access restricted")
        if self.restricted and ("/" in name or name == ".."):
            raise EdError("Directory access restricted")

    def read_file(self, name: str, after: int) -> int:
        """Read a file (or `!command`'s output) after line `after`; says the byte count."""
        if name.startswith("!"):
            data = self.shell_output(name[1:])
        else:
            try:
                data = self.ctx.read_input(name)
            except FsError as e:
                if self.diagnostics:
                    self.say(f"{name}: {e.message}")
                if e.errno == errno.EISDIR:  # opened, then read(2) failed
                    raise EdError("Cannot read input file") from None
                raise
        self.ctx.checkpoint((len(data) >> 12) + 1)
        text = data.decode("utf-8", "surrogateescape")
        size = len(data)
        if text and not text.endswith("\n"):
            self.out("Newline appended\n")
            text += "\n"
            size += 1
        parts = text.split("\n")[:-1] if text else []
        if self.strip_cr:
            parts = [p.removesuffix("\r") for p in parts]
        self.insert(after, parts)
        if self.counts:
            self.out(f"{size}\n")
        return size

    def write_file(self, name: str, first: int, second: int, append: bool) -> None:
        text = "".join(line.text + "\n" for line in self.lines[first - 1 : second] if first)
        data = text.encode("utf-8", "surrogateescape")
        if name.startswith("!"):
            self.shell(name[1:], data)
        else:
            try:
                stream = self.ctx.open_out(name, append=append)
                stream.write(data)
                stream.close()
            except FsError as e:
                if self.diagnostics:
                    self.say(f"{name}: {e.message}")
                raise EdError("Cannot open output file") from None
        if self.counts:
            self.out(f"{len(data)}\n")

    # ------------------------------------------------------------------ shell escapes

    def shell_text(self, text: str) -> str:
        """`!!` is the previous command; an unescaped `%` is the current file name."""
        if self.restricted:
            raise EdError("Shell access restricted")
        raw = text
        if text.startswith("!"):
            if self.last_shell is None:
                raise EdError("No previous command")
            text = self.last_shell + text[1:]
        out: list[str] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\\" and i + 1 < len(text) and text[i + 1] == "%":
                out.append("%")
                i += 2
                continue
            if ch == "%":
                if not self.filename:
                    raise EdError(NO_FILE)
                out.append(self.filename)
            else:
                out.append(ch)
            i += 1
        command = "".join(out)
        if command != text or text != raw:  # GNU shows the command it made
            self.out(command + "\n")
        self.last_shell = command
        return command

    def shell(self, text: str, stdin: bytes | None = None) -> None:
        self.ctx.stdout.flush()
        self.ctx.run_script(self.shell_text(text), stdin=stdin if stdin is not None else b"")

    def shell_output(self, text: str) -> bytes:
        sink = BufferWriter()
        self.ctx.run_script(self.shell_text(text), stdin=b"", stdout=sink)
        return sink.getvalue()
