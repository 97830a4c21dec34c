"""The bash command grammar: lists, pipelines, compound commands, redirections.

`Parser.parse_next()` returns one complete command (up to a newline) at a
time, as bash reads a script: aliases and `shopt -s extglob` set by a line
take effect on the lines after it. `parse_all()` parses everything at once.
Only `ParseError` ever leaves this module.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from functools import cache

from ..leanclass import Declared
from . import ast as A
from .aliastext import AliasSpans, AliasUses
from .arith import subscript_end
from .braces import brace_parts
from .continuations import past_continuations, without_continuations
from .errors import ParseError, ParseLimit
from .escapes import ansi_decoded, decode_escapes, printable_name
from .lexer import (
    CASE_PAT,
    CMD,
    COND,
    KEY,
    REGEX,
    WordReader,
    assignment_tildes,
    name_unclosed_in,
    tilde_prefix,
)
from .reserved import RESERVED as _RESERVED
from .testops import BINARY_TESTS, UNARY_TESTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass


def _named_unclosed(a: A.Assign) -> A.Assign:
    """A declaration's argument `x="${a[}"`: bash's message names the whole argument."""
    assert a.value is not None
    parts = list(a.value.parts)
    if not name_unclosed_in(parts, lambda: a.text):
        return a
    value = A.Word(tuple(parts), a.value.line, a.value.text, a.value.col)
    return A.Assign(a.name, value, a.sub, a.append, a.array, a.text, a.subscript)


_OPERATORS = (
    ";;&",
    ";;",
    ";&",
    "&&",
    "||",
    "|&",
    "&>>",
    "&>",
    "<<<",
    "<<-",
    "<<",
    "<>",
    "<&",
    ">>",
    ">&",
    ">|",
    "<",
    ">",
    ";",
    "&",
    "|",
    "(",
    ")",
    "\n",
)
_OP_START = frozenset(";&|<>()\n")  # what starts an operator token
_OP_CHARS = frozenset(";&|<>-(")  # what an operator's second and third characters are
# what a [[ ]] operator is made of: `&&`, `||`, `]]` and the binary operators (`==`, `-nt`, `=~`)
_COND_OP_CHARS = frozenset("&|]=!<>~-abcdefgilnoqrtuwxyzGLNOS")
_REDIR_OPS = frozenset({"<", ">", ">>", ">|", "<>", "<&", ">&", "&>", "&>>", "<<", "<<-", "<<<"})
_LIST_TERMINATORS = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}"})
_DECL_BUILTINS = frozenset({"declare", "typeset", "local", "export", "readonly"})
# after these bash reads `name=(...)` as one word (its parser's PST_ASSIGNOK); eval and let
# take only that form as an assignment-shaped word (`eval z=$x` splits $x as any word)
_ASSIGN_OK = _DECL_BUILTINS | {"eval", "let"}


@cache
def _compound_head() -> re.Pattern[str]:
    """`name=(` / `name+=(`: a compound assignment's head: compiled on first use, not by every start-up."""
    return re.compile(r"[A-Za-z_](?:[A-Za-z0-9_]|\\\n)*(?:\+(?:\\\n)*)?=(?:\\\n)*\(")


_ASSIGN_HEAD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def _continued_name() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z_](?:[A-Za-z0-9_]|\\\n)*")


def _name_at(src: str, i: int) -> re.Match[str] | None:
    """The name at `i`, read over the line continuations in it (bash drops them before it reads
    the word: `a\\<newline>b=1` assigns ab); `.group()` may hold them: see _head_text."""
    m = _ASSIGN_HEAD.match(src, i)
    if m is not None and src.startswith("\\\n", m.end()):
        return _continued_name().match(src, i)
    return m


def _assignment_shaped(src: str, i: int) -> bool:
    """Whether the word at `i` starts as an assignment does (`name=`, `name+=`, `name[`)."""
    m = _name_at(src, i)
    return m is not None and (src[m.end() : m.end() + 1] in ("=", "[") or src.startswith("+=", m.end()))


def _head_text(text: str) -> str:
    """A word head's text (a name, digits) without the line continuations read over in it."""
    return text.replace("\\\n", "") if "\\" in text else text


def _chars_over(src: str, i: int, chars: frozenset[str]) -> tuple[str, list[int]]:
    """The operator characters at `i` (the first, then up to two more of `chars`) read over the line
    continuations between them, as bash reads `&\\<newline>&` as `&&`, and where each one ends."""
    head = src[i : i + 1]
    ends = [i + 1]
    k = i + 1
    while len(head) < 3:
        k = past_continuations(src, k)
        if src[k : k + 1] not in chars:
            break
        head += src[k]
        k += 1
        ends.append(k)
    return head, ends


_WORD_ENDS = frozenset(" \t\n;&|<>)")  # what ends a word after a compound assignment's `)`


# `2>`, `{fd}>`: tried only at a token starting with a digit or `{`, and compiled on first use; the
# digits are ASCII ones, as bash's (`echo ٣>f` writes ٣ to f)
@cache
def _io_number() -> re.Pattern[str]:
    return re.compile(r"[0-9](?:[0-9]|\\\n)*(?=[<>])")  # (`2\\<newline>>f`: bash drops them first)


@cache
def _io_var() -> re.Pattern[str]:
    # {fd} or {arr[sub]}, read over line continuations as bash reads it
    return re.compile(r"\{((?:\\\n)*[A-Za-z_](?:[A-Za-z0-9_]|\\\n)*(?:\[[^\]{}]+\])?)\}(?:\\\n)*(?=[<>])")


_COND_BINARY = BINARY_TESTS | {"=~"}  # ([[ ]] matches a regular expression too)
# the shell's operator tokens as [[ ]] meets them (longest first): anything else is a word
_COND_TOKENS = (
    "]]",
    ";;&",
    ";;",
    ";&",
    "&&",
    "||",
    "|&",
    "&>>",
    "&>",
    ">>",
    "<<<",
    "<<-",
    "<<",
    "<&",
    ">&",
    "<>",
    ">|",
    "(",
    ")",
    "<",
    ">",
    "&",
    ";",
    "|",
)
MAX_DEPTH = 400


@dataclass(slots=True)
class Tok(metaclass=Declared):
    kind: str  # 'op' | 'word' | 'eof'
    value: str
    pos: int
    end: int
    word: A.Word | None = None
    fd: int | None = None
    fd_var: str | None = None


