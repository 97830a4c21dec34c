"""Parse a GNU sed script into a flat list of commands (blocks become jumps).

Errors carry GNU's wording and position: `-e expression #N, char M: ...`
(or `file F line L: ...` for -f scripts).
"""

from __future__ import annotations

from ...limits import Budget
from ...regex import Regex, RegexError, compile_regex
from ...regex.brackets import bracket_end

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field


class SedError(Exception):
    """A fatal sed error; `message` is printed after `sed: `."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class Piece:
    """One -e expression or -f file of the script."""

    text: str
    expr_no: int = 0  # for -e: the expression number
    file: str | None = None


@dataclass
class Addr:
    kind: str  # "line", "last", "re", "step", "zero"
    n: int = 0
    step: int = 0
    rx: Regex | None = None  # None with kind "re": the last regex used
    flags: str = ""


@dataclass
class Repl:
    """A parsed s/// replacement: parts are (kind, value): ("lit", bytes),
    ("grp", n), ("case", "L"|"U"|"E"|"l"|"u")."""

    parts: list[tuple[str, Any]]
    simple: bytes | None = None  # the whole replacement when it is plain text


@dataclass
class Cmd:
    name: str
    a1: Addr | None = None
    a2: Addr | None = None
    a2_kind: str = ""  # "", "line", "last", "re", "plus", "tilde"
    negate: bool = False
    # arguments
    text: bytes = b""  # a/i/c text, label, file name
    num: int = -1  # q/Q exit code, l length
    rx: Regex | None = None
    rx_empty: bool = False  # s//.../: use the last regex
    repl: Repl | None = None
    global_: bool = False
    occurrence: int = 1
    print_: int = 0
    evaluate: bool = False
    wfile: str | None = None
    icase: bool = False
    mline: bool = False
    ymap: dict[str, str] = field(default_factory=dict)
    target: int = -1  # jump target index (b, t, T, {)
    # range state
    active: bool = False
    closed: bool = False  # a range whose first address is a line number runs once
    end_line: int = 0
    idx: int = 0


class Parser:
    def __init__(
        self,
        pieces: list[Piece],
        extended: bool,
        posix: bool = False,
        budget: Budget | None = None,
        sandbox: bool = False,
        posixly_correct: bool = False,
    ) -> None:
        self.pieces = pieces
        self.sandbox = sandbox  # --sandbox: GNU refuses e/r/w when it reads the script, run or not
        self.budget = budget  # the run's: a back-reference pattern's matching is bounded by its deadline
        texts = []
        self.bounds: list[tuple[int, Piece]] = []
        pos = 0
        for p in pieces:
            self.bounds.append((pos, p))
            texts.append(p.text)
            pos += len(p.text) + 1
        self.s = "\n".join(texts)
        self.n = len(self.s)
        self.i = 0
        self.extended = extended
        self.posix = posix  # --posix: GNU's extensions refused
        # --posix or POSIXLY_CORRECT in the environment: s///'s \N past the groups is not an
        # error (the group is empty), as GNU checks it only in its default mode
        self.check_refs = not (posix or posixly_correct)
        self.cmds: list[Cmd] = []
        self.blocks: list[int] = []
        self.labels: dict[str, int] = {}
        # GNU: a script whose first two characters are "#n" runs as with -n
        self.quiet_hint = self.s.startswith("#n")

    # ------------------------------------------------------------ errors
    def err(self, msg: str, at: int | None = None) -> SedError:
        pos = self.i if at is None else at
        start, piece = self.bounds[0]
        for b, p in self.bounds:
            if b <= max(pos - 1, 0):
                start, piece = b, p
        if piece.file is not None:
            line = self.s.count("\n", start, max(pos - 1, start)) + 1
            return SedError(f"file {piece.file} line {line}: {msg}")
        return SedError(f"-e expression #{piece.expr_no}, char {pos - start}: {msg}")

    def refuse_in_sandbox(self) -> None:
        """--sandbox: an e/r/R/w/W command or an s///e or s///w flag, just read, is an error."""
        if self.sandbox:
            raise self.err("e/r/w commands disabled in sandbox mode")

    # ------------------------------------------------------------ helpers
    def peek(self) -> str:
        return self.s[self.i] if self.i < self.n else ""

    def get(self) -> str:
        c = self.s[self.i] if self.i < self.n else ""
        self.i += 1
        return c

    def skip_ws(self) -> None:
        while self.i < self.n and self.s[self.i] in " \t":
            self.i += 1

    def skip_ws_nl(self) -> None:
        # (before a command GNU skips `;` and any C space: a CRLF script's \r too)
        while self.i < self.n and self.s[self.i] in " \t\n;\r\v\f":
            self.i += 1

    def end_of_cmd(self) -> None:
        """After a command: spaces, then ; or newline or } or # or the end."""
        self.skip_ws()
        c = self.peek()
        if c in ("", "\n", ";"):
            if c:
                self.i += 1
            return
        if c in "}#":
            return
        self.i += 1
        raise self.err("extra characters after command")

    # ------------------------------------------------------------ main
    def parse(self) -> list[Cmd]:
        while True:
            self.skip_ws_nl()
            if self.i >= self.n:
                break
            if self.peek() == "#":
                while self.i < self.n and self.s[self.i] != "\n":
                    self.i += 1
                continue
            self.parse_command()
        if self.blocks:
            raise SedError(
                self.err("unmatched `{'").message.replace(f"char {self.n - self.bounds[-1][0]}", "char 0", 1)
            )
        for c in self.cmds:
            if c.name in "btT":
                label = c.text.decode("utf-8", "surrogateescape")
                if label:
                    if label not in self.labels:
                        raise SedError(f"can't find label for jump to `{label}'", status=4)
                    c.target = self.labels[label]
                else:
                    c.target = len(self.cmds)
        for k, c in enumerate(self.cmds):
            c.idx = k
        return self.cmds

    def parse_address(self) -> Addr | None:
        c = self.peek()
        if c.isdigit():
            j = self.i
            while self.i < self.n and self.s[self.i].isdigit():
                self.i += 1
            n = int(self.s[j : self.i])
            if self.peek() == "~" and not self.posix:  # (--posix: `~` is read as the command)
                self.i += 1
                k = self.i
                while self.i < self.n and self.s[self.i].isdigit():
                    self.i += 1
                step = int(self.s[k : self.i] or "0")
                return Addr("step", n, step)
            return Addr("zero" if n == 0 else "line", n)
        if c == "$":
            self.i += 1
            return Addr("last")
        if c == "/" or c == "\\":
            self.i += 1
            delim = "/"
            if c == "\\":
                delim = self.get()
                if delim in ("", "\n", "\\"):
                    raise self.err("unterminated address regex" if delim != "\\" else "unexpected `,'")
            pat = self.read_delimited(delim, "unterminated address regex", is_regex=True)
            flags = ""
            while self.peek() in ("I", "M") and not self.posix:
                flags += self.get()
            return Addr("re", rx=self.compile(pat, "I" in flags, "M" in flags), flags=flags)
        return None

    def compile(self, pat: str, icase: bool, mline: bool) -> Regex | None:
        if pat == "":
            return None
        if self.posix:
            pat = _posix_pattern(pat, self.extended)
        try:
            return compile_regex(
                pat, "ere" if self.extended else "bre", icase, mline, dialect="sed", budget=self.budget
            )
        except RegexError as e:
            if e.kind == "class_syntax":
                raise SedError(e.message, status=4) from None
            raise self.err(e.message) from None

    def read_delimited(self, delim: str, unterminated: str, is_regex: bool) -> str:
        """Read up to an unescaped `delim`; `\\delim` becomes delim (kept
        escaped when delim is special to regexes and we are in a regex),
        `\\n` stays for the regex layer; brackets are skipped in regexes."""
        out: list[str] = []
        s = self.s
        while True:
            if self.i >= self.n:
                raise self.err(unterminated)
            c = s[self.i]
            self.i += 1
            if c == "\\":
                if self.i >= self.n:
                    raise self.err(unterminated)
                d = s[self.i]
                self.i += 1
                if d == delim:
                    out.append(d if d != "&" or is_regex else "\\&")
                elif d == "\n":
                    out.append("\\n" if is_regex else "\n")
                else:
                    out.append("\\" + d)
                continue
            if c == delim:
                return "".join(out)
            if c == "\n":
                # a raw newline ends the command (only `\` + newline is text)
                raise self.err(unterminated, at=self.i - 1)
            if c == "[" and is_regex:
                j = _bracket_end(s, self.i)
                if j < 0:
                    self.i = self.n
                    raise self.err(unterminated)
                out.append(s[self.i - 1 : j])
                self.i = j
                continue
            out.append(c)

    def read_label(self) -> str:
        """A label ends at a newline, `;`, whitespace or `}` (GNU 4.9: `/x/{b};p`)."""
        self.skip_ws()
        j = self.i
        while self.i < self.n and self.s[self.i] not in "\n; \t}":
            self.i += 1
        label = self.s[j : self.i]
        self.skip_ws()
        return label

    def read_filename(self) -> str:
        self.skip_ws()
        j = self.i
        while self.i < self.n and self.s[self.i] != "\n":
            self.i += 1
        name = self.s[j : self.i]
        if self.i < self.n:
            self.i += 1
        return name

    def read_text(self, cmd: str) -> bytes:
        """Text of a, i, c: GNU one-liner `a text` or `a\\` + lines."""
        s = self.s
        self.skip_ws()
        if self.i >= self.n:
            raise self.err("expected \\ after `a', `c' or `i'")
        if s[self.i] != "\\" and self.posix:  # the one-line `a text` is GNU's
            raise self.err("expected \\ after `a', `c' or `i'", at=self.i + 1)
        if s[self.i] == "\\":
            # `a\` then the text on the next line, or `a\  text` (spaces kept)
            self.i += 1
            if self.i >= self.n:
                if self.posix:
                    raise self.err("incomplete command")
                return b""  # `a\` ending the script: GNU adds nothing, not even a newline
            if s[self.i] == "\n":
                self.i += 1
            elif s.startswith("\\\n", self.i):
                # GNU takes the character after `a\` as the text's first, unescaped, so the
                # newline after `a\\` ends a text of one empty line: what follows is commands
                self.i += 2
                return b"\n"
        out: list[str] = []
        while self.i < self.n:
            c = s[self.i]
            self.i += 1
            if c == "\\":
                if self.i < self.n:
                    d = s[self.i]
                    self.i += 1
                    out.append(_ESC.get(d, d))
                continue
            if c == "\n":
                break
            out.append(c)
        out.append("\n")  # (the text is kept with its newline)
        return "".join(out).encode("utf-8", "surrogateescape")

    def parse_command(self) -> None:
        start = self.i
        a1 = self.parse_address()
        cmd = Cmd("")
        if a1 is not None:
            cmd.a1 = a1
            self.skip_ws()
            if self.peek() == ",":
                self.i += 1
                self.skip_ws()
                c = self.peek()
                if c == "+" or c == "~":
                    self.i += 1
                    if self.posix:
                        raise self.err("unexpected `,'")
                    j = self.i
                    while self.i < self.n and self.s[self.i].isdigit():
                        self.i += 1
                    if j == self.i:
                        raise self.err("expected newer version of sed")
                    cmd.a2 = Addr("line", int(self.s[j : self.i]))
                    cmd.a2_kind = "plus" if c == "+" else "tilde"
                else:
                    a2 = self.parse_address()
                    if a2 is None:
                        if self.i < self.n:
                            self.i += 1
                        raise self.err("unexpected `,'")
                    if a2.kind == "step":
                        a2 = Addr("line", a2.n)
                    cmd.a2 = a2
                    cmd.a2_kind = a2.kind
        self.skip_ws()
        while self.peek() == "!":
            self.i += 1
            if cmd.negate:
                raise self.err("multiple `!'s")
            cmd.negate = True
            self.skip_ws()
        if self.i >= self.n:
            raise self.err("missing command")
        c = self.get()
        cmd.name = c
        if (
            cmd.a1 is not None
            and cmd.a1.kind == "zero"
            and (cmd.a2 is None or cmd.a2_kind != "re" or self.posix)
        ):
            raise self.err("invalid usage of line address 0")
        if cmd.a2 is not None and cmd.a2.kind == "zero":
            raise self.err("invalid usage of line address 0")
        nargs = 2 if cmd.a2 is not None else (1 if cmd.a1 is not None else 0)
        if self.posix and c in _GNU_COMMANDS:
            raise self.err(f"unknown command: `{c}'")
        if c == "{":
            self.blocks.append(len(self.cmds))
            self.cmds.append(cmd)
            return
        if c == "}":
            if nargs:
                raise self.err("unexpected `}'" if False else "} doesn't want any addresses")
            if not self.blocks:
                raise self.err("unexpected `}'")
            opener = self.blocks.pop()
            self.cmds[opener].target = len(self.cmds)
            self.end_of_cmd()
            return
        if c == "#":
            if nargs:
                raise self.err("comments don't accept any addresses")
            while self.i < self.n and self.s[self.i] != "\n":
                self.i += 1
            return
        if c == ":":
            if nargs:
                raise self.err(": doesn't want any addresses")
            label = self.read_label()
            if not label:
                raise self.err('":" lacks a label')
            if self.peek() in (";", "\n"):
                self.i += 1
            self.labels[label] = len(self.cmds)
            return
        if c in "=dDgGhHlnNpPxz":
            if c == "l" and not self.posix:  # (`l N` and `q N` are GNU's)
                self.skip_ws()
                j = self.i
                while self.i < self.n and self.s[self.i].isdigit():
                    self.i += 1
                if j < self.i:
                    cmd.num = int(self.s[j : self.i])
            self.end_of_cmd()
        elif c in "qQ":
            if nargs > 1:
                raise self.err("command only uses one address")
            self.skip_ws()
            j = self.i
            while self.i < self.n and self.s[self.i].isdigit() and not self.posix:
                self.i += 1
            cmd.num = int(self.s[j : self.i]) if j < self.i else 0
            self.end_of_cmd()
        elif c in "aic":
            cmd.text = self.read_text(c)
        elif c in "btT":
            cmd.text = self.read_label().encode("utf-8", "surrogateescape")
            self.end_of_cmd()
        elif c in "rRwW":
            self.refuse_in_sandbox()
            name = self.read_filename()
            if not name:
                raise self.err("missing filename in r/R/w/W commands")
            cmd.text = name.encode("utf-8", "surrogateescape")
        elif c == "e":
            self.refuse_in_sandbox()
            cmd.text = self.read_filename().encode("utf-8", "surrogateescape")
        elif c == "F":
            self.end_of_cmd()
        elif c == "v":
            # `v [version]`: fails unless this is at least that version (4.9)
            version = self.read_label()
            if version and not _version_ok(version):
                raise self.err("expected newer version of sed")
            self.end_of_cmd()
            return
        elif c == "s":
            self.parse_s(cmd)
        elif c == "y":
            self.parse_y(cmd)
        else:
            raise self.err(f"unknown command: `{c}'")
        del start
        self.cmds.append(cmd)

    def parse_s(self, cmd: Cmd) -> None:
        delim = self.get()
        if delim in ("", "\n", "\\"):
            raise self.err("unterminated `s' command")
        pat = self.read_delimited(delim, "unterminated `s' command", is_regex=True)
        repl_src = self.read_delimited(delim, "unterminated `s' command", is_regex=False)
        # flags
        seen_num = False
        while True:
            c = self.peek()
            if c == "g":
                if cmd.global_:
                    self.i += 1
                    raise self.err("multiple `g' options to `s' command")
                cmd.global_ = True
            elif c == "p":
                if cmd.print_:
                    self.i += 1
                    raise self.err("multiple `p' options to `s' command")
                cmd.print_ = 1
            elif c.isdigit():
                if seen_num:
                    self.i += 1
                    raise self.err("multiple number options to `s' command")
                j = self.i
                while self.i < self.n and self.s[self.i].isdigit():
                    self.i += 1
                n = int(self.s[j : self.i])
                if n == 0:
                    raise self.err("number option to `s' command may not be zero")
                cmd.occurrence = n
                seen_num = True
                continue
            elif c and c in "iImMe" and self.posix:
                self.i += 1
                raise self.err("unknown option to `s'")
            elif c in ("i", "I"):
                cmd.icase = True
            elif c in ("m", "M"):
                cmd.mline = True
            elif c == "e":
                self.i += 1
                self.refuse_in_sandbox()
                self.i -= 1
                cmd.evaluate = True
            elif c == "w":
                self.i += 1
                self.refuse_in_sandbox()
                name = self.read_filename()
                if not name:
                    raise self.err("missing filename in r/R/w/W commands")
                cmd.wfile = name
                break
            elif c in (" ", "\t"):  # GNU reads on past blanks: `s/a/b/ g` is the g flag
                pass
            elif c in ("", "\n", ";", "}", "#"):
                self.end_of_cmd()
                break
            elif c == "\r" and self.s[self.i + 1 : self.i + 2] == "\n":  # a CRLF script's line end
                self.i += 2
                break
            else:
                self.i += 1
                raise self.err("unknown option to `s'")
            self.i += 1
        if pat == "":
            cmd.rx_empty = True
        else:
            cmd.rx = self.compile(pat, cmd.icase, cmd.mline)
        cmd.repl = parse_replacement(repl_src, self.posix)
        ngroups = cmd.rx.groups if cmd.rx is not None else 9
        for kind, v in cmd.repl.parts:
            if kind == "grp" and v > ngroups and self.check_refs:
                raise self.err(f"invalid reference \\{v} on `s' command's RHS")

    def parse_y(self, cmd: Cmd) -> None:
        delim = self.get()
        if delim in ("", "\n", "\\"):
            raise self.err("unterminated `y' command")
        src = self.y_part(delim)
        dst = self.y_part(delim)
        if len(src) != len(dst):
            raise self.err("strings for `y' command are different lengths")
        cmd.ymap = dict(zip(src, dst, strict=True))
        self.end_of_cmd()

    def y_part(self, delim: str) -> str:
        out: list[str] = []
        s = self.s
        while True:
            if self.i >= self.n:
                raise self.err("unterminated `y' command")
            c = s[self.i]
            self.i += 1
            if c == "\\":
                d = s[self.i] if self.i < self.n else ""
                self.i += 1
                if d == delim:
                    out.append(d)
                elif d == "\\":
                    out.append("\\")
                elif d == "n":
                    out.append("\n")
                elif d == "t":
                    out.append("\t")
                elif d == "\n":
                    out.append("\n")
                else:
                    out.append(_ESC.get(d, d))
                continue
            if c == delim:
                return "".join(out)
            if c == "\n":
                raise self.err("unterminated `y' command")
            out.append(c)


# what --posix refuses: GNU's commands (T, e, F, z, Q, R, W, v) are unknown there
_GNU_COMMANDS = frozenset("TeFzQRWv")
# GNU's regex escapes: --posix reads each as the character itself
_GNU_REGEX_ESCAPES = frozenset("wWsSbB<>`'")


def _posix_pattern(pat: str, extended: bool) -> str:
    """A pattern as sed --posix reads it: \\w, \\s, \\b, \\<, \\` ... are the characters, and in a
    BRE \\+, \\? and \\| too (GNU's regex syntax without its operators); brackets are kept."""
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "[":
            j = _bracket_end(pat, i + 1)
            if j > 0:
                out.append(pat[i:j])
                i = j
                continue
        if c == "\\" and i + 1 < n:
            d = pat[i + 1]
            if d in _GNU_REGEX_ESCAPES or (not extended and d in "+?|"):
                out.append(d)
            else:
                out.append(pat[i : i + 2])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _version_ok(version: str) -> bool:
    parts = version.split(".")
    if not all(p.isdigit() for p in parts) or len(parts) > 3:
        return False
    nums = [int(p) for p in parts] + [0] * (3 - len(parts))
    return nums <= [4, 9, 0]


def _bracket_end(s: str, i: int) -> int:
    """Index just past the `]` closing a bracket whose `[` is at i-1, or -1 (a newline ends
    the command first)."""
    end = bracket_end(s, i - 1, newline_ends=True)
    return end + 1 if end >= 0 else -1