class Parser(WordReader):
    def __init__(
        self,
        src: str,
        *,
        aliases: dict[str, str] | None = None,
        extglob: bool = False,
        line_base: int = 1,
        max_depth: int = MAX_DEPTH,
        max_tokens: int = 10_000_000,
        posix: bool = False,
        tick: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(src, line_base=line_base, extglob=extglob)
        self.posix = posix
        self.tick = tick
        self.max_tokens = max_tokens
        self.tokens = 0
        self.aliases = aliases
        self._alias_regions: list[tuple[str, int]] = []
        self._alias_text = AliasSpans()
        self._alias_uses = AliasUses()
        self._peeked: Tok | None = None
        self.depth = 0
        self.max_depth = max_depth
        self.max_word_depth = max_depth
        self.warnings: list[tuple[int, str]] = []
        # a pending here-document (by id) -> the line of the simple command it belongs to
        self.doc_lines: dict[int, int] = {}
        # the warnings as a set, for the test that one is not given twice (a word read twice, as
        # `x=$(...)` or `x=`...`` is, warns once): a list scan made a script of many warnings
        # quadratic; valid while the list holds _warned_len entries (the shell clears the list)
        self._warned: set[tuple[int, str]] = set()
        self._warned_len = 0

    # ------------------------------------------------------------ plumbing for WordReader

    def _child(self, text: str, line: int) -> Parser:
        """A parser of `text` (a substitution's or a nested source's, from `line`) with this one's
        settings and what is left of its depth and token budgets."""
        return Parser(
            text,
            aliases=self.aliases,
            extglob=self.extglob,
            line_base=line,
            max_depth=self.max_depth - self.depth,
            max_tokens=self.max_tokens,
            posix=self.posix,
            tick=self.tick,
        )

    def sub_reader(self, text: str, line: int) -> WordReader:
        reader = self._child(text, line)
        reader.run_later = self.run_later
        reader.outer_depth = self.comsub_depth + self.outer_depth
        return reader

    def parse_nested_source(self, text: str, line: int) -> A.CommandList:
        sub = self._child(text, line)
        sub.aliases = None  # (a substitution's text: its aliases are those of when it runs)
        result = sub.parse_all()
        for warning in sub.warnings:
            self._warn(warning)
        return result

    def parse_lines_before(self, text: str, line: int) -> tuple[A.ListItem, ...]:
        sub = self._child(text, line)
        sub.aliases = None
        items: list[A.ListItem] = []
        try:  # (its warnings were given when the text was read first)
            while (chunk := sub.parse_next()) is not None:
                items.extend(chunk.items)
        except ParseLimit:
            raise
        except ParseError:
            pass
        return tuple(items)

    def finish_runs(self) -> None:
        """Read again each `$(` noted by _run_later, now that the commands holding them are read
        (each node is new, made by this parse: its body is set in place)."""
        pending = self.run_later
        if not pending or self.run_depth >= _MAX_RUN_DEPTH:
            pending.clear()
            return
        from .bashprint import comsub_text  # (only scripts with such a `$(` need the printer)

        for node, source, start_line, base in pending:
            if source is None:
                source = comsub_text(node.body)
                if base == start_line and "\n" not in node.text and "\n" not in source:
                    continue  # (read in place, as it runs)
            again = self.parse_as_run(source, base)
            if again is not None:
                object.__setattr__(node, "body", again)
            # what its child reads when it runs with aliases on (interp/aliasrun.py)
            object.__setattr__(node, "run", (source, base))
        pending.clear()

    def parse_as_run(self, text: str, line: int) -> A.CommandList | None:
        """`text` parsed again as a `$(`'s child does (see WordReader._run_later), without
        aliases (bash expands those when the substitution runs: interp/aliasrun.py); None if it
        does not parse."""
        sub = Parser(
            text,
            aliases=None,
            extglob=self.extglob,
            line_base=line,
            max_depth=self.max_depth - self.depth,
            max_tokens=self.max_tokens,
            posix=self.posix,
            tick=self.tick,
        )
        try:  # (its warnings were given when the text was read in place)
            # read as a `$(`'s list (where a newline between commands is kept for printing)
            body = sub.parse_compound_list(allow_empty=True)
            if sub.pending_heredocs:
                sub.read_heredoc_bodies()
            if sub.peek().kind != "eof":
                return None
            sub.run_depth = self.run_depth + 1
            sub.finish_runs()
            return body
        except ParseLimit:
            raise
        except ParseError:
            return None

    def parse_subcommand_until_paren(self) -> A.CommandList:
        self._peeked = None
        self._enter()
        outer, self.sub_line = self.sub_line, 0  # (its commands are read where they are)
        try:
            body = self.parse_compound_list(allow_empty=True, in_paren=True)
        finally:
            self.depth -= 1
            self.sub_line = outer
        tok = self.peek()
        if tok.kind == "eof":
            raise self.error_eof(")", self.eof_line())
        if not (tok.kind == "op" and tok.value == ")"):
            raise self.unexpected(tok)
        self.pos = tok.pos
        self._peeked = None
        return body

    def heredoc_warning(self, start_line: int, doc: A.HereDoc) -> None:
        warning = (
            self.line_at(max(self.pos - 1, 0)) if self.pos else start_line,
            f"warning: here-document at line {start_line - 1} delimited by end-of-file (wanted `{doc.delim}')",
        )
        self._warn(warning)

    def parse_warning(self, message: str) -> None:
        self._warn((self.line_at(self.pos), message))

    def _warn(self, warning: tuple[int, str]) -> None:
        """Add a warning unless it was given already (see _warned)."""
        warnings = self.warnings
        if len(warnings) != self._warned_len:  # (cleared or cut by someone else: start again)
            self._warned = set(warnings)
        if warning not in self._warned:
            warnings.append(warning)
            self._warned.add(warning)
        self._warned_len = len(warnings)

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise ParseLimit("max_ast_depth", self.max_depth, self.line)

    # ------------------------------------------------------------ entry points

    def parse_all(self) -> A.CommandList:
        items: list[A.ListItem] = []
        while True:
            chunk = self.parse_next()
            if chunk is None:
                break
            items.extend(chunk.items)
        return A.CommandList(tuple(items), self.line_base, 1)

    def parse_next(self) -> A.CommandList | None:
        """The next complete command (to the end of its line), or None at EOF."""
        self.run_later.clear()  # (what a command that did not parse left)
        self.skip_newlines()
        tok = self.peek()
        if tok.kind == "eof":
            if self.pending_heredocs:
                self.read_heredoc_bodies()
            self.finish_runs()
            return None
        line, col = self.line_col(tok.pos)
        items = self._parse_list_items(top=True)
        tok = self.peek()
        if tok.kind == "op" and tok.value == "\n":
            self.consume()
        elif tok.kind == "eof":
            if self.pending_heredocs:
                self.read_heredoc_bodies()
        else:
            raise self.unexpected(tok)
        self.finish_runs()
        return A.CommandList(tuple(items), line, col)

    # ------------------------------------------------------------ tokens

    def skip_blanks(self) -> None:
        src = self.src
        n = len(src)
        while self.pos < n:
            c = src[self.pos]
            if c == " " or c == "\t":
                self.pos += 1
            elif c == "\\" and src.startswith("\\\n", self.pos):
                self.pos += 2
            elif c == "#":
                end = src.find("\n", self.pos)
                self.pos = n if end < 0 else end
            else:
                break

    def peek(self) -> Tok:
        if self._peeked is not None and self._peeked.pos >= self.pos:
            return self._peeked
        self.skip_blanks()
        self._peek_warned = len(self.warnings)
        self._peek_runs = len(self.run_later)
        tok = self._scan()
        self._peeked = tok
        return tok

    def consume(self) -> Tok:
        tok = self.peek()
        self.pos = tok.end
        self.tokens += 1
        if self.tokens > self.max_tokens:
            raise ParseLimit("max_tokens", self.max_tokens, self.line_at(tok.pos))
        if not self.tokens & 1023 and self.tick is not None:
            self.tick()
        self._peeked = None
        if tok.kind == "op" and tok.value == "\n" and self.pending_heredocs:
            if self._alias_text.spans:
                self._bodies_after_alias_line(tok)
            self.read_heredoc_bodies()
        return tok

    def edited(self, start: int, end: int, text: str) -> None:
        super().edited(start, end, text)
        self._alias_text.expanded(start, end, text)
        self._alias_uses.edited(start, end, text)

    def phantom_lines(self, pos: int) -> int:
        n = self._alias_text.newlines_before(self.src, pos)
        return n - bisect.bisect_right(self._cuts, pos) if self._cuts else n  # (WordReader's, inline)

    def _bodies_after_alias_line(self, tok: Tok) -> None:
        """A newline inside an alias's value with here-documents pending: bash 5.2 reads their
        bodies from the script's lines after the line the alias was used on. Those lines are read
        there and moved here, where the parser is, so the rest of the value and of that line
        come after them (and their lines count before them)."""
        span = self._alias_text.containing(tok.pos)
        if span is None:
            return
        src = self.src
        line_end = src.find("\n", span[1])
        start = len(src) if line_end < 0 else line_end + 1
        at = self.pos
        self.pos = start
        self.read_heredoc_bodies()
        end = self.pos
        self.src = src[:at] + src[start:end] + src[at:start] + src[end:]
        self._alias_text.moved(at, start, end)
        self._alias_regions = [(n, e + end - start if at < e <= start else e) for n, e in self._alias_regions]
        super().edited(at, end, src[at:end])  # (a cut line there is one the text moved over)
        self.source_changed(at)
        self.pos = at + end - start

    def _scan(self) -> Tok:
        src = self.src
        start = self.pos
        if start >= len(src):
            return Tok("eof", "", start, start)
        c = src[start]
        if "0" <= c <= "9":
            m = _io_number().match(src, start)
            digits = _head_text(m.group()) if m else ""
            if m and (len(digits) < 10 or (len(digits) == 10 and int(digits) <= 0x7FFFFFFF)):
                # (digits past an int are a word: `echo 2147483648>f` writes them to f, as bash)
                op, end = self._op_at(m.end())  # (`2>\\<newline>&1`)
                # (`2<(cmd)` is a word: a process substitution after the digits, as bash reads it)
                if op in _REDIR_OPS and (op not in ("<", ">") or self._after(end) != "("):
                    return Tok("op", op, start, end, fd=int(digits))
        elif c == "{":
            m2 = _io_var().match(src, start)
            if m2:
                op, end = self._op_at(m2.end())  # (`{fd}>\\<newline>&1`)
                if op in _REDIR_OPS and (op not in ("<", ">") or self._after(end) != "("):
                    return Tok("op", op, start, end, fd_var=_head_text(m2.group(1)))
        if c in _OP_START:
            op, end = self._op_at(start)
            if op not in ("<", ">") or self._after(end) != "(":
                return Tok("op", op, start, end)  # (`((`: see _dparen_at)
            # (a process substitution, `<\\<newline>(cmd)`: a word)
        word = self.read_word(CMD)
        end = self.pos
        self.pos = start
        if word is None:
            # a character no rule takes (should not happen): treat as an operator
            return Tok("op", c, start, start + 1)
        return Tok("word", self.src[start:end], start, end, word)  # (reading may have spliced it)

    def _match_op(self, i: int) -> str:
        for op in _OPERATORS:
            if self.src.startswith(op, i):
                return op
        return ""

    def _op_at(self, i: int) -> tuple[str, int]:
        """The operator at `i` and where it ends, read over the line continuations inside it as
        bash reads `&\\<newline>&` as `&&`. The source stays as it is: a cut copies the whole
        script, once for each such operator (100k of them took minutes to parse)."""
        src = self.src
        op = self._match_op(i)
        if not src.startswith("\\\n", i + 1) and not src.startswith("\\\n", i + len(op)):
            return op, i + len(op)  # (the usual case: nothing to read over)
        chars, ends = _chars_over(src, i, _OP_CHARS)
        for op in _OPERATORS:
            if chars.startswith(op):
                return op, ends[len(op) - 1]
        return "", i

    def _after(self, i: int) -> str:
        """The character at `i`, or after the line continuations there."""
        k = past_continuations(self.src, i)
        return self.src[k : k + 1]

    def _dparen_at(self, tok: Tok) -> int:
        """Where the text after `((` starts when `tok` is the `(` of one (`(\\<newline>(` too: bash
        drops the continuation first); -1 when it is not."""
        if tok.kind != "op" or tok.value != "(":
            return -1
        return past_continuations(self.src, tok.pos + 1) + 1 if self._after(tok.pos + 1) == "(" else -1

    def is_op(self, tok: Tok, *values: str) -> bool:
        return tok.kind == "op" and tok.value in values

    @staticmethod
    def plain(tok: Tok) -> str | None:
        """The word's text when it is a single unquoted literal."""
        if tok.kind != "word" or tok.word is None:
            return None
        parts = tok.word.parts
        if len(parts) == 1 and isinstance(parts[0], A.Lit):
            return parts[0].text
        return None

    def is_reserved(self, tok: Tok, *values: str) -> bool:
        text = self.plain(tok)
        return text is not None and text in values

    def skip_newlines(self) -> None:
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.value == "\n":
                self.consume()
            else:
                return

    # ------------------------------------------------------------ errors

    def eof_as_newline(self, pos: int) -> ParseError:
        """Where a newline cannot come, bash reads the end of the text as one (`echo <`,
        `echo (`): the error names `newline' on the line of `pos`, not the end of file."""
        return ParseError(
            "syntax error near unexpected token `newline'",
            self.line_at(pos),
            source_line=self.current_line_text(pos),
        )

    def unexpected_after(self, tok: Tok, pos: int) -> ParseError:
        """A token where a word must follow the text before `pos` (`for`, `case`, `function`)."""
        return self.eof_as_newline(pos) if tok.kind == "eof" else self.unexpected(tok)

    def unexpected(self, tok: Tok) -> ParseError:
        if tok.kind == "eof":
            return self.error_eof()
        if tok.kind == "op":
            text = "newline" if tok.value == "\n" else tok.value
        else:
            text = _offending_text(tok.value)
        # bash names the line the token ends on, where its reader is (`;\<newline>;`, `"a<newline>b"`:
        # the second line); the column is the token's, or 1 on a line it continues onto
        line, col = self.line_col(tok.pos)
        end_line = self.line_at(max(tok.pos, tok.end - 1))
        shown = None
        if self._alias_uses.uses:
            shown = self._alias_uses.quoted_line(self.src, tok.pos, tok.end, tok.kind != "op")
        return ParseError(
            f"syntax error near unexpected token `{text}'",
            end_line,
            source_line=shown if shown is not None else self.current_line_text(max(tok.pos, tok.end - 1)),
            col=col if end_line == line else 1,
        )

    # ------------------------------------------------------------ lists

    def _parse_list_items(self, top: bool = False) -> list[A.ListItem]:
        items: list[A.ListItem] = []
        while True:
            cmd = self.parse_and_or()
            tok = self.peek()
            if self.is_op(tok, ";", "&"):
                self.consume()
                items.append(A.ListItem(cmd, tok.value == "&"))
                nxt = self.peek()
                if nxt.kind == "eof" or self.is_op(nxt, "\n"):
                    return items
                if not top and (self._is_list_end(nxt)):
                    return items
                if top and self._is_list_end(nxt):
                    raise self.unexpected(nxt)
                continue
            items.append(A.ListItem(cmd, False))
            return items

    def _is_list_end(self, tok: Tok) -> bool:
        if tok.kind == "eof":
            return True
        if tok.kind == "op":
            return tok.value in (")", ";;", ";&", ";;&")
        return self.is_reserved(tok, *_LIST_TERMINATORS)

    def parse_compound_list(self, allow_empty: bool = False, in_paren: bool = False) -> A.CommandList:
        self.skip_newlines()
        line = self.line
        col = self.col_at(self.peek().pos)
        items: list[A.ListItem] = []
        while True:
            # (an alias is expanded before the list's end is looked for: `alias END='}'` closes a
            # `{ ...; END` as bash reads it)
            tok = self._command_word()
            if self._is_list_end(tok):
                break
            cmd = self.parse_and_or()
            tok = self.peek()
            if self.is_op(tok, ";", "&"):
                self.consume()
                items.append(A.ListItem(cmd, tok.value == "&"))
                self.skip_newlines()
                continue
            if self.is_op(tok, "\n"):
                items.append(A.ListItem(cmd, False, newline=True))
                self.skip_newlines()
                continue
            items.append(A.ListItem(cmd, False))
            break
        tok = self.peek()
        if not items and not allow_empty:
            raise self.unexpected(tok)
        if not self._is_list_end(tok):
            raise self.unexpected(tok)
        return A.CommandList(tuple(items), line, col)

    def parse_and_or(self) -> A.Command:
        line, col = self.line_col(self.peek().pos)
        first = self.parse_pipeline()
        rest: list[tuple[str, A.Command]] = []
        while True:
            tok = self.peek()
            if self.is_op(tok, "&&", "||"):
                self.consume()
                self.skip_newlines()
                rest.append((tok.value, self.parse_pipeline()))
            else:
                break
        if not rest:
            return first
        return A.AndOr(first, tuple(rest), line, col)

    def parse_pipeline(self) -> A.Command:
        tok = self.peek()
        line, col = self.line_col(tok.pos)
        timed = posix = negate = prefixed = False
        # bash's pipeline_command: any run of `!` and `time [-p] [--]` before a pipeline
        # (`! time a`, `time ! a`, `time time -p a` is timed once, in the POSIX format if any -p)
        while self.is_reserved(tok, "time", "!"):
            self.consume()
            prefixed = True
            if self.plain(tok) == "!":
                negate = not negate
                tok = self.peek()
                continue
            timed = True
            tok = self.peek()
            if self.plain(tok) == "-p":
                self.consume()
                posix = True
                tok = self.peek()
            if self.plain(tok) == "--":
                self.consume()
                posix = True  # (bash 5.2's grammar takes `time --` as `time -p`)
                tok = self.peek()
        if prefixed:
            if tok.kind == "eof" or self.is_op(tok, "\n", ";", "&", ")") or self._is_list_end(tok):
                # `time` alone, `!` alone: an empty pipeline
                return A.Pipeline((), negate, timed, posix, (), line, col)
        cmds = [self.parse_command()]
        links: list[bool] = []
        while True:
            tok = self.peek()
            if self.is_op(tok, "|", "|&"):
                self.consume()
                self.skip_newlines()
                links.append(tok.value == "|&")
                nxt = self.peek()
                if self.is_reserved(nxt, "!"):
                    raise self.unexpected(nxt)  # `!` only starts a pipeline (bash: `a | ! b` fails there)
                cmds.append(self.parse_command())
            else:
                break
        if len(cmds) == 1 and not timed and not negate:
            return cmds[0]
        return A.Pipeline(tuple(cmds), negate, timed, posix, tuple(links), line, col)

    # ------------------------------------------------------------ commands

    def parse_command(self) -> A.Command:
        self._enter()
        try:
            return self._parse_command()
        finally:
            self.depth -= 1

    def _parse_command(self) -> A.Command:
        tok = self._command_word()
        line, col = self.line_col(tok.pos)
        if tok.kind == "op":
            if tok.value == "(":
                if self._dparen_at(tok) >= 0:
                    node = self.try_arith_command(tok)
                    if node is not None:
                        return self._redirected(node, line, col)
                self.consume()
                body = self.parse_compound_list()
                close = self.peek()
                if not self.is_op(close, ")"):
                    raise self.unexpected(close)
                self.consume()
                return self._redirected(A.Subshell(body, line, col), line, col)
            if tok.value in _REDIR_OPS:
                return self.parse_simple_command()
            raise self.unexpected(tok)
        if tok.kind == "eof":
            raise self.error_eof()
        text = self.plain(tok)
        if text is not None and text in _RESERVED:
            node = self.parse_reserved(text, tok, line)
            if node is not None:
                return node
        return self.parse_simple_command()

    def _command_word(self) -> Tok:
        """The token in command position, aliases expanded (before reserved words are seen)."""
        tok = self.peek()
        while (
            tok.kind == "word" and self.aliases and self.plain(tok) not in _RESERVED and self.try_alias(tok)
        ):
            tok = self.peek()
        return tok

    def parse_reserved(self, text: str, tok: Tok, line: int) -> A.Command | None:
        col = self.col_at(tok.pos)
        if text == "if":
            return self._redirected(self.parse_if(), line, col)
        if text in ("while", "until"):
            self.consume()
            cond = self.parse_compound_list()
            body = self.parse_do_group()
            return self._redirected(A.While(cond, body, text == "until", line, col), line, col)
        if text in ("for", "select"):
            return self._redirected(self.parse_for(text == "select"), line, col)
        if text == "case":
            return self._redirected(self.parse_case(), line, col)
        if text == "{":
            self.consume()
            body = self.parse_compound_list()
            close = self.peek()
            if not self.is_reserved(close, "}"):
                raise self.unexpected(close)
            self.consume()
            return self._redirected(A.Group(body, line, col), line, col)
        if text == "[[":
            return self._redirected(self._cond_command(col), line, col)
        if text == "function":
            return self.parse_function_keyword()
        if text == "coproc":
            return self.parse_coproc()
        if text in ("then", "else", "elif", "fi", "do", "done", "esac", "}", "in", "]]"):
            raise self.unexpected(tok)  # (`in` and `]]` too: `echo | in` is a syntax error)
        return None

    def _redirected(self, node: A.Command, line: int, col: int) -> A.Command:
        redirs: list[A.Redir] = []
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.value in _REDIR_OPS:
                redirs.append(self.parse_redirect())
            else:
                break
        if redirs:
            return A.Redirected(node, tuple(redirs), line, col)
        return node

    def parse_do_group(self) -> A.CommandList:
        tok = self.peek()
        if self.is_reserved(tok, "do"):
            self.consume()
            body = self.parse_compound_list()
            end = self.peek()
            if not self.is_reserved(end, "done"):
                raise self.unexpected(end)
            self.consume()
            return body
        if self.is_reserved(tok, "{"):
            self.consume()
            body = self.parse_compound_list()
            end = self.peek()
            if not self.is_reserved(end, "}"):
                raise self.unexpected(end)
            self.consume()
            return body
        raise self.unexpected(tok)

    def parse_if(self) -> A.If:
        line = self.line
        col = self.col_at(self.peek().pos)
        self.consume()
        clauses: list[A.IfClause] = []
        cond = self.parse_compound_list()
        self._expect_reserved("then")
        body = self.parse_compound_list()
        clauses.append(A.IfClause(cond, body))
        else_body: A.CommandList | None = None
        while True:
            tok = self.peek()
            if self.is_reserved(tok, "elif"):
                self.consume()
                cond = self.parse_compound_list()
                self._expect_reserved("then")
                body = self.parse_compound_list()
                clauses.append(A.IfClause(cond, body))
                continue
            if self.is_reserved(tok, "else"):
                self.consume()
                else_body = self.parse_compound_list()
                self._expect_reserved("fi")
                break
            if self.is_reserved(tok, "fi"):
                self.consume()
                break
            raise self.unexpected(tok)
        return A.If(tuple(clauses), else_body, line, col)

    def _expect_reserved(self, word: str) -> None:
        tok = self.peek()
        if not self.is_reserved(tok, word):
            raise self.unexpected(tok)
        self.consume()

    def parse_for(self, select: bool) -> A.Command:
        line = self.line
        col = self.col_at(self.peek().pos)
        self.consume()
        tok = self.peek()
        if not select and self._dparen_at(tok) >= 0:
            return self.parse_arith_for(tok, line, col)
        tok = self._after_blank_alias(tok)
        if tok.kind != "word":
            raise self.unexpected_after(tok, self.pos)
        # any word parses (`for f\1 in ...`): bash checks the name when the loop runs
        name = self.plain(tok)
        if name is None:
            name = tok.value
        self.consume()
        # optional newlines, then `in words` or `do`
        before = self.pos
        self.skip_newlines()
        # bash 5.2 inside a case item: `for x` NEWLINE `in ...` fails at the token after the list
        broken_in = self._case_bodies > 0 and "\n" in self.src[before : self.pos]
        tok = self._after_blank_alias(self.peek())
        words: tuple[A.Word, ...] | None = None
        if self.is_reserved(tok, "in"):
            self.consume()
            items: list[A.Word] = []
            while True:
                tok = self._after_blank_alias(self.peek())
                if tok.kind == "word":
                    assert tok.word is not None
                    items.append(tok.word)
                    self.consume()
                    continue
                break
            if self.is_op(tok, ";", "\n"):
                self.consume()
            elif tok.kind != "eof":
                raise self.unexpected(tok)
            if broken_in:
                self.skip_newlines()
                raise self.unexpected(self.peek())
            words = tuple(items)
        elif self.is_op(tok, ";"):
            self.consume()
        self._alias_next_pos = None
        self.skip_newlines()
        body = self.parse_do_group()
        end_line = self.line_at(max(self.pos - 1, 0))
        if select:
            return A.Select(name, words, body, line, end_line, col)
        return A.For(name, words, body, line, end_line, col)

    def parse_arith_for(self, tok: Tok, line: int, col: int) -> A.Command:
        start = self._dparen_at(tok)
        end = self._find_arith_end(start)
        if end < 0:
            if end == _PAREN_NOT_DOUBLED:
                # bash's parse_arith_cmd takes `for ((a) ...` for a nested subshell, which its
                # parse_dparen refuses without a word (yylex's YYerror: no yyerror): the shell
                # stops reading with $? as it was; eval says 2
                raise ParseError("", line, keep_status=True)
            raise self.error_eof(")", self.line_at(start))
        text = self._arith_for_text(self.src[start:end])
        self.pos = end + 2
        self._peeked = None
        pieces = _split_arith_for(text)
        if pieces is None:
            # bash's second line quotes the whole `((...))`
            detail = [(f"syntax error: `(({text}))'", line)]
            if text.count(";") > 2:
                raise ParseError("syntax error: `;' unexpected", line, extra=detail)
            raise ParseError("syntax error: arithmetic expression required", line, extra=detail)
        words: list[A.Word | None] = []
        for piece in pieces:
            if piece.strip():
                words.append(self.make_arith(piece).word)
            else:
                words.append(None)
        tok = self.peek()
        if self.is_op(tok, ";"):
            self.consume()
        self.skip_newlines()
        body = self.parse_do_group()
        return A.ArithFor(words[0], words[1], words[2], body, line, col)

    def _arith_for_text(self, text: str) -> str:
        """The text of `for ((...))` as bash 5.2 keeps it: a $(...) in it re-printed, which is what
        bash splits at `;` (a `;;` of a case there ends up splitting it too)."""
        if "$(" not in text:
            return text
        try:
            word = self.make_arith(text).word
        except ParseError:
            return text
        from .bashprint import word_text  # (imported by start-up otherwise: ~1 M instructions)

        return word_text(A.Word(word.parts, word.line, text))

    def _find_arith_end(self, i: int) -> int:
        src = self.src
        depth = 0
        while i < len(src):
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if c == "$" and src.startswith("$(", i) and not src.startswith("$((", i):
                close = self.comsub_close(i + 2)  # (bash parses it: a case pattern's `)` is inside)
                if close >= 0:
                    i = close + 1
                    continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    return i if src.startswith("))", i) else _PAREN_NOT_DOUBLED
                depth -= 1
            i += 1
        return -1

    def try_arith_command(self, tok: Tok) -> A.Command | None:
        save = self.pos
        self.pos = tok.pos
        node = self.try_read_arith(self._dparen_at(tok), command=True)
        if node is None:
            self.pos = save
            self._peeked = None
            return None
        self._peeked = None
        # (on the line where it ends: bash's yacc makes it from the one token `((...))`)
        return A.ArithCmd(node.word, node.text, self.line_at(self.pos - 1), self.col_at(tok.pos))

    def parse_case(self) -> A.Case:
        line = self.line
        col = self.col_at(self.peek().pos)
        self.consume()
        outer, self.sub_line = self.sub_line, -1  # (its substitutions run from where it ends)
        try:
            tok = self.peek()
        finally:
            self.sub_line = outer
        if tok.kind != "word":
            raise self.unexpected_after(tok, self.pos)
        assert tok.word is not None
        word = tok.word
        self.consume()
        self.skip_newlines()
        self._expect_reserved("in")
        items: list[A.CaseItem] = []
        while True:
            self.skip_newlines()
            tok = self.peek()
            if self.is_reserved(tok, "esac"):
                self.consume()
                break
            if tok.kind == "eof":
                raise self.error_eof()
            if self.is_op(tok, "("):
                self.consume()
            patterns: list[A.Word] = []
            while True:
                self.skip_blanks()
                pat = self.read_word(CASE_PAT)
                self._peeked = None
                if pat is None:
                    raise self.unexpected(self.peek())
                patterns.append(pat)
                tok = self.peek()
                if self.is_op(tok, "|"):
                    self.consume()
                    continue
                if self.is_op(tok, ")"):
                    self.consume()
                    break
                raise self.unexpected(tok)
            self._case_bodies += 1
            try:
                body: A.CommandList | None = self.parse_compound_list(allow_empty=True)
            finally:
                self._case_bodies -= 1
            assert body is not None
            if not body.items:
                body = None
            tok = self.peek()
            if self.is_op(tok, ";;", ";&", ";;&"):
                self.consume()
                items.append(A.CaseItem(tuple(patterns), body, tok.value))
                continue
            if self.is_reserved(tok, "esac"):
                self.consume()
                items.append(A.CaseItem(tuple(patterns), body, ";;"))
                break
            raise self.unexpected(tok)
        return A.Case(word, tuple(items), line, col)

    def parse_function_keyword(self) -> A.Command:
        line = self.line
        start = self.peek().pos
        self.consume()
        tok = self.peek()
        if tok.kind != "word" or tok.word is None:
            raise self.unexpected_after(tok, self.pos)
        name = tok.word.text  # (its continuations gone: `function f\\<newline>o` defines fo)
        self.consume()
        tok = self.peek()
        if self.is_op(tok, "(") and self._dparen_at(tok) < 0:
            self.consume()
            close = self.peek()
            if not self.is_op(close, ")"):
                raise self.unexpected(close)
            self.consume()
        return self._function_body(name, line, start, keyword=True)

    def _function_body(self, name: str, line: int, start: int, keyword: bool) -> A.Command:
        self.skip_newlines()
        tok = self.peek()
        body_line = self.line_at(tok.pos)
        text = self.plain(tok)
        if text in ("{", "if", "while", "until", "for", "select", "case", "[[") or (self.is_op(tok, "(")):
            body = self.parse_command()
        else:
            raise self.unexpected(tok)
        del body_line
        src_text = self.src[start : self.pos]
        return A.FuncDef(name, body, line, src_text, keyword, self.col_at(start))

    def parse_coproc(self) -> A.Command:
        line = self.line
        col = self.col_at(self.peek().pos)
        self.consume()
        tok = self.peek()
        if tok.kind == "eof":
            raise self.eof_as_newline(self.pos)
        name = "COPROC"
        text = self.plain(tok)
        if text is not None and text not in _RESERVED:
            # `coproc NAME { ...; }` has a name only before a compound command (any word: an
            # invalid one is reported when the coprocess starts, as bash does)
            save = self.pos
            self.consume()
            nxt = self.peek()
            nt = self.plain(nxt)
            if nt in ("{", "if", "while", "until", "for", "case", "[[") or self.is_op(nxt, "("):
                name = text
            else:
                self.pos = save
                self._peeked = None
        body = self.parse_command()
        return A.Coproc(name, body, line, col)

    # ------------------------------------------------------------ simple commands

    def parse_simple_command(self) -> A.Command:
        outer = self.sub_line
        self.sub_line = -1
        try:
            return self._simple_command()
        finally:
            self.sub_line = outer

    def _simple_command(self) -> A.Command:
        tok = self.peek()
        if _spans_subs(tok) and not self.comsub_depth:
            # its first word was read before it was known to start a simple command: read it
            # again, its substitutions counted from where they end (see WordReader.sub_line).
            # (Not inside a `$(` read in place: its body is read again as it runs (_run_later), and
            # reading words again at every depth would read a nest of them 2**depth times.)
            if _assignment_shaped(self.src, tok.pos):
                # an assignment makes the command at once: on the line where it ends, which is
                # where its substitutions count from (`a=(<newline>$(echo $LINENO)<newline>)`)
                self.sub_line = self.line_at(tok.end - 1)
            tok = self._peek_again()
        first_line, col = self.line_col(tok.pos)
        line = first_line
        start = tok.pos
        assigns: list[A.Assign] = []
        words: list[A.Word] = []
        redirs: list[A.Redir] = []
        decl = paren_only = False
        lookahead = False
        while True:
            if not lookahead and (words or assigns or redirs):
                # bash's yacc makes the command when its first element is reduced: a word once the
                # token after it is read (it could start a function definition), so the command's
                # line ($LINENO, messages) is where that token ends (`echo "a<newline>b"` is on
                # line 2); an assignment or a redirection at once, where it ends
                lookahead = True
                if words:
                    tok = self.peek()
                    line = self.line_at(tok.end - 1 if tok.kind == "word" else tok.pos)
                    self.sub_line = line
                    if _spans_subs(tok) and not self.comsub_depth:
                        tok = self._peek_again()  # (its substitutions count from where it ends)
                else:
                    line = self.line_at(self.pos - 1)
                self.sub_line = line
            tok = self.peek()
            if tok.kind == "op":
                if tok.value in _REDIR_OPS:
                    redirs.append(self.parse_redirect())
                    continue
                if tok.value == "(" and len(words) == 1 and not assigns and not redirs:
                    return self.parse_function_def(words[0], first_line, start)
                break
            if tok.kind != "word":
                break
            assert tok.word is not None
            if not words:
                if _subscript_spans(self.src, tok):
                    tok = self._peek_subscript_word()
                assert tok.word is not None  # (a word again, with its subscript whole)
                assign = self.try_assignment(tok)
                if assign is not None:
                    assigns.append(assign)
                    continue
                if (assigns or redirs) and self.aliases and self.try_alias(tok):
                    continue
                self.consume()
                words.append(tok.word)
                decl = self.plain(tok) in _ASSIGN_OK
                paren_only = self.plain(tok) in ("eval", "let")
                continue
            if decl and (not paren_only or _compound_head().match(self.src, tok.pos)):
                # (an argument's subscript ends with its word: `local a[i + 1]=x` is three words)
                assign = None if _subscript_spans(self.src, tok) else self.try_assignment(tok)
                if assign is not None:
                    wline, wcol = self.line_col(tok.pos)
                    if assign.value is not None and "${" in assign.text:
                        assign = _named_unclosed(assign)
                    words.append(A.Word((A.AssignWord(assign),), wline, assign.text, wcol))
                    continue
            next_pos = self._alias_next_pos
            if (next_pos is not None and tok.pos >= next_pos) or tok.pos == self._alias_reread:
                self._alias_reread = -1
                if next_pos is not None and tok.pos >= next_pos:
                    self._alias_next_pos = next_pos = None
                size = len(self.src)
                if self.try_alias(tok):
                    # bash reads the value's first word again as a possible alias (`foo bar` with
                    # foo='echo ', bar=baz, baz=quux runs `echo quux`); a blank that ended the
                    # outer value still makes the word after it a candidate
                    self._alias_reread = tok.pos
                    if self._alias_next_pos is None and next_pos is not None:
                        self._alias_next_pos = next_pos + len(self.src) - size
                    continue
            self.consume()
            assert tok.word is not None
            words.append(tok.word)
        self._alias_next_pos = None
        if not assigns and not words and not redirs:
            raise self.unexpected(self.peek())
        for r in redirs:
            if isinstance(r.target, A.HereDoc):
                self.doc_lines[id(r.target)] = line
        return A.SimpleCommand(tuple(assigns), tuple(words), tuple(redirs), line, col)

    def _cond_command(self, col: int) -> A.CondCmd:
        """`[[ ... ]]`, on the line of its `]]` as bash's yacc makes it; a substitution in it
        runs from that line, so one spanning lines is read again once that line is known."""
        start = self.peek().pos
        warned, runs = len(self.warnings), len(self.run_later)
        self.consume()
        expr = self.parse_cond_expr()
        line = self.line_at(self.pos - 1)
        text = self.src[start : self.pos]
        if "\n" in text and ("`" in text or "$(" in text) and self.sub_line != line and not self.comsub_depth:
            self._drop_warnings(warned)
            del self.run_later[runs:]
            outer, self.sub_line = self.sub_line, line
            try:
                self.pos = start
                self._peeked = None
                self.consume()
                expr = self.parse_cond_expr()
            finally:
                self.sub_line = outer
        return A.CondCmd(expr, line, col)

    def _drop_warnings(self, since: int) -> None:
        """Forget the warnings from `since` on (text read again gives them again)."""
        dropped = self.warnings[since:]
        del self.warnings[since:]
        if self._warned_len == len(self.warnings) + len(dropped):
            self._warned.difference_update(dropped)
            self._warned_len = len(self.warnings)

    def _peek_again(self) -> Tok:
        """The token peeked last, read again now that its substitutions' first line is known
        (sub_line): the first reading's warnings (lines counted from another base) are not kept,
        and the here-documents it left to read are not left twice."""
        self._drop_warnings(self._peek_warned)
        del self.run_later[self._peek_runs :]
        docs = len(self.pending_heredocs)
        self._peeked = None
        tok = self.peek()
        self.pending_heredocs = self.pending_heredocs[:docs]
        return tok

    def _peek_subscript_word(self) -> Tok:
        """The word peeked last, read again with its `name[` subscript whole (blanks and operators in
        it kept), as bash reads a word where an assignment may stand; with no `]` to close it, bash
        reads to the end of the text."""
        tok = self.peek()
        m = _name_at(self.src, tok.pos)
        if m is not None and subscript_end(self.src, m.end() + 1) < 0:
            raise self.error_eof("]")
        self.cmd_subscript = True
        try:
            return self._peek_again()
        finally:
            self.cmd_subscript = False

    def heredoc_sub_line(self, doc: A.HereDoc) -> int:
        return self.doc_lines.pop(id(doc), 0)

    _alias_next_pos: int | None = None
    _peek_warned = 0  # the warnings there were before the token peeked last was read
    _peek_runs = 0  # and the `$(` to read again (run_later)
    run_depth = 0  # `$(` read again around this text (finish_runs)
    _case_bodies = 0  # case items being read (bash 5.2 reads `for x` NEWLINE `in` wrongly there)
    _alias_reread = -1  # where a word expanded after a blank-ended alias began

    def parse_function_def(self, name_word: A.Word, line: int, start: int) -> A.Command:
        paren = self.consume()  # (
        tok = self.peek()
        if tok.kind == "eof":
            raise self.eof_as_newline(paren.pos)
        if not self.is_op(tok, ")"):
            raise self.unexpected(tok)
        self.consume()
        name = name_word.text
        return self._function_body(name, line, start, keyword=False)

    def try_alias(self, tok: Tok) -> bool:
        aliases = self.aliases
        if not aliases or ((self.comsub_depth or self.outer_depth) and not self.posix):
            # (bash reads a $( ) or <( ) without aliases, only to find its end: its child reads
            # the text again when it runs, with the aliases of then: interp/aliasrun.py. In POSIX
            # mode it expands them here, as POSIX asks, and not again when it runs)
            return False
        text = self.plain(tok)
        if text is None or text not in aliases:
            return False
        # an alias is not expanded again inside its own expansion
        self._alias_regions = [(n, e) for (n, e) in self._alias_regions if e > tok.pos]
        if any(n == text for n, _ in self._alias_regions):
            return False
        value = aliases[text]
        src = self.src
        self.src = src[: tok.pos] + value + src[tok.end :]
        self.edited(tok.pos, tok.end, value)
        self._alias_uses.add(tok.pos, text, value, src.rfind("\n", 0, tok.pos) + 1)
        delta = len(value) - (tok.end - tok.pos)
        self._alias_regions = [(n, e + delta if e >= tok.end else e) for n, e in self._alias_regions]
        self._alias_regions.append((text, tok.pos + len(value)))
        self.source_changed(tok.pos)
        self.pos = tok.pos
        self._peeked = None
        # a value ending in a blank makes the next word a candidate too
        self._alias_next_pos = tok.pos + len(value) if value.endswith((" ", "\t")) else None
        return True

    def _after_blank_alias(self, tok: Tok) -> Tok:
        """`tok`, or what it reads as when an alias whose value ended in a blank came just before
        it: bash's lexer expands that word too, wherever it stands (`for`'s name, `in` and its
        words after FOR='for ', IN='in '), and the first word of its value again."""
        next_pos = self._alias_next_pos
        if next_pos is None or tok.pos < next_pos or tok.kind != "word":
            return tok
        self._alias_next_pos = None
        outer: int | None = None
        while tok.kind == "word":
            size = len(self.src)
            if not self.try_alias(tok):
                break
            if self._alias_next_pos is None and outer is not None:
                # (a blank that ended the outer value still makes the word after it a candidate)
                self._alias_next_pos = outer + len(self.src) - size
            outer = self._alias_next_pos
            tok = self.peek()
        return tok

    def try_assignment(self, tok: Tok) -> A.Assign | None:
        """`name=value`, `name+=value`, `name[sub]=value` (the subscript may
        hold blanks and quotes), `name=( ... )`; None when not an assignment."""
        src = self.src
        m = _name_at(src, tok.pos)
        if not m:
            return None
        i = m.end()
        sub: str | None = None
        if i < len(src) and src[i] == "[":
            close = subscript_end(src, i + 1)
            if close < 0:
                return None
            sub = without_continuations(src[i + 1 : close])
            i = past_continuations(src, close + 1)
        elif i > tok.end:
            return None
        append = False
        if src.startswith("+", i) and src.startswith("=", k := past_continuations(src, i + 1)):
            append = True  # (`x+\\<newline>=1`: bash drops the continuation before it reads)
            i = k + 1
        elif src.startswith("=", i):
            i += 1
        else:
            return None
        if sub is None and i > tok.end:
            return None
        # the head must be unquoted literal text
        parts = tok.word.parts if tok.word else ()
        if sub is None and (
            not parts
            or not isinstance(parts[0], A.Lit)
            or not parts[0].text.startswith(_head_text(src[tok.pos : i]))
        ):
            return None
        name = _head_text(m.group())
        value_start = i
        line = self.line_at(tok.pos)
        if value_start < len(src) and src[value_start] == "(":
            items = self._array_items(value_start)
            if self.pos < len(src) and src[self.pos] not in _WORD_ENDS:
                return self._glued_compound(tok, name, sub, append, value_start, line)
            text = without_continuations(src[tok.pos : self.pos])
            return A.Assign(name, None, sub, append, tuple(items), text, self.read_subscript(sub, line))
        self.pos = value_start
        self._peeked = None
        parts_v = self.read_parts(CMD)
        value = A.Word(
            tuple(assignment_tildes(parts_v)),
            line,
            without_continuations(self.src[value_start : self.pos]),
            self.col_at(value_start),
        )
        text = without_continuations(self.src[tok.pos : self.pos])
        return A.Assign(name, value, sub, append, None, text, self.read_subscript(sub, line))

    def _array_items(self, start: int) -> list[A.ArrayItem]:
        """The items of the compound value `(...)` at `start`. As the command's first element its
        line is where it ends (sub_line still -1): a substitution in it spanning lines is read
        again, its lines counted from there (bash expands the items as the command runs)."""
        runs, warned, docs = len(self.run_later), len(self.warnings), bool(self.pending_heredocs)
        self.pos = start + 1
        self._peeked = None
        items = self.parse_array_items()
        text = self.src[start : self.pos]
        if self.sub_line >= 0 or self.comsub_depth or docs or "\n" not in text or not _holds_subs(text):
            return items
        self._drop_warnings(warned)
        del self.run_later[runs:]
        outer, self.sub_line = self.sub_line, self.line_at(self.pos - 1)
        try:
            self.pos = start + 1
            self._peeked = None
            return self.parse_array_items()
        finally:
            self.sub_line = outer

    def _glued_compound(
        self, tok: Tok, name: str, sub: str | None, append: bool, value_start: int, line: int
    ) -> A.Assign:
        """`a=(4*3)/2`, `let q=(1+1)*3`: text right after the `)` makes the whole one word, as bash
        reads it: an assignment of that text as a string (blanks in it kept, quotes removed)."""
        self.read_parts(CMD)  # the rest of the word
        text = self.src[value_start : self.pos]
        parts = self.sub_reader(text, line).read_parts(KEY)
        value = A.Word(tuple(parts), line, without_continuations(text), self.col_at(value_start))
        subscript = self.read_subscript(sub, line)
        whole = without_continuations(self.src[tok.pos : self.pos])
        return A.Assign(name, value, sub, append, None, whole, subscript)

    def parse_array_items(self) -> list[A.ArrayItem]:
        items: list[A.ArrayItem] = []
        start_line = self.line
        while True:
            # blanks, newlines and comments separate items
            while True:
                self.skip_blanks()
                if self.pos < len(self.src) and self.src[self.pos] == "\n":
                    self.pos += 1
                    if self.pending_heredocs:
                        self.read_heredoc_bodies()
                    continue
                break
            if self.pos >= len(self.src):
                err = self.error_eof(")", start_line)
                err.discard_line = True  # (as any bad compound assignment: status 1)
                raise err
            c = self.src[self.pos]
            if c == ")":
                self.pos += 1
                self._peeked = None
                return items
            start = self.pos
            raw = ""
            if c == "[":
                # `[k]=v`: the subscript may hold blanks (`[foo bar]=x`), as in bash
                close = subscript_end(self.src, start + 1) - start
                if close < 0:
                    # bash reads a subscript nothing closes to the end of the text, then finds
                    # the text ended inside the command: both said, the line dropped (status 1)
                    err, end = self.error_eof("]", self.line_at(start)), self.error_eof()
                    err.extra = [(end.message, end.line)]
                    err.discard_line = True
                    raise err
                raw = self.src[start : start + close + 3] if close > 0 else ""
                if "\n" in raw:
                    raw = ""
            word: A.Word | None = None
            if not raw:
                word = self._array_word()
                raw = self.src[start : self.pos]
            if raw.startswith("["):
                close = subscript_end(raw, 1)
                if (close > 0 and raw[close + 1 : close + 2] == "=") or raw[close + 1 : close + 3] == "+=":
                    append = raw[close + 1] == "+"
                    key_text = raw[1:close]
                    # (a character that ends a command word, `[(]=w`, is the key's too: bash
                    # reads the subscript whole, as a KEY reading does)
                    key_mode = KEY if any(c in key_text for c in " \t()<>;&|") else CMD
                    key_parts = self.sub_reader(key_text, self.line_at(start)).read_parts(key_mode)
                    kline, kcol = self.line_col(start)
                    key = A.Word(tuple(key_parts), kline, key_text, kcol + 1)
                    self.pos = start + close + (3 if append else 2)
                    vparts = self.read_parts(CMD)
                    value = A.Word(
                        tuple(assignment_tildes(vparts)),
                        kline,
                        without_continuations(self.src[start + close + (3 if append else 2) : self.pos]),
                        kcol + close + (3 if append else 2),
                    )
                    items.append(
                        A.ArrayItem(value, key, append, self._braced_item(key_parts, append, vparts, start))
                    )
                    continue
            if word is None:  # `[...` that is not `[k]=`: an ordinary word after all
                word = self._bracketed_array_word(start, close)
            items.append(A.ArrayItem(word))

    def _braced_item(self, key: list[A.Part], append: bool, value: list[A.Part], start: int) -> A.Word | None:
        """`[key]=value` as one word, when that word has a brace expansion (ArrayItem.whole)."""
        parts = [A.Lit("["), *key, A.Lit("]+=" if append else "]="), *value]
        if not any(type(p) is A.Lit and "{" in p.text for p in parts):
            return None
        braced = brace_parts(parts)
        if not any(type(p) is A.Brace or type(p) is A.BraceSeq for p in braced):
            return None
        line, col = self.line_col(start)
        return A.Word(tuple(braced), line, without_continuations(self.src[start : self.pos]), col + 1)

    def _bracketed_array_word(self, start: int, close: int) -> A.Word:
        """A word of a compound assignment that starts with `[` and is no `[k]=`: bash reads to
        the matching `]` first, whatever is inside (`a=( [)] b )` has the element `[)]`)."""
        head = self.src[start : start + close + 1]
        if ")" not in head or any(c in head for c in " \t\n;&|<>"):
            return self._array_word()  # (nothing there that would end a word)
        self.pos = start + close + 1
        self._peeked = None
        rest = self.read_word(CMD)
        line, col = self.line_col(start)
        parts = (A.Lit(head), *(rest.parts if rest is not None else ()))
        return A.Word(parts, line, without_continuations(self.src[start : self.pos]), col)

    def _array_word(self) -> A.Word:
        word = self.read_word(CMD)
        if word is None:
            err = self.unexpected(self._scan())
            err.discard_line = True
            raise err
        if any(type(p) is A.Tilde and p.in_argument for p in word.parts):
            # an element is expanded as an argument in bash 5.2, not as an assignment: `b=(x=~)`
            # keeps `x=~` (a word-initial `~` is still expanded)
            parts = (A.Lit("~" + p.user) if type(p) is A.Tilde and p.in_argument else p for p in word.parts)
            word = A.Word(tuple(parts), word.line, word.text, word.col)
        return word

    def parse_redirect(self) -> A.Redir:
        tok = self.consume()
        op = tok.value
        line, col = self.line_col(tok.pos)
        self.skip_blanks()
        if op in ("<&", ">&") and self.src.startswith("-", self.pos):
            # bash's lexer returns a `-` after `<&` or `>&` as a token of its own: `>&-x` closes
            # the descriptor and `x` is the next word
            self.pos += 1
            self._peeked = None
            dash = A.Word((A.Lit("-"),), self.line_at(self.pos - 1), "-", self.col_at(self.pos - 1))
            return A.Redir(op, dash, tok.fd, tok.fd_var, line, col)
        target_tok = self.peek()
        if target_tok.kind == "eof":
            raise self.eof_as_newline(tok.pos)
        if target_tok.kind != "word":
            raise self.unexpected(target_tok)
        assert target_tok.word is not None
        self.consume()
        if op in ("<<", "<<-"):
            # quoted only by a quote of the word's own (bash's W_QUOTED): one inside a `$( )`,
            # `${ }` or backquotes neither quotes the delimiter nor is removed from it
            word = target_tok.word
            quoted = any(type(p) in _QUOTING for p in word.parts)
            delim = _unquote_delim(word) if quoted else word.text.replace("\\\n", "")
            doc = A.HereDoc(delim, quoted, op == "<<-")
            self.pending_heredocs.append(doc)
            return A.Redir(op, doc, tok.fd, tok.fd_var, line, col)
        return A.Redir(op, target_tok.word, tok.fd, tok.fd_var, line, col)

    # ------------------------------------------------------------ [[ ]]

    def parse_cond_expr(self) -> A.Cond:
        try:
            return self._parse_cond_expr()
        except ParseError as e:
            if not e.incomplete and self.src[self.pos :].strip():
                e.keep_status = True  # (an error at the end of the input is status 2, as in bash)
            raise

    def _parse_cond_expr(self) -> A.Cond:
        saved = self.extglob
        try:
            expr = self._cond_or()
            tok = self._cond_peek()
            if tok != "]]":
                # bash's cond_error: EOF, an operator token by name, a word without one
                if tok == "":
                    raise ParseError("unexpected EOF while looking for `]]'", self.line, incomplete=True)
                if tok == "word":
                    # a newline ended the expression: bash reports the line it ended on
                    before = self.src[: self.pos]
                    line = self.line - before[len(before.rstrip(" \t\n")) :].count("\n")
                    raise ParseError("syntax error in conditional expression", line)
                raise ParseError(
                    f"syntax error in conditional expression: unexpected token `{tok}'", self.line
                )
            self._cond_take("]]")
            self._peeked = None
            return expr
        finally:
            self.extglob = saved

    def _cond_skip(self) -> None:
        while True:
            self.skip_blanks()
            if self.pos < len(self.src) and self.src[self.pos] == "\n":
                self.pos += 1
                if self.pending_heredocs:
                    self.read_heredoc_bodies()
                continue
            return

    def _cond_peek(self) -> str:
        self._cond_skip()
        src = self.src
        i = self.pos
        if i >= len(src):
            return ""
        if src.startswith(("<(", ">("), i):
            return "word"  # a process substitution ([[ -p <(cmd) ]])
        head, ends = src[i : i + 3], [i + 1, i + 2, i + 3]
        if src[i] in _COND_OP_CHARS and "\\\n" in src[i + 1 : i + 4]:
            # `&\<newline>&`, `]\<newline>]`: read over them (an edit would copy the script)
            head, ends = _chars_over(src, i, _COND_OP_CHARS)
        for op in _COND_TOKENS:
            if head.startswith(op):
                end = ends[len(op) - 1]
                if op == "]]":
                    after = self._after(end)
                    if after and after not in " \t\n;&|)":
                        break
                self._cond_end = end
                return op
        return "word"

    def _cond_arg_token(self) -> str:
        """The token after an operator or a first word, read as bash's read_token does there:
        a newline (or the end) is a token of its own, named `newline'."""
        self.skip_blanks()
        if self.pos >= len(self.src) or self.src[self.pos] == "\n":
            return "newline"
        return self._cond_peek()

    # where the operator _cond_peek found last ends (past the line continuations read over in it)
    _cond_end = 0

    def _cond_take(self, op: str) -> None:
        """Past the operator `op` that _cond_peek found at pos."""
        self.pos = self._cond_end if self._cond_end > self.pos else self.pos + len(op)

    def _cond_word(self, mode: int = COND) -> A.Word:
        self._cond_skip()
        if mode == COND:
            c = self.src[self.pos : self.pos + 1]
            if c in ("<", ">") and self.src[self.pos + 1 : self.pos + 2] != "(":
                self.pos += 1
                return A.Word((A.Lit(c),), self.line, c)
        word = self.read_word(mode)
        if word is None:
            tok = self._cond_peek()
            if tok == "":
                raise self.error_eof()
            raise ParseError(f"unexpected token `{tok}' in conditional command", self.line)
        return word

    def _cond_or(self) -> A.Cond:
        left = self._cond_and()
        while self._cond_peek() == "||":
            self._cond_take("||")
            right = self._cond_and()
            left = A.CondOr(left, right)
        return left

    def _cond_and(self) -> A.Cond:
        left = self._cond_term()
        while self._cond_peek() == "&&":
            self._cond_take("&&")
            right = self._cond_term()
            left = A.CondAnd(left, right)
        return left

    def _cond_term(self) -> A.Cond:
        self._enter()
        try:
            return self._cond_term_inner()
        finally:
            self.depth -= 1

    def _cond_term_inner(self) -> A.Cond:
        tok = self._cond_peek()
        if tok == "(":
            self._cond_take("(")
            try:
                inner = self._cond_or()
            except ParseError as e:
                if type(e) is ParseError and not e.incomplete:
                    e.extra.append(("expected `)'", self.line))  # bash adds it when the inside failed
                raise
            if self._cond_peek() != ")":
                nxt = self._cond_peek()
                shown = "EOF" if nxt == "" else nxt if nxt != "word" else self._peek_cond_text()
                raise ParseError(f"unexpected token `{shown}', expected `)'", self.line)
            self._cond_take(")")
            return inner
        if tok == "" or tok in _COND_TOKENS:
            if tok == "":
                raise self.error_eof()
            if tok == "]]":  # (bash's cond_term returns COND_ERROR there and says nothing itself)
                raise ParseError("", self.line)
            raise ParseError(f"unexpected token `{tok}' in conditional command", self.line)
        self.cond_subscript = True
        try:
            first = self._cond_word()
        finally:
            self.cond_subscript = False
        ftext = _plain_word(first)
        if ftext == "!":  # (whatever follows: `[[ ! ]]` is an error, not a test of the word `!`)
            return A.CondNot(self._cond_term())
        if ftext in UNARY_TESTS:
            nxt = self._cond_arg_token()
            if nxt == "word":
                operand = self._cond_word()
                return A.CondUnary(ftext, operand)
            raise ParseError(f"unexpected argument `{nxt}' to conditional unary operator", self.line)
        arg = self._cond_arg_token()  # a newline here is a token (bash reads one token on)
        nxt = self._cond_peek() if arg != "newline" else arg
        if nxt in ("]]", "&&", "||", ")"):
            return A.CondWord(first)
        if arg not in ("word", "<", ">"):
            raise ParseError(f"unexpected token `{arg}', conditional binary operator expected", self.line)
        op_text = nxt if nxt in ("<", ">") else self._peek_cond_text()
        if op_text in _COND_BINARY:
            if nxt in ("<", ">"):
                self._cond_take(nxt)
            else:
                self._cond_word()
            if op_text == "=~":
                self._cond_skip()
                end = self.src[self.pos + 2 : self.pos + 3]
                if self.src.startswith("]]", self.pos) and end in ("", " ", "\t", "\n", ";", "&", "|", ")"):
                    right = None  # (bash reads `]]' as the missing operand's token, not a regex)
                else:
                    right = self.read_word(REGEX)
                if right is not None:
                    right = A.Word(tuple(tilde_prefix(list(right.parts))), right.line, right.text)
                if right is None:
                    raise ParseError("unexpected argument `]]' to conditional binary operator", self.line)
            else:
                after = self._cond_arg_token()
                if after != "word":
                    raise ParseError(
                        f"unexpected argument `{after}' to conditional binary operator", self.line
                    )
                prev = self.extglob
                if op_text in ("==", "=", "!="):
                    self.extglob = True
                try:
                    right = self._cond_word()
                finally:
                    self.extglob = prev
            return A.CondBinary(op_text, first, right)
        raise ParseError("conditional binary operator expected", self.line)

    def _peek_cond_text(self) -> str:
        self._cond_skip()
        src = self.src
        i = self.pos
        j = i
        while j < len(src) and (src[j] not in " \t\n" or src[j - 1 : j + 1] == "\\\n"):
            j += 1
        return _head_text(src[i:j])  # (`=\<newline>=` is `==`)


def _offending_text(raw: str) -> str:
    """A word as bash names it in `unexpected token`: as its parser keeps the token (each $'...'
    translated and single-quoted, line continuations outside single quotes gone), in $'...' when
    that holds a control character (`$'"a\\nb"'`)."""
    text = without_continuations(ansi_decoded(raw))
    return printable_name(text)


def _plain_word(word: A.Word) -> str | None:
    if len(word.parts) == 1 and isinstance(word.parts[0], A.Lit):
        return word.parts[0].text
    return None


def _subscript_spans(src: str, tok: Tok) -> bool:
    """Whether a word token starts `name[` whose `]` lies past the token's end (it stopped at a
    blank, a newline or an operator inside the brackets) or nowhere."""
    if tok.kind != "word" or not (m := _name_at(src, tok.pos)) or src[m.end() : m.end() + 1] != "[":
        return False
    close = subscript_end(src, m.end() + 1)
    return close >= tok.end or close < 0


# the parts of a word that quote it
_QUOTING = (A.SQ, A.DQ, A.Esc)


def _unquote_delim(word: A.Word) -> str:
    r"""The delimiter of `<<WORD`: WORD's text with quotes removed and nothing expanded (bash's
    string_quote_removal: `EO\`true\`F` stays as written, `"E"'O'\F` is EOF)."""
    text = word.text
    out: list[str] = []
    i, n = 0, len(text)
    in_dq = False
    while i < n:
        c = text[i]
        if c == "\\" and text[i + 1 : i + 2] == "\n":
            i += 2  # a line continuation inside the word
        elif c == "\\" and i + 1 < n:
            if in_dq and text[i + 1] not in '$`"\\':
                out.append(c)  # (inside double quotes a backslash stays unless it quotes one of $`"\)
            out.append(text[i + 1])
            i += 2
        elif c == "$" and not in_dq and text[i + 1 : i + 2] == "'":
            end = i + 2
            while end < n and text[end] != "'":
                end += 2 if text[end] == "\\" else 1
            out.append(decode_escapes(text[i + 2 : end], "ansi")[0])  # (bash 5.2 decodes $'...' here)
            i = end + 1
        elif c == "$" and not in_dq and text[i + 1 : i + 2] == '"':
            i += 1  # $"..." is "..."
        elif c == "'" and not in_dq:
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            out.append(text[i + 1 : end])
            i = end + 1
        elif c == '"':
            in_dq = not in_dq
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


# _find_arith_end: the `((`'s first `)` is not followed by another (-1: the input ended first)
_PAREN_NOT_DOUBLED = -2


def _split_arith_for(text: str) -> list[str] | None:
    pieces: list[str] = []
    depth = 0
    cur: list[str] = []
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        if c == ";" and depth == 0:
            pieces.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    pieces.append("".join(cur))
    if len(pieces) != 3:
        return None
    return pieces


# `$(` nested deeper than this keep the lines of where they are written: reading each level's
# text again reads the levels in it again (80 levels of `$(if ...` took 0.8 s of CPU to parse)
_MAX_RUN_DEPTH = 8


def _spans_subs(tok: Tok) -> bool:
    """Whether a word holds a substitution bash parses again when it runs and spans lines (its
    lines then depend on which line the command is found to be on)."""
    return tok.kind == "word" and "\n" in tok.value and _holds_subs(tok.value)


def _holds_subs(text: str) -> bool:
    """Whether `text` may hold a substitution bash parses again when it runs."""
    return "`" in text or "$(" in text or "<(" in text or ">(" in text


def parse(src: str, *, aliases: dict[str, str] | None = None, extglob: bool = False) -> A.CommandList:
    """Parse a whole script (no incremental execution)."""
    return Parser(src, aliases=aliases, extglob=extglob).parse_all()