_ESC = {"n": "\n", "t": "\t", "a": "\a", "f": "\f", "v": "\v", "r": "\r"}


def parse_replacement(src: str, posix: bool = False) -> Repl:
    """The right side of s///; --posix reads \\L \\U \\E \\l \\u as their letters."""
    parts: list[tuple[str, Any]] = []
    lit: list[str] = []

    def flush() -> None:
        if lit:
            parts.append(("lit", "".join(lit).encode("utf-8", "surrogateescape")))
            lit.clear()

    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == "&":
            flush()
            parts.append(("grp", 0))
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            d = src[i + 1]
            i += 2
            if d.isdigit():
                flush()
                parts.append(("grp", int(d)))
            elif d in "LUElu" and not posix:
                flush()
                parts.append(("case", d))
            elif d in _ESC:
                lit.append(_ESC[d])
            elif d == "c" and i < n:
                lit.append(chr(ord(src[i].upper()) ^ 0x40))
                i += 1
            elif d in "dox":
                base, width, digits = {
                    "d": (10, 3, "0123456789"),
                    "o": (8, 3, "01234567"),
                    "x": (16, 2, "0123456789abcdefABCDEF"),
                }[d]
                j = i
                while j < n and j < i + width and src[j] in digits:
                    j += 1
                if j > i:
                    lit.append(chr(int(src[i:j], base) & 0xFF))
                    i = j
                else:
                    lit.append(d)
            else:
                lit.append(d)
            continue
        lit.append(c)
        i += 1
    flush()
    simple = None
    if all(k == "lit" for k, _ in parts):
        simple = b"".join(v for _, v in parts)
    return Repl(parts, simple)
