"""Character-level reading of words: quotes, escapes and every `$` form.

`WordReader` is the half of the parser that works on characters. The command
grammar (`parser.Parser`) subclasses it, because `$(...)` and `<(...)` need to
parse commands in the middle of a word, on the same input.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from functools import cache

from . import ast as A
from .arith import subscript_end
from .braces import brace_parts
from .continuations import past_continuations, without_continuations
from .errors import ParseError, ParseLimit
from .escapes import decode_escapes

_EOF_MESSAGE = "syntax error: unexpected end of file"

# reading modes
CMD = 0  # an ordinary command word
DQ = 1  # inside "..."
PARAM = 2  # the argument of ${x op ARG}
PARAM_PAT = 3  # the pattern of ${x/PAT/...}
HEREDOC = 4  # an unquoted here-document body
ARITH = 5  # the text of $(( ... )) (already cut out)
COND = 6  # a word inside [[ ]]
REGEX = 7  # the right side of =~
CASE_PAT = 8  # a case pattern
SLICE = 9  # the offset/length of ${x:off:len}
KEY = 10  # an associative-array subscript: quotes and $ work, nothing terminates

_META = frozenset(" \t\n;&|<>()")
_SPECIAL_PARAMS = frozenset("@*#?-$!0")
_QUOTING = frozenset("\\\"'")  # what bash's matched-pair read skips over (Lexer._skip_quoted)
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_DIGITS = frozenset("0123456789")
_BRACE_OPS = frozenset(":-=?+#%/^,~@")  # the characters of a ${...} operator (Lexer._join_brace_head)
_PLAIN_CMD = re.compile(r"[^ \t\n;&|<>()'\"\\$`{},~?*+@!\[\]=:]+")
_PLAIN_DQ = re.compile(r'[^"\\$`]+')


@cache
def _plain_heredoc() -> re.Pattern[str]:
    """A here-document's run of plain text: compiled on first use, not by every start-up."""
    return re.compile(r"[^\\$`]+")


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def _sub_arith_expands() -> re.Pattern[str]:
    """What makes a subscript's arithmetic reading expand (a key's reading adds single quotes): compiled
    on first use, not by every start-up."""
    return re.compile(r"[$`\"\\]")


_LITERAL_SUBSCRIPT = A.Subscript(None, None)
# bash expands an arithmetic text fully (and its subscripts once, quoted) only when it holds one of
# these (subst.c's ARITH_EXP_CHAR); otherwise it only removes quotes
ARITH_EXPANDS = re.compile(r"[$`~]")
# an operator's spelling -> its family and member, by str key (an Enum call or an Enum-keyed dict
# hashes in Python, and reading a member off an Enum class costs about 0.2 us on 3.11)
_OPS: dict[str, tuple[A.OpKind, A.Op]] = {op.value: (A.OP_KIND[op], op) for op in A.Op}
_TEST, _BAD = A.OpKind.TEST, A.OpKind.BAD


@cache
def _assignish() -> re.Pattern[str]:
    """A word's head shaped like an assignment (`name=`, `name+=`): compiled on first use, for a
    word holding a `=` (not by every start-up)."""
    return re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def is_name(text: str) -> bool:
    return _NAME_RE.fullmatch(text) is not None


# how many characters of one word are read between two calls of the deadline tick
_TICK_CHARS = 32768


class WordReader:
    src: str
    pos: int

    def __init__(self, src: str, *, line_base: int = 1, extglob: bool = False) -> None:
        self.src = src
        self.pos = 0
        self.line_base = line_base
        self.extglob = extglob
        # the text is a script read from a file or stdin (bash's buffered stream), not a string
        # (`-c`, eval, source, traps): `((a)` then a newline differs (_dparen_unclosed)
        self.stream = False
        # the newlines of the source, found up to (not including) _nl_upto: extended as positions
        # are asked for, cut back to an edit (an edit near the parser costs only what follows it)
        self._nl_positions: list[int] = []
        self._nl_upto = 0
        # where line continuations were cut out of the source (drop_continuations): each one a
        # newline just before that index, a line of the script still; sorted
        self._cuts: list[int] = []
        self.pending_heredocs: list[A.HereDoc] = []
        self.heredoc_lines: dict[int, int] = {}
        # inside "${x%'pat'}" single quotes quote; inside "${x-'w'}" they are literal
        self.dq_quotes = False
        # "${x:+"\p"}": in double quotes inside the word of a double-quoted ${x-w}/${x+w}/${x=w}/
        # ${x?w}, a backslash quotes any character and goes, as outside quotes (bash gives `p`)
        self.plain_escapes = False
        self.word_role = ""  # the role of the ${...} word being read (_param_arg)
        # ${...} nested in ${...}: counted against the same bound as commands (max_ast_depth)
        self.word_depth = 0
        self.max_word_depth = 400
        # set -o posix: in "${x+'w'}" a single quote is an ordinary character (bash reads it so
        # when the line is parsed)
        self.posix = False
        # reading a quoted ${...} word again as bash expands it: single quotes plain there too
        self.plain_squotes = False
        # an unquoted here-document's body: bash reads its ${...} when it expands it, so a $'...'
        # there is not translated as the parser translates it in "${...}"
        self.heredoc_body = False
        self.heredoc_patterns = 0  # reading a pattern word of a ${...} in a here-document
        self.aliases: dict[str, str] | None = None  # (the parser's: expanded in command position)
        self.comsub_depth = 0  # inside $( ) or <( ): a here-document line `EOF)` ends the body
        # `$(`s to read again as their child reads them, once the command they are in is read
        # (see _run_later; shared with this reader's sub-readers); comsub_depth of the reader
        # this one reads a part of (a `$(` read in place there is read again as a whole)
        self.run_later: list[tuple[A.CmdSub | A.ProcSub, str | None, int, int]] = []
        self.outer_depth = 0
        # reading an arithmetic text that bash expands fully: in a subscript `'...'` quotes
        self.arith_once = False
        # the first word of a [[ ]] term: `name[...]` reads its brackets whole, as bash reads an
        # assignment's subscript there (`[[ a[1<(2)] -eq 0 ]]`)
        self.cond_subscript = False
        # the same for a word where bash takes an assignment (a command's start, after an assignment):
        # `a[i + 1]=x` and `a[1 + 1]` are one word each (bash's parse_matched_pair over the brackets)
        self.cmd_subscript = False
        # the run's deadline, called every so often while reading (a script's size bounds parsing,
        # its deadline must too: one 1 MB line of `:;` takes seconds to parse)
        self.tick: Callable[[], None] | None = None

    # ------------------------------------------------------------ positions

    def _newlines_before(self, pos: int) -> int:
        nls = self._nl_positions
        upto = self._nl_upto
        if pos > upto:
            src = self.src
            # scan a little past `pos`: the parser asks for positions just ahead of the last one
            stop = min(len(src), max(pos, upto + 256))
            i = src.find("\n", upto, stop)
            while i >= 0:
                nls.append(i)
                i = src.find("\n", i + 1, stop)
            self._nl_upto = max(stop, pos)  # (past the end: every newline is before it)
        return bisect.bisect_left(nls, pos)

    def phantom_lines(self, pos: int) -> int:
        """Newlines before `pos` that are not lines of the script (an alias's value put them in
        the source; bash does not count them), less the lines of the continuations cut before
        it (drop_continuations)."""
        return -bisect.bisect_right(self._cuts, pos) if self._cuts else 0

    def line_at(self, pos: int) -> int:
        return self.line_base + self._newlines_before(pos) - self.phantom_lines(pos)

    def line_col(self, pos: int) -> tuple[int, int]:
        """The line and the 1-based column (in characters) of `pos`."""
        i = self._newlines_before(pos)
        return self.line_base + i - self.phantom_lines(pos), pos - (self._nl_positions[i - 1] if i else -1)

    def col_at(self, pos: int) -> int:
        return self.line_col(pos)[1]

    @property
    def line(self) -> int:
        return self.line_at(self.pos)

    # where a backquoted or `$((` substitution's own lines count from. bash parses its text only
    # when it runs, as a child whose first line is the line of the command being run: the parser
    # sets this while it reads a simple command (-1 until that line is known: the line where the
    # substitution ends, as bash's lookahead token does; then the command's line); 0 elsewhere
    # (the line where the substitution starts)
    sub_line = 0

    def _sub_base(self, start_line: int) -> int:
        """The first line of a backquoted or `$((` substitution's text just read (see sub_line)."""
        base = self.sub_line
        if base == 0:
            return start_line
        return self.line if base < 0 else base

    def source_changed(self, at: int = 0) -> None:
        """The source was edited from `at` on: what is known of it before `at` still holds."""
        if at < self._nl_upto:
            del self._nl_positions[bisect.bisect_left(self._nl_positions, at) :]
            self._nl_upto = at

    def splice(self, start: int, end: int, text: str) -> None:
        """Replace the source between start and end with `text` (read next, from `start`)."""
        self.src = self.src[:start] + text + self.src[end:]
        self.edited(start, end, text)
        self.source_changed(start)

    def edited(self, start: int, end: int, text: str) -> None:
        """The source between start and end became `text`: what is kept by position moves with
        the text after it (a cut line inside it goes to its end; the parser's alias ranges)."""
        cuts = self._cuts
        k = bisect.bisect_right(cuts, start)
        if k < len(cuts):  # (only the cuts after `start` move: usually none, the parser cuts ahead)
            size = len(text)
            delta = size - (end - start)
            cuts[k:] = [start + size if c <= end else c + delta for c in cuts[k:]]

    def _translates_ansi(self) -> bool:
        """Whether a $'...' in a quoted ${...} is translated when the script is read: always in
        double quotes; in a here-document only inside a pattern word (bash translates those
        when it expands the body)."""
        return not self.heredoc_body or self.heredoc_patterns > 0

    def _ansi_in_bad_brace(self, i: int) -> None:
        """The $'...' of a ${...} that is a bad substitution from `i` on, translated as bash's
        parser does before it finds out (its message shows `${'x1'%'t'}` for `${'x1'%$'t'}`):
        single-quoted after a pattern operator, bare before."""
        end = self._find_closing_brace(i)
        k = self.src.find("$'", i)
        while 0 <= k < end:
            quote = any(c in "#%/^," for c in self.src[i:k])
            self._ansi_in_dquoted_brace(k, quote)
            end = self._find_closing_brace(i)
            k = self.src.find("$'", k + 1)

    def _ansi_in_dquoted_brace(self, i: int, quote: bool) -> None:
        """`$'...'` at `i` inside "${...}": bash's parser translates it in the text it keeps (with
        extquote, as bash 5.2 does by default), bare where the word is plain text and
        single-quoted where quotes are special (a pattern); the result is read again from `i`,
        so `"${u:-$'\x24'HOME}"` expands $HOME and messages show the translated text."""
        end = self._find_ansi_end(i + 2)
        # each line of it is translated in its place, so the newlines of the script stay lines
        # of the script and only a `\n` makes a newline that is not one (splice)
        pieces: list[tuple[int, int, str]] = []
        start = i + 2
        for line in self.src[i + 2 : end].split("\n"):
            text, _ = decode_escapes(line, "ansi")
            pieces.append((start, start + len(line), text.replace("'", "'\\''") if quote else text))
            start += len(line) + 1
        first = pieces[0]
        pieces[0] = (i, first[1], "'" + first[2] if quote else first[2])  # (from the `$'`)
        last = pieces[-1]
        pieces[-1] = (last[0], end + 1, last[2] + "'" if quote else last[2])  # (to the `'`)
        for a, b, text in reversed(pieces):
            self.splice(a, b, text)
        self.pos = i

    def eof_line(self) -> int:
        """The line bash reports for `unexpected end of file`."""
        src = self.src
        count = src.count("\n") - self.phantom_lines(len(src))
        if src and not src.endswith("\n"):
            count += 1
        return self.line_base + count

    def error_eof(self, what: str | None = None, line: int | None = None) -> ParseError:
        if what is None:
            return ParseError(_EOF_MESSAGE, self.eof_line(), incomplete=True)
        return ParseError(
            f"unexpected EOF while looking for matching `{what}'",
            line if line is not None else self.line,
            incomplete=True,
        )

    def current_line_text(self, pos: int) -> str:
        """The script's line that `pos` is on; a line continuation cut out (cut_continuations)
        still ends a line, as in the text bash quotes in its messages."""
        start = self.src.rfind("\n", 0, pos) + 1
        end = self.src.find("\n", pos)
        if end < 0:
            end = len(self.src)
        tail = ""
        if self._cuts:
            k = bisect.bisect_right(self._cuts, pos)
            if k:
                start = max(start, self._cuts[k - 1])
            if k < len(self._cuts) and self._cuts[k] < end:
                end, tail = self._cuts[k], "\\"
        return self.src[start:end] + tail

    # ------------------------------------------------------------ helpers

    def peek_char(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else ""

    def drop_continuations(self, i: int) -> None:
        """The line continuations at `i` cut out of the source (cut_continuations)."""
        src = self.src
        j = i
        while src.startswith("\\\n", j):
            j += 2
        if j > i:
            self.cut_continuations([(i, j)])

    def cut_continuations(self, runs: list[tuple[int, int]]) -> None:
        """The line continuations of each (start, end) run (in order; backslash-newlines only)
        cut out of the source, with one copy of it, their lines still counted (phantom_lines).
        bash drops a backslash-newline wherever it reads outside single quotes, before it splits
        tokens: `&\\<newline>&` is `&&`, `${\\<newline>x}` is `${x}`, `f\\<newline>o()` defines
        fo, and its messages show the text without them."""
        if not runs:
            return
        for a, b in reversed(runs):
            self.edited(a, b, "")
        src = self.src
        pieces: list[str] = []
        cuts: list[int] = []
        prev = removed = 0
        for a, b in runs:
            pieces.append(src[prev:a])
            cuts.extend([a - removed] * ((b - a) // 2))
            removed += b - a
            prev = b
        pieces.append(src[prev:])
        self.src = "".join(pieces)
        if self._cuts and cuts[0] < self._cuts[-1]:
            self._cuts = sorted(self._cuts + cuts)
        else:
            self._cuts.extend(cuts)  # (the usual order: a cut after every earlier one)
        self.source_changed(runs[0][0])

    def skip_continuations(self) -> None:
        src = self.src
        while src.startswith("\\\n", self.pos):
            self.pos += 2

    def char_at(self, i: int) -> str:
        """The character at i, skipping line continuations; returns (char)."""
        return self.src[i] if i < len(self.src) else ""

    # ------------------------------------------------------------ words

    def read_word(self, mode: int = CMD, dq_context: bool = False) -> A.Word | None:
        """Read one word at `pos` in `mode`; None when no word character is here."""
        start = self.pos
        line, col = self.line_col(start)
        parts = self.read_parts(mode, dq_context)
        if not parts and self.pos == start:
            return None
        text = without_continuations(self.src[start : self.pos])  # (the text bash keeps)
        if mode in (CMD, COND, CASE_PAT) and parts:
            parts = self.finish_word(parts)
        return A.Word(tuple(parts), line, text, col)

    def finish_word(self, parts: list[A.Part], brace: bool = True) -> list[A.Part]:
        """Tilde prefix and brace expansion, both decided on unquoted text."""
        first = parts[0]
        m = _assignish().match(first.text) if isinstance(first, A.Lit) and "=" in first.text else None
        if m is not None and isinstance(first, A.Lit):
            # bash expands ~ after `=` and `:` in any word shaped like an assignment (outside
            # posix mode: the Tildes are marked so the expansion can tell)
            head, rest = first.text[: m.end()], first.text[m.end() :]
            tail = assignment_tildes(([A.Lit(rest)] if rest else []) + parts[1:], in_argument=True)
            parts = [A.Lit(head), *tail]
        else:
            parts = tilde_prefix(parts)
        if brace and any(isinstance(p, A.Lit) and "{" in p.text for p in parts):
            parts = brace_parts(parts)
        return parts

    def read_parts(self, mode: int, dq_context: bool = False) -> list[A.Part]:
        src = self.src
        n = len(src)
        parts: list[A.Part] = []
        lit: list[str] = []
        depth = 0  # paren depth for REGEX, bracket depth for ARITH
        sq_open = False  # inside '...' within "${x-...}" (literal quotes)
        start_pos = self.pos
        sub_end = (
            self._cond_subscript_end()
            if (mode == COND and self.cond_subscript) or (mode == CMD and self.cmd_subscript)
            else -1
        )
        next_tick = self.pos + _TICK_CHARS

        def flush() -> None:
            if lit:
                parts.append(A.Lit("".join(lit)))
                lit.clear()

        while self.pos < n:
            if self.pos > next_tick and self.tick is not None:
                next_tick = self.pos + _TICK_CHARS
                self.tick()
            c = src[self.pos]
            # fast path: runs of ordinary characters
            if mode in (CMD, COND, CASE_PAT):
                m = _PLAIN_CMD.match(src, self.pos)
                if m:
                    lit.append(m.group())
                    self.pos = m.end()
                    continue
            elif mode == DQ:
                m = _PLAIN_DQ.match(src, self.pos)
                if m:
                    lit.append(m.group())
                    self.pos = m.end()
                    continue
            elif mode == HEREDOC:
                m = _plain_heredoc().match(src, self.pos)
                if m:
                    lit.append(m.group())
                    self.pos = m.end()
                    continue

            # terminators
            if mode in (CMD, COND, CASE_PAT):
                if c in _META and self.pos > sub_end:
                    if c in "<>" and self._procsub_at() and mode in (CMD, COND):
                        flush()
                        parts.append(self.read_procsub())
                        src = self.src
                        n = len(src)
                        continue
                    if c == "(" and mode in (CMD, COND, CASE_PAT) and self._extglob_here(lit):
                        op = lit[-1][-1]
                        lit[-1] = lit[-1][:-1]
                        flush()
                        parts.append(self.read_extglob(op))
                        continue
                    break
            elif mode == DQ:
                if c == '"':
                    break
            elif mode == PARAM:
                # bash counts only nested `${`: a bare `{` does not pair with the `}` that ends the word
                if c == "}" and not sq_open:
                    break
                if c in "<>" and not dq_context and self._procsub_at():
                    flush()  # ${x:-<(cmd)}: a process substitution in an unquoted word
                    parts.append(self.read_procsub())
                    src = self.src
                    n = len(src)
                    continue
            elif mode == PARAM_PAT:
                if (c == "}" or c == "/") and not sq_open:
                    break
            elif mode == SLICE:
                if c == "}" or c == ":":
                    break
            elif mode == REGEX:
                if c in "<>" and self._procsub_at():
                    flush()  # (`=~ ^<(cmd)$`, at any paren depth: bash reads a process substitution)
                    parts.append(self.read_procsub())
                    src = self.src
                    n = len(src)
                    continue
                if c in " \t\n" and depth == 0:
                    break
                if c in "&|;<>" and depth == 0:
                    if c == "|" or c == "&":
                        if self.peek_char(1) == c:
                            break
                    else:
                        break
                if c == "(":
                    depth += 1
                elif c == ")":
                    if depth == 0:
                        break
                    depth -= 1

            if mode == ARITH and self.arith_once:
                if c == "[":
                    depth += 1
                elif c == "]" and depth:
                    depth -= 1
                elif c == "'" and depth and src.find("'", self.pos + 1) >= 0:
                    end = src.find("'", self.pos + 1)
                    flush()
                    parts.append(A.SQ(src[self.pos + 1 : end]))
                    self.pos = end + 1
                    continue
            if c == "\\":
                self._read_backslash(mode, dq_context, lit, parts, flush)
                continue
            if c == "'" and mode not in (DQ, HEREDOC, ARITH):
                if dq_context and mode == PARAM and (self.posix or self.plain_squotes) and not self.dq_quotes:
                    lit.append("'")
                    self.pos += 1
                    continue
                end = src.find("'", self.pos + 1)
                if end < 0 and not sq_open:
                    raise self.error_eof("'")
                if dq_context and mode in (PARAM, PARAM_PAT) and not self.dq_quotes:
                    # "${x-'a $v'}": the quotes stay and $v expands inside
                    # them, but they still protect a `}`
                    lit.append("'")
                    sq_open = not sq_open
                    self.pos += 1
                    continue
                flush()
                parts.append(A.SQ(src[self.pos + 1 : end]))
                self.pos = end + 1
                continue
            if c == '"' and mode not in (DQ, HEREDOC):
                flush()
                self.pos += 1
                start_line = self.line
                saved_escapes = self.plain_escapes
                self.plain_escapes = dq_context and mode == PARAM and self.word_role == "test"
                try:
                    inner = self.read_parts(DQ)
                finally:
                    self.plain_escapes = saved_escapes
                src = self.src  # (a "${...}" inside may have translated a $'...')
                n = len(src)
                if self.pos >= n:
                    raise self.error_eof('"', start_line)
                self.pos += 1
                parts.append(A.DQ(tuple(inner)))
                continue
            if c == "$":
                flush()
                self.read_dollar(mode, dq_context or mode in (DQ, HEREDOC), parts, lit)
                # an alias expanded inside $( ) may have rewritten the source
                src = self.src
                n = len(src)
                continue
            if c == "`":
                flush()
                parts.append(self.read_backtick(dq_context or mode in (DQ, HEREDOC)))
                continue
            lit.append(c)
            self.pos += 1
        if mode == REGEX and depth > 0 and self.pos >= n:
            # `[[ a =~ ( ]]`: bash reads to the end looking for the `)'
            e = self.error_eof(")", self.line_at(start_pos))
            e.extra = [("unexpected argument to conditional binary operator", self.eof_line())]
            raise e
        flush()
        if mode in (CMD, DQ, PARAM, HEREDOC, COND, ARITH) and any(
            type(p) is A.Param and p.prefix == "bad" for p in parts
        ):
            _name_bad_in(parts, without_continuations(self.src[start_pos : self.pos], mode in (DQ, HEREDOC)))
        if mode in (CMD, COND) and any(type(p) is A.DQ for p in parts):
            name_unclosed_in(parts, lambda: without_continuations(self.src[start_pos : self.pos]))
        return parts

    def _cond_subscript_end(self) -> int:
        """Where the `]` of a `name[` at the reading position is, or -1."""
        m = _NAME_RE.match(self.src, self.pos)
        if m is None or self.src[m.end() : m.end() + 1] != "[":
            return -1
        return self._find_subscript_end(m.end() + 1)

    def _extglob_here(self, lit: list[str]) -> bool:
        return bool(self.extglob and lit and lit[-1] and lit[-1][-1] in "?*+@!")

    def _read_backslash(
        self, mode: int, dq_context: bool, lit: list[str], parts: list[A.Part], flush: object
    ) -> None:
        src = self.src
        nxt = src[self.pos + 1] if self.pos + 1 < len(src) else ""
        if nxt == "\n":
            self.pos += 2
            return
        if nxt == "":
            lit.append("\\")
            self.pos += 1
            return
        if (mode in (DQ, HEREDOC, ARITH) or (dq_context and mode in (PARAM, PARAM_PAT, SLICE))) and not (
            mode == DQ and self.plain_escapes
        ):
            specials = '$`"\\' if mode != HEREDOC else "$`\\"
            if mode in (PARAM, PARAM_PAT):
                specials += "}"
                if mode == PARAM_PAT:
                    specials += "/"
            if nxt in specials:
                if lit:
                    parts.append(A.Lit("".join(lit)))
                    lit.clear()
                parts.append(A.Esc(nxt))
            else:
                lit.append("\\" + nxt)
            self.pos += 2
            return
        # unquoted: the next character is quoted
        if lit:
            parts.append(A.Lit("".join(lit)))
            lit.clear()
        parts.append(A.Esc(nxt))
        self.pos += 2

    # ------------------------------------------------------------ $ forms

    def read_dollar(self, mode: int, in_dq: bool, parts: list[A.Part], lit: list[str]) -> None:
        src = self.src
        i = self.pos + 1
        if src.startswith("\\\n", i):
            # `$\<newline>x` is `$x`: bash drops a line continuation before it reads the word (the
            # branches below read from i, and `${` from pos + 2)
            while src.startswith("\\\n", i):
                i += 2
            self.pos = i - 1
        c = src[i] if i < len(src) else ""
        if (
            c == "'"
            and in_dq
            and mode in (PARAM, PARAM_PAT)
            and self._translates_ansi()
            and (self.dq_quotes or not self.posix)  # (posix: only a pattern's are translated)
        ):
            self._ansi_in_dquoted_brace(self.pos, self.dq_quotes)
            last = parts[-1] if parts else None
            if isinstance(last, A.Lit) and not lit:
                parts.pop()
                lit.append(last.text)  # (the text read before goes on in the same piece)
            return
        if c == "'" and (not in_dq or (self.dq_quotes and mode in (PARAM, PARAM_PAT))) and mode != ARITH:
            end = self._find_ansi_end(i + 1)
            raw = src[i + 1 : end]
            self.pos = end + 1
            text, _ = decode_escapes(raw, "ansi")
            parts.append(A.SQ(text, dollar=True))
            return
        if c == '"' and in_dq and mode in (PARAM, PARAM_PAT):
            self.pos = i  # "${x#$"a"}": $"..." is "..." in the word of a quoted ${...}
            return
        if c == '"' and not in_dq:
            self.pos = i + 1
            start_line = self.line
            saved_escapes, self.plain_escapes = self.plain_escapes, False
            try:
                inner = self.read_parts(DQ)
            finally:
                self.plain_escapes = saved_escapes
            if self.pos >= len(src):
                raise self.error_eof('"', start_line)
            self.pos += 1
            parts.append(A.DQ(tuple(inner)))
            return
        if c == "{":
            parts.append(self.read_braced_param(in_dq))
            return
        if c == "(":
            k = past_continuations(src, i + 1)  # (`$(\\<newline>(1+2))` is arithmetic)
            if src.startswith("(", k):
                try:
                    arith = self.try_read_arith(k + 1)
                except ParseError as e:
                    quote = self._paren_close(i)[1] if e.incomplete else ""
                    if quote:  # (the text ends inside a quote: bash names the quote)
                        raise self.error_eof(quote, self.line_at(i)) from None
                    raise
                if arith is not None:
                    parts.append(arith)
                    return
                parts.append(self._dparen_cmdsub(i + 1))
                return
            parts.append(self.read_cmdsub(i + 1))
            return
        if c == "[":
            end = self._find_matching(i + 1, "[", "]")
            if end < 0:
                raise self.error_eof("]")
            text = src[i + 1 : end]
            self.pos = end + 1
            parts.append(self.make_arith(text))
            return
        if c and c in _NAME_START:
            j = i + 1
            while j < len(src) and src[j] in _NAME_CHARS:
                j += 1
            parts.append(A.Param(src[i:j]))
            self.pos = j
            return
        if c and (c.isdigit() or c in _SPECIAL_PARAMS):
            parts.append(A.Param(c))
            self.pos = i + 1
            return
        # a lone $
        lit.append("$")
        self.pos = i

    def _find_ansi_end(self, i: int) -> int:
        src = self.src
        while i < len(src):
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if c == "'":
                return i
            i += 1
        raise self.error_eof("'")

    def _find_matching(self, i: int, open_c: str, close_c: str) -> int:
        src = self.src
        depth = 0
        while i < len(src):
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if c == open_c:
                depth += 1
            elif c == close_c:
                if depth == 0:
                    return i
                depth -= 1
            i += 1
        return -1

    def make_arith(self, text: str) -> A.ArithSub:
        kept = without_continuations(text)  # (as bash keeps it: what messages and declare -f show)
        return A.ArithSub(A.Word(tuple(self._arith_parts(text, self.line)), self.line, kept), kept)

    def _arith_parts(self, text: str, line: int) -> list[A.Part]:
        reader = self.sub_reader(text, line)
        reader.arith_once = ARITH_EXPANDS.search(text) is not None
        return reader.read_parts(ARITH)

    def try_read_arith(self, start: int, command: bool = False) -> A.ArithSub | None:
        """At `start` (just after `$((` or `((`): read through the matching `))`.

        Returns None when the parentheses do not close as arithmetic, in which
        case the caller parses a command substitution or subshell instead. `command`: the
        `((...))` command, where bash parses a $(...) inside (a case pattern's `)` stays in it)."""
        src = self.src
        depth = 0
        subs: list[int] = []  # the depths at which a nested $( opened (bash parses it as commands)
        # `$((` closed by a single `)`: bash's matched-pair read goes on to the `)` of the `$(`
        # (counting parentheses only) before it parses the text as a command substitution
        outer_open = False
        i = start
        n = len(src)
        while i < n:
            c = src[i]
            if c in _QUOTING:
                j = self._skip_quoted(i)
                i = n if j < 0 else j
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    if outer_open:
                        return None
                    if i + 1 < n and src[i + 1] == ")":
                        text = src[start:i]
                        self.pos = i + 2
                        return self.make_arith(text)
                    if command:
                        if not self.stream and (i + 1 == n or src[i + 1] == "\n"):
                            raise self._dparen_unclosed(i + 1)
                        return None  # a nested subshell: `((a) | b)`
                    outer_open = True
                    i += 1
                    continue
                depth -= 1
                if subs and subs[-1] > depth:
                    subs.pop()
            elif c == "$" and i + 1 < n and src[i + 1] == "(":
                close = self.comsub_close(i + 2) if command and src[i + 2 : i + 3] != "(" else -1
                if close >= 0:
                    i = close + 1
                    continue
                # a nested $( ... ) or $(( ... )): skip it as a unit
                if src[i + 2 : i + 3] != "(":
                    subs.append(depth + 1)
                depth += 1
                i += 2
                continue
            i += 1
        # the text ended first: bash's matched-pair reader names the `)' on the line where the
        # `((` began; inside a nested $( its command parser reaches the end of the text
        raise self.error_eof(")", self.eof_line() if subs else self.line_at(start))

    def _dparen_unclosed(self, end: int) -> ParseError:
        """`((a)` with the end of the line or text after its `)` in a string: bash's
        parse_arith_cmd reports it at once (reading a script from a file, it is a nested
        subshell), naming the text before `end` back to a blank or `;|&` of the line (its
        error_token_from_text)."""
        src = self.src
        first = src.rfind("\n", 0, end) + 1
        k = end - 1
        while k > first and src[k] not in " \t\n;|&":
            k -= 1
        while k != end and src[k] in " \t\n":
            k += 1
        return ParseError(
            f"syntax error near `{src[k:end]}'",
            self.line_at(end - 1),
            source_line=self.current_line_text(end - 1),
        )

    def read_cmdsub(self, body_start: int) -> A.CmdSub:
        start_line = self.line
        self.pos = body_start
        try:
            body = self._parse_sub_body()
        except ParseError as e:
            if self.heredoc_body and e.source_line is not None and e.line == start_line:
                # bash parses a here-document's $( when it expands the body, from the $( on
                nl = self.src.find("\n", body_start)
                e.source_line = self.src[body_start : nl if nl >= 0 else len(self.src)]
            raise
        if self.pos >= len(self.src) or self.src[self.pos] != ")":
            raise self.error_eof(")", self.eof_line() if start_line else start_line)
        text = self.src[body_start : self.pos]
        self.pos += 1
        node = A.CmdSub(body, False, text)
        self._run_later(node, text, start_line)
        return node

    def _run_later(self, node: A.CmdSub | A.ProcSub, text: str, start_line: int) -> None:
        """Note a `$(` (or `<(`) just read, to be given the lines bash's child gives its commands:
        bash parses the text when it reads it (its errors are the script's, at their own lines:
        `node.body`), and its child parses it again when it runs, its first line the running
        command's line (see sub_line): the text as bash prints it back (one command a line;
        comments, blank lines and `\\`-newlines gone; `if`, `while`, ... over several lines),
        or as written in a here-document's body. The parser reads it again when the command is
        read (Parser.finish_runs), not now: a word read twice (to learn its command's line)
        would read its nest of `$(` 2**depth times. Only a reader's outermost `$(` is noted: one
        inside it is read again with it."""
        if self.comsub_depth or self.outer_depth:
            return
        base = self._sub_base(start_line)
        if self.heredoc_body:
            if base != start_line:
                self.run_later.append((node, text, start_line, base))
            elif "\n" in text:  # (its body's line is that of its first command)
                object.__setattr__(node, "run", (text, start_line))
        elif base != start_line or "\n" in text or not _one_line(node.body, text):
            self.run_later.append((node, None, start_line, base))

    def _parse_sub_body(self) -> A.CommandList:
        """The commands of $( ) or <( ): here-documents of the enclosing line wait until after it
        (a newline inside does not read them), and one started inside but not ended there takes
        its body from the lines after, with bash's warning."""
        outer, self.pending_heredocs = self.pending_heredocs, []
        self.comsub_depth += 1
        try:
            body = self.parse_subcommand_until_paren()
        except ParseError as e:
            e.in_comsub = True
            if e.message != _EOF_MESSAGE:
                raise
            # the text ended inside the substitution: bash names the `)' it still looks for
            raise self.error_eof(")", self.eof_line()) from None
        finally:
            self.comsub_depth -= 1
            inner = self.pending_heredocs
            self.pending_heredocs = outer + inner
        if inner:
            self.parse_warning(f"warning: command substitution: {len(inner)} unterminated here-document")
        return body

    def _procsub_at(self) -> bool:
        """Whether the `<` or `>` at pos starts a process substitution (`<\\<newline>(` too)."""
        k = past_continuations(self.src, self.pos + 1)
        return self.src[k : k + 1] == "("

    def read_procsub(self) -> A.ProcSub:
        direction = self.src[self.pos]
        start_line = self.line
        body_start = past_continuations(self.src, self.pos + 1) + 1
        self.pos = body_start
        body = self._parse_sub_body()
        if self.pos >= len(self.src) or self.src[self.pos] != ")":
            raise self.error_eof(")", self.eof_line())
        text = self.src[body_start : self.pos]
        self.pos += 1
        node = A.ProcSub(body, direction, text)
        self._run_later(node, text, start_line)
        return node

    def read_backtick(self, in_dq: bool) -> A.CmdSub:
        src = self.src
        i = self.pos + 1
        start_line = self.line
        out: list[str] = []
        while True:
            if i >= len(src):
                raise self.error_eof("`", start_line)
            c = src[i]
            if c == "\\" and i + 1 < len(src):
                d = src[i + 1]
                if d in "$`\\" or (in_dq and d == '"'):
                    out.append(d)
                    i += 2
                    continue
                if d == "\n":
                    i += 2
                    continue
                out.append(c)
                i += 1
                continue
            if c == "`":
                break
            out.append(c)
            i += 1
        self.pos = i + 1
        text = "".join(out)
        start_line = self._sub_base(start_line)
        try:
            body = self.parse_nested_source(text, start_line)
        except ParseLimit:
            raise
        except ParseError as e:
            return _unparsed_comsub(e, text, start_line, self.parse_lines_before(text, start_line))
        return A.CmdSub(body, True, text, _run_of(text, start_line))

    def _dparen_cmdsub(self, body_start: int) -> A.CmdSub:
        """`$((` that is no arithmetic: bash reads it to the `)` that closes the `$(` (counting
        parentheses) and parses the command only when the substitution runs, so it is printed
        back as written (`declare -f`), and a command that does not parse fails the substitution,
        not the script."""
        start_line = self.line
        end, quote = self._paren_close(body_start - 1)
        if end < 0:
            if quote:  # (the text ends inside a quote: bash names the quote)
                raise self.error_eof(quote, self.line_at(body_start))
            return self.read_cmdsub(body_start)  # (its error)
        text = self.src[body_start:end]
        self.pos = end + 1
        start_line = self._sub_base(start_line)
        try:  # the text alone, as bash's child parses it
            return A.CmdSub(self.parse_nested_source(text, start_line), True, text, _run_of(text, start_line))
        except ParseLimit:
            raise
        except ParseError as e:
            return _unparsed_comsub(e, text, start_line, self.parse_lines_before(text, start_line))

    def _skip_quoted(self, i: int) -> int:
        """At a backslash or a quote at `i` (one of _QUOTING): the index just past the character
        it escapes or past the closing quote, as bash's matched-pair read skips them (a backslash
        escapes inside double quotes, nothing does inside single ones); -1 when the text ends
        inside the quote. try_read_arith and _paren_close both scan this way."""
        src = self.src
        c = src[i]
        if c == "\\":
            return i + 2
        n = len(src)
        if c == "'":
            j = src.find("'", i + 1)
            return -1 if j < 0 else j + 1
        j = i + 1
        while j < n and src[j] != '"':
            j += 2 if src[j] == "\\" else 1
        return -1 if j >= n else j + 1

    def _paren_close(self, start: int) -> tuple[int, str]:
        """The `)` matching the `(` at `start`, as bash's matched-pair read finds it (quotes and
        backslashes skipped, parentheses counted), or -1 when the text ends first, with the
        quote then left open ("" when none)."""
        src = self.src
        depth = 0
        i = start
        n = len(src)
        while i < n:
            c = src[i]
            if c in _QUOTING:
                i = self._skip_quoted(i)
                if i < 0:
                    return -1, c
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return i, ""
            i += 1
        return -1, ""

    def read_extglob(self, op: str) -> A.ExtGlob:
        """At `(` of an extglob group whose operator char was already read."""
        src = self.src
        start_line = self.line
        self.pos += 1
        alts: list[tuple[A.Part, ...]] = []
        cur: list[A.Part] = []
        lit: list[str] = []

        def flush() -> None:
            if lit:
                cur.append(A.Lit("".join(lit)))
                lit.clear()

        while True:
            if self.pos >= len(src):
                raise self.error_eof(")", start_line)
            c = src[self.pos]
            if c == ")":
                self.pos += 1
                flush()
                alts.append(tuple(cur))
                return A.ExtGlob(op, tuple(alts))
            if c == "|":
                self.pos += 1
                flush()
                alts.append(tuple(cur))
                cur = []
                continue
            if c == "(" and lit and lit[-1] and lit[-1][-1] in "?*+@!":
                op2 = lit[-1][-1]
                lit[-1] = lit[-1][:-1]
                flush()
                cur.append(self.read_extglob(op2))
                continue
            if c in "'\"$`\\":
                flush()
                sub = self.read_parts_one(c)
                cur.extend(sub)
                continue
            lit.append(c)
            self.pos += 1

    def read_parts_one(self, c: str) -> list[A.Part]:
        """Read a single quoted/expansion unit starting at pos (used inside extglob)."""
        parts: list[A.Part] = []
        lit: list[str] = []
        if c == "\\":
            self._read_backslash(CMD, False, lit, parts, None)
        elif c == "'":
            end = self.src.find("'", self.pos + 1)
            if end < 0:
                raise self.error_eof("'")
            parts.append(A.SQ(self.src[self.pos + 1 : end]))
            self.pos = end + 1
        elif c == '"':
            self.pos += 1
            inner = self.read_parts(DQ)
            if self.pos >= len(self.src):
                raise self.error_eof('"')
            self.pos += 1
            parts.append(A.DQ(tuple(inner)))
        elif c == "$":
            self.read_dollar(CMD, False, parts, lit)
        elif c == "`":
            parts.append(self.read_backtick(False))
        if lit:
            parts.append(A.Lit("".join(lit)))
        return parts

    # ------------------------------------------------------------ ${ ... }

    def read_braced_param(self, in_dq: bool) -> A.Param:
        self.word_depth += 1
        try:
            if self.word_depth > self.max_word_depth:
                raise ParseLimit("max_ast_depth", self.max_word_depth, self.line)
            return self._read_braced_param(in_dq)
        finally:
            self.word_depth -= 1

    def _read_braced_param(self, in_dq: bool) -> A.Param:
        self._join_brace_head()
        src = self.src
        start_line = self.line
        dollar = self.pos
        i = self.pos + 2
        n = len(src)
        prefix = ""

        def at(k: int) -> str:
            return src[k] if k < n else ""

        nxt = at(i + 1)
        if at(i) == "#" and nxt in ("/", "%", "=", "+") and at(i + 2) == "}":
            return self._bad_param(dollar, i)  # bash: ${#%} and the like name no length
        if at(i) == "#" and nxt in ("-", "?", "#") and at(i + 2) != "}":
            pass  # ${#-word}, ${#?word}, ${##pat}: $# with the operator (${#-} is the length of $-)
        elif at(i) == "#" and nxt and (nxt in _NAME_CHARS or nxt in _SPECIAL_PARAMS) and nxt != "}":
            prefix = "#"
            i += 1
        elif at(i) == "!" and nxt and (nxt in _NAME_CHARS or nxt in "@*" or (nxt in "#?" and not self.posix)):
            # bash's VALID_INDIR_PARAM: otherwise `!` is the parameter itself (${!-word}, ${!,})
            prefix = "!"
            i += 1
        if in_dq and not self.posix and self._translates_ansi() and src.startswith("$'", i):
            self._ansi_in_dquoted_brace(i, False)  # "${$'x1'}" is "${x1}"
            src = self.src
            n = len(src)
        name, i = self._param_name(i)
        if not name:
            if in_dq and self._translates_ansi():
                self._ansi_in_bad_brace(i)
            return self._bad_param(dollar, i)
        sub: str | None = None
        if at(i) == "[" and name not in _SPECIAL_PARAMS and not name.isdigit():
            end = self._find_subscript_end(i + 1)
            if end < 0:
                close = self._find_closing_brace(i)
                self.pos = close + 1
                # (inside "...", bash names the whole word: _name_unclosed_in; in an operator's
                # word, the outer ${ } has no closing brace: _nested_unclosed)
                mark = "" if prefix == "#" else _UNCLOSED if in_dq else _UNCLOSED_PLAIN
                return A.Param("", None, "bad", _bad_op(self.src[dollar : close + 1]), True, mark)
            sub = without_continuations(src[i + 1 : end])  # (as bash reads it: `${a[\\<newline>1]}`)
            if not sub:
                return self._bad_param(dollar, i)  # `${a[]}`: no array reference (bash)
            i = end + 1
        names_suffix = ""
        if (
            prefix == "!"
            and at(i) in ("*", "@")
            and at(i)
            and at(i + 1) == "}"
            and sub is None
            and name[0] in _NAME_START
        ):
            names_suffix = at(i)
            i += 1
        self.pos = i
        c = at(i)
        if c == "}":
            self.pos = i + 1
            return A.Param(name, sub, prefix, None, True, names_suffix, self.read_subscript(sub, self.line))
        if c == "":
            raise self.error_eof("}", start_line)
        if prefix == "#" or names_suffix:
            return self._bad_param(dollar, i)
        try:
            op = self._read_param_op(in_dq, start_line)
        except ParseError as e:
            broken = self._broken_dolbrace(dollar) if in_dq and type(e) is ParseError else None
            if broken is not None:
                return broken
            reread = self._op_with_open_dquote(dollar, i) if in_dq and type(e) is ParseError else None
            if reread is None:
                raise
            op = reread
        src = self.src  # (the operator's word may have translated a $'...' in it)
        inner = _nested_unclosed(op)
        if inner:
            # bash's scan for this ${ 's closing brace runs into the unclosed subscript: the whole
            # ${ } is bad, whether its word is used or not, named by the string being expanded
            # (the whole word, quotes and all, when both are inside "...": _name_unclosed_in)
            mark = _UNCLOSED if in_dq and inner == _IN_QUOTES else NESTED_UNCLOSED
            return A.Param("", None, "bad", _bad_op(src[dollar : self.pos]), True, mark)
        if in_dq and "'" in src[i : self.pos] and "$(" in src[i : self.pos]:
            broken = self._broken_dolbrace(dollar)
            if broken is not None:
                return broken
        if op.kind is _BAD:
            # a bad `@` transformation is marked (names_suffix "@", "!@" of an indirection): bash
            # looks at the value first (not for ${!1@}, a names suffix after no name)
            mark = "" if op.text[:1] != "@" else "@" if not prefix else "" if op.text == "@" else "!@"
            return A.Param(name, sub, "bad", _bad_op(src[dollar : self.pos]), True, mark)
        return A.Param(name, sub, prefix, op, True, names_suffix, self.read_subscript(sub, self.line))

    def _join_brace_head(self) -> None:
        """Line continuations in the head of the `${` at pos, read below character by character,
        cut (cut_continuations): `${\\<newline>x}` is `${x}`, `${x^\\<newline>^}` is `${x^^}`.
        The head is a `#` or `!`, the name, a subscript and up to two operator characters; the
        operator's word skips its continuations as any word does."""
        src = self.src
        if src.find("\\", self.pos + 2, self.pos + 256) < 0:
            return  # (a head longer than that is no name anyone continues)
        n = len(src)
        runs: list[tuple[int, int]] = []

        def skip(i: int) -> int:  # past the continuations at i, noted
            j = i
            while src.startswith("\\\n", j):
                j += 2
            if j > i:
                runs.append((i, j))
            return j

        i = skip(self.pos + 2)
        if i < n and src[i] in "#!":
            i = skip(i + 1)
        if i < n and src[i] in _SPECIAL_PARAMS and not src[i].isdigit():
            i = skip(i + 1)
        else:
            chars = _NAME_CHARS if i < n and src[i] in _NAME_START else _DIGITS
            while i < n and src[i] in chars:
                i = skip(i + 1)  # (a name may be continued too: `${na\\<newline>me}`)
        if i < n and src[i] == "[":
            end = self._find_subscript_end(i + 1)
            i = skip(end + 1) if end >= 0 else n
        for _ in range(2):
            if i >= n or src[i] not in _BRACE_OPS:
                break
            i = skip(i + 1)
        self.cut_continuations(runs)

    def _op_with_open_dquote(self, dollar: int, i: int) -> A.ParamOp | None:
        """`"${x-'"a'}"`: bash finds the `}` with single quotes paired, then expands the word with
        them plain, where a `"` left open is closed at the word's end. The operator (from `i`) read
        again that way, or None when that does not parse either."""
        end = self._dolbrace_end(dollar + 2)
        if end < 0:
            return None
        text = self.src[i:end]
        reader = self.sub_reader(text + '"}', self.line_at(i))
        reader.plain_squotes = True
        try:
            op = reader._read_param_op(True, self.line_at(i))
        except ParseError:
            return None
        if reader.pos != len(text) + 2:
            return None
        self.pos = end + 1
        return op

    def _bad_param(self, dollar: int, i: int) -> A.Param:
        end = self._find_closing_brace(i)
        self.pos = end + 1
        return A.Param("", None, "bad", _bad_op(self.src[dollar : end + 1]), True)

    def read_subscript(self, sub: str | None, line: int) -> A.Subscript | None:
        """`sub` parsed in both readings (see A.Subscript); None when a reading does not parse
        here (it is then parsed when it runs, where an open quote is closed as bash does)."""
        if sub is None or sub in ("@", "*"):
            return None
        if not _sub_arith_expands().search(sub):
            # nothing for arithmetic to expand; a key may still hold single quotes
            return _LITERAL_SUBSCRIPT if "'" not in sub else self._subscript_key_only(sub, line)
        try:
            arith = A.Word(tuple(self.sub_reader(sub, line).read_parts(ARITH)), line, sub)
            key = A.Word(tuple(self.sub_reader(sub, line).read_parts(KEY)), line, sub)
        except ParseLimit:
            raise
        except ParseError:
            return None
        return A.Subscript(arith, key)

    def _subscript_key_only(self, sub: str, line: int) -> A.Subscript | None:
        try:
            return A.Subscript(None, A.Word(tuple(self.sub_reader(sub, line).read_parts(KEY)), line, sub))
        except ParseLimit:
            raise
        except ParseError:
            return None

    def _param_name(self, i: int) -> tuple[str, int]:
        src = self.src
        n = len(src)
        if i >= n:
            return "", i
        c = src[i]
        if c in _NAME_START:
            j = i + 1
            while j < n and src[j] in _NAME_CHARS:
                j += 1
            return src[i:j], j
        if c.isdigit():
            j = i + 1
            while j < n and src[j].isdigit():
                j += 1
            return src[i:j], j
        if c in _SPECIAL_PARAMS:
            return c, i + 1
        return "", i

    def _find_subscript_end(self, i: int) -> int:
        """The `]` closing the subscript whose text starts at `i` (-1: none): bash's
        skipsubscript, the parser's and the arithmetic's scanner (arith.subscript_end)."""
        return subscript_end(self.src, i)

    def _find_closing_brace(self, i: int) -> int:
        """The `}` that closes a ${...} whose text from `i` is no known operator, found as bash's
        matched-pair read finds it: a quoted string (', ", `) and a `$(...)` are passed whole, so
        a `}` inside them closes nothing (`${x"}"}` is one bad substitution), and at the end of
        input the construct left open is named (`${x"`: the `"`)."""
        src = self.src
        n = len(src)
        depth = 0
        while i < n:
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if c in "'\"`":
                j = i + 1
                while j < n and src[j] != c:
                    j += 2 if src[j] == "\\" and c != "'" else 1
                if j >= n:
                    raise self.error_eof(c)
                i = j + 1
                continue
            if c == "(" and i and src[i - 1] == "$":
                j = self._find_matching(i + 1, "(", ")")
                if j < 0:
                    raise self.error_eof(")", self.eof_line())
                i = j + 1
                continue
            if c == "{" and i and src[i - 1] == "$":  # bash pairs only a nested `${` with a `}`
                depth += 1
            elif c == "}":
                if depth == 0:
                    return i
                depth -= 1
            i += 1
        raise self.error_eof("}")

    def _read_param_op(self, in_dq: bool, start_line: int) -> A.ParamOp:
        src = self.src
        i = self.pos
        c = src[i]
        two = src[i : i + 2]
        if c == ":" and two[1:] in ("-", "=", "?", "+"):
            self.pos = i + 2
            return A.ParamOp(*_OPS[two], self._param_arg(PARAM, in_dq, start_line, _word_role(two)))
        if c in "-=?+":
            self.pos = i + 1
            return A.ParamOp(*_OPS[c], self._param_arg(PARAM, in_dq, start_line, _word_role(c)))
        if c in "#%":
            op = two if two in ("##", "%%") else c
            self.pos = i + len(op)
            return A.ParamOp(*_OPS[op], self._param_arg(PARAM, in_dq, start_line, "pat"))
        if c == "/":
            op = two if two in ("//", "/#", "/%") else "/"
            self.pos = i + len(op)
            lead = op == "//" and src[self.pos : self.pos + 1] == "/"
            self.pos += lead  # (bash: after `//` a first `/` is the pattern's own: ${a///b/c})
            pat = self._param_arg(PARAM_PAT, in_dq, start_line, "pat")
            if lead:
                pat = A.Word((A.Lit("/"), *pat.parts), pat.line, "/" + pat.text)
            rep: A.Word | None = None
            if self.pos < len(self.src) and self.src[self.pos] == "/":
                self.pos += 1
                rep = self._param_arg(PARAM, in_dq, start_line, "repl")
            else:
                self._expect_close(start_line)
            return A.ParamOp(*_OPS[op], pat, rep)
        if c in "^,~":
            op = two if two in ("^^", ",,", "~~") else c
            self.pos = i + len(op)
            arg = self._param_arg(PARAM, in_dq, start_line, "pat")
            return A.ParamOp(*_OPS[op], arg if arg.parts else None)
        if c == "@":
            x = src[i + 1 : i + 2]
            if x and src[i + 2 : i + 3] == "}" and x in "QEPAaKkUuL":
                self.pos = i + 3
                return A.ParamOp(*_OPS[x])
            end = self._find_closing_brace(i)
            self.pos = end + 1
            return _bad_op(src[i:end])
        if c == ":":
            if src[i + 1 : i + 2] == "}":  # ${x:} has no offset at all: bad substitution
                self.pos = i + 2
                return _bad_op(src[i : i + 1])
            self.pos = i + 1
            off = self._param_arg(SLICE, in_dq, start_line, "slice")
            length: A.Word | None = None
            if self.pos < len(self.src) and self.src[self.pos] == ":":
                self.pos += 1
                # the length is the rest up to the brace: `${v:1:2:3}` is length `2:3`, an
                # arithmetic error when expanded (bash), not an unclosed brace
                length = self._param_arg(SLICE, in_dq, start_line, "length")
            self._expect_close(start_line)
            return A.ParamOp(*_OPS[":"], off, length)
        end = self._find_closing_brace(i)
        self.pos = end + 1
        return _bad_op(src[i:end])

    def _expect_close(self, start_line: int) -> None:
        if self.pos < len(self.src) and self.src[self.pos] == "}":
            self.pos += 1
            return
        raise self.error_eof("}", start_line)

    def _param_arg(self, mode: int, in_dq: bool, start_line: int, role: str) -> A.Word:
        start = self.pos
        line = self.line
        if mode == SLICE:
            # arithmetic text up to ':' (an offset) or '}', with nested parens and ternaries
            colon = role != "length"
            if in_dq and not self.posix and self._translates_ansi():
                i = self.src.find("$'", start)
                while 0 <= i < self._slice_end(start, colon):
                    self._ansi_in_dquoted_brace(i, False)  # "${x:$'1'}" is "${x:1}"
                    i = self.src.find("$'", i)
                self.pos = start
            text_end = self._slice_end(start, colon)
            text = self.src[start:text_end]
            parts = self._arith_parts(text, line)
            self.pos = text_end
            return A.Word(tuple(parts), line, without_continuations(text))
        saved = self.dq_quotes
        saved_role = self.word_role
        self.dq_quotes = role in ("pat", "repl")
        self.word_role = role
        pattern = self.heredoc_body and role == "pat"
        self.heredoc_patterns += pattern
        try:
            # a replacement is read as if unquoted even in "${x/p/r}" (bash 4.3+ removes its quotes),
            # and so is the message of "${x?w}"
            parts = self.read_parts(mode, in_dq and role not in ("repl", "error"))
        finally:
            self.dq_quotes = saved
            self.word_role = saved_role
            self.heredoc_patterns -= pattern
        if self.pos >= len(self.src):
            raise self.error_eof("}", start_line)
        if mode == PARAM:
            self.pos += 1  # the closing brace
            if (not in_dq and role in ("test", "error")) or role == "repl":
                parts = tilde_prefix(parts)
        text = self.src[start : self.pos - (1 if mode == PARAM else 0)]
        return A.Word(tuple(parts), line, without_continuations(text))

    def _broken_dolbrace(self, dollar: int) -> A.Param | None:
        """`"${a-'$('}"`: bash reads a double-quoted ${...} to its `}` with single quotes paired,
        but when the word is expanded it reads the text again with single quotes plain, and a `$(`
        that then does not parse fails the command (status 1; the script goes on), whatever the
        operator. That error as a Param, or None when every `$(` parses."""
        src = self.src
        end = self._dolbrace_end(dollar + 2)
        if end < 0:
            return None
        j = dollar + 2
        while j < end:
            if src[j] == "\\":
                j += 2
                continue
            if src.startswith("$(", j) and src[j + 2 : j + 3] != "(":
                saved = self.pos
                try:
                    self.read_cmdsub(j + 2)
                    j = self.pos
                    if j <= end:
                        continue
                except ParseLimit:
                    raise
                except ParseError:
                    pass
                finally:
                    self.pos = saved
                return self._comsub_error(j, end)
            j += 1
        return None

    def _comsub_error(self, k: int, end: int) -> A.Param:
        # the command substitution's body is the rest of the double-quoted word, as bash reads it
        src = self.src
        quote = end + 1
        while quote < len(src) and src[quote] != '"':
            quote += 2 if src[quote] == "\\" else 1
        message = "unexpected EOF while looking for matching `)'"
        shown = ""  # (the offending line bash echoes after a token error)
        try:
            self.parse_nested_source(src[k + 2 : quote + 1], self.line_at(k))
        except ParseLimit:
            raise
        except ParseError as e:
            message, shown = e.message, e.source_line or ""
        self.pos = end + 1
        # the place is a span (a Word's line), so a re-printed script keeps the same tree
        op = A.ParamOp(*_OPS[""], A.Word((), self.line_at(k) + 1, shown), text=message)
        return A.Param("", None, "error", op, True)

    def _dolbrace_end(self, i: int) -> int:
        """The `}` ending a ${...} word as bash's parser finds it: quotes paired, nested `${`
        counted, backslashes escaping; -1 when there is none."""
        src = self.src
        depth = 0
        n = len(src)
        while i < n:
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if c == "'" or c == '"':
                j = src.find("'", i + 1) if c == "'" else self._quote_end(i)
                if j < 0:
                    return -1
                i = j
            elif c == "$" and src[i + 1 : i + 2] == "{":
                depth += 1
                i += 1
            elif c == "}":
                if depth == 0:
                    return i
                depth -= 1
            i += 1
        return -1

    def _slice_end(self, i: int, colon: bool = True) -> int:
        """Where the offset (`colon`: it ends at a free ':') or the length of ${x:off:len} ends."""
        src = self.src
        depth = 0
        ternary = 0
        while i < len(src):
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if c == "(" or c == "[":
                depth += 1
            elif c == ")" or c == "]":
                depth -= 1
            elif c == "?" and depth == 0:
                ternary += 1
            elif c == ":" and depth == 0 and colon:
                if ternary:
                    ternary -= 1
                else:
                    return i
            elif c == "}":  # bash ends ${...} at the first free brace, even inside parens
                return i
            elif c == "$" and i + 1 < len(src) and src[i + 1] in "({":
                close = ")" if src[i + 1] == "(" else "}"
                j = self._find_matching(i + 2, src[i + 1], close)
                if j < 0:
                    raise self.error_eof(close)
                i = j
            elif c in "'\"`":
                j = self._quote_end(i) if c != "'" else src.find(c, i + 1)
                if j < 0:
                    raise self.error_eof(c)
                i = j
            i += 1
        raise self.error_eof("}")

    def _quote_end(self, i: int) -> int:
        """Index of the quote closing the `"` or backquote at `i` (backslash escapes skipped), or -1."""
        src = self.src
        j = i + 1
        while j < len(src) and src[j] != src[i]:
            j += 2 if src[j] == "\\" else 1
        return j if j < len(src) else -1

    # ------------------------------------------------------------ here-docs

    def read_heredoc_bodies(self) -> None:
        """Called just after a newline: read every pending here-doc body."""
        pending = self.pending_heredocs
        self.pending_heredocs = []
        src = self.src
        for doc in pending:
            lines: list[str] = []
            start_line = self.line
            if self.pos and src[self.pos - 1] != "\n":
                start_line += 1  # (at the end of the text, on the operator's own line)
            found = False
            while self.pos < len(src):
                end = src.find("\n", self.pos)
                if end < 0:
                    line = src[self.pos :]
                    next_pos = len(src)
                    has_nl = False
                else:
                    line = src[self.pos : end]
                    next_pos = end + 1
                    has_nl = True
                    if not doc.quoted:
                        line, next_pos, has_nl = _join_continued(src, line, next_pos, doc.strip_tabs)
                check = line.lstrip("\t") if doc.strip_tabs else line
                if check == doc.delim or (doc.strip_tabs and line == doc.delim):
                    # (with <<-, bash also compares the line before its tabs go: <<-'<TAB>END')
                    self.pos = next_pos
                    found = True
                    break
                if self.comsub_depth and check.startswith(doc.delim) and ")" in check[len(doc.delim) :]:
                    # bash's backwards compatibility: `EOF)` in $(...) ends the body as end-of-file
                    # would (with its warning) and the rest of the line is read again
                    self.pos = next_pos - has_nl - len(check) + len(doc.delim)
                    break
                # (a last line the text ends without a newline gets one, as bash gives it)
                lines.append((check if doc.strip_tabs else line) + "\n")
                self.pos = next_pos
            if not found:
                self.heredoc_warning(start_line, doc)
            text = "".join(lines)
            doc.text = text
            if doc.quoted:
                doc.body = A.Word((A.SQ(text),), start_line, text)
            else:
                reader = self.sub_reader(text, start_line)
                reader.heredoc_body = True
                reader.sub_line = self.heredoc_sub_line(doc)
                try:
                    parts = reader.read_parts(HEREDOC)
                except ParseLimit:
                    raise
                except ParseError as e:
                    # bash parses a body's $(...) only when it expands the body: an error there
                    # fails that command (`command substitution: line N: ...`), not the script
                    op = A.ParamOp(*_OPS[""], A.Word((), e.line, e.source_line or ""), text=e.message)
                    parts = [A.Param("", None, "error", op, True)]
                doc.body = A.Word(tuple(parts), start_line, text)

    def comsub_close(self, start: int) -> int:
        """Where the `)` of a `$(` whose command starts at `start` is, or -1 if it does not parse."""
        sub = self.sub_reader(self.src[start:], self.line_at(start))
        sub.aliases = None  # (positions must stay those of this text)
        sub.run_later = []  # (only looking: nothing it reads is kept)
        try:
            sub.parse_subcommand_until_paren()
        except ParseLimit:
            raise
        except ParseError:
            return -1
        return start + sub.pos

    # ------------------------------------------------------------ provided by the parser

    def sub_reader(self, text: str, line: int) -> WordReader:
        """A reader over `text` that can parse commands (for $(...) inside it)."""
        raise NotImplementedError

    def parse_subcommand_until_paren(self) -> A.CommandList:
        raise NotImplementedError

    def parse_nested_source(self, text: str, line: int) -> A.CommandList:
        raise NotImplementedError

    def heredoc_warning(self, start_line: int, doc: A.HereDoc) -> None:
        """Overridden by the parser to collect warnings."""

    def parse_lines_before(self, text: str, line: int) -> tuple[A.ListItem, ...]:
        """The commands of `text` on the lines before the first that does not parse."""
        raise NotImplementedError

    def heredoc_sub_line(self, doc: A.HereDoc) -> int:
        """The sub_line of `doc`'s body: bash expands it as its command runs, so a substitution
        there counts its lines from that command's line (0: unknown, from where it starts).
        The parser keeps it for a simple command's here-documents."""
        return 0

    def parse_warning(self, message: str) -> None:
        """Overridden by the parser to collect warnings (at the reading position's line)."""


def _unparsed_comsub(e: ParseError, text: str, line: int, before: tuple[A.ListItem, ...] = ()) -> A.CmdSub:
    """A command substitution bash parses only when it runs (`...`, a `$((` that is no
    arithmetic) and whose command does not parse: its child reports the error as
    `command substitution: line N: ...` (and the offending line) and exits 2; the command that
    expands it goes on. The error is a Param of prefix "unparsed" the child's one command expands,
    after `before`: the commands on the lines before the one that does not parse (the child reads
    and runs a line at a time)."""
    # (the messages bash adds after the first one, `expected `)'`, are lines of the same text)
    text_lines = "\n".join(m for m in (e.message, *(m for m, _ in e.extra)) if m)
    op = A.ParamOp(*_OPS[""], A.Word((), e.line, e.source_line or ""), text=text_lines)
    word = A.Word((A.Param("", None, "unparsed", op, True),), line, "")
    item = A.ListItem(A.SimpleCommand((), (word,), (), line))
    return A.CmdSub(A.CommandList((*before, item), line), True, text, _run_of(text, line))


def _run_of(text: str, line: int) -> tuple[str, int] | None:
    """A substitution's `run` (ast.CmdSub): set for a text of several lines, which may define an
    alias one of its later lines uses (interp/aliasrun.py reads those as they run)."""
    return (text, line) if "\n" in text else None


def _word_role(op: str) -> str:
    """_param_arg's role for the word of ${x-w} ${x=w} ${x+w} ("test") and ${x?w} ("error": its
    double quotes keep their backslashes)."""
    return "error" if op[-1] == "?" else "test"


def _join_continued(src: str, line: str, next_pos: int, strip_tabs: bool) -> tuple[str, int, bool]:
    """An unquoted here-document line ending in an odd number of backslashes goes on on the next
    line, and the delimiter is checked after the join (bash: `EO\\<newline>F` ends the body,
    `next\\<newline>EOF` does not). With `<<-`, tabs go only from the first line of the join.
    The lines are joined once at the end and only the newest one is scanned for backslashes:
    joining and scanning the whole text at each line made 300,000 continued lines take seconds
    past the run's deadline (quadratic)."""
    has_nl = True
    parts = [line]
    trailing = len(line) - len(line.rstrip("\\"))  # of the text joined so far
    while trailing & 1:
        while not parts[-1]:
            parts.pop()  # (an empty line joined last: the backslash is on a line before it)
        if next_pos >= len(src):
            parts[-1] = parts[-1][:-1]
            return "".join(parts), next_pos, True  # (a continued last line: bash ends it with a newline)
        if strip_tabs:
            parts[0] = parts[0].lstrip("\t")
            strip_tabs = False
        parts[-1] = parts[-1][:-1]
        end = src.find("\n", next_pos)
        nxt = src[next_pos:] if end < 0 else src[next_pos:end]
        parts.append(nxt)
        own = len(nxt) - len(nxt.rstrip("\\"))
        trailing = own + trailing - 1 if own == len(nxt) else own
        next_pos, has_nl = (len(src), False) if end < 0 else (end + 1, True)
    return "".join(parts), next_pos, has_nl


def _valid_name_start(c: str) -> bool:
    return c in _NAME_START


def tilde_prefix(parts: list[A.Part]) -> list[A.Part]:
    """Turn a leading unquoted `~prefix` into a Tilde part."""
    if not parts:
        return parts
    first = parts[0]
    if not isinstance(first, A.Lit) or not first.text.startswith("~"):
        return parts
    text = first.text
    # the prefix ends at the first slash, or colon (bash's tilde.c stops at both)
    slash = next((i for i, c in enumerate(text) if c == "/" or c == ":"), -1)
    if slash < 0:
        if len(parts) > 1:
            return parts
        user, rest = text[1:], ""
    else:
        user, rest = text[1:slash], text[slash:]
    if not _valid_tilde_user(user):
        return parts
    out: list[A.Part] = [A.Tilde(user)]
    if rest:
        out.append(A.Lit(rest))
    out.extend(parts[1:])
    return out


def _valid_tilde_user(user: str) -> bool:
    if user in ("", "+", "-"):
        return True
    if user[0] in "+-" and user[1:].isdigit():
        return True
    return all(c.isalnum() or c in "._-" for c in user)


def _bad_op(text: str) -> A.ParamOp:
    """A bad substitution: an error only when it is expanded (bash parses it silently)."""
    return A.ParamOp(*_OPS[""], text=text)


def _name_bad_in(parts: list[A.Part], text: str) -> None:
    """bash names a bad substitution by the whole string it was expanding (`AA${x@Z}BB`, the
    inside of "...", the word of ${u:-...}): the text of the parts just read."""
    for k, p in enumerate(parts):
        if type(p) is A.Param and p.prefix == "bad":
            parts[k] = A.Param(p.name, p.sub, "bad", _bad_op(text), True, p.names_suffix)


# names_suffix of a bad substitution that is an unclosed subscript inside "..." (`"${a[}"`): bash
# reports it as `bad substitution: no closing `}' in WORD`, WORD the whole word as written;
# _WHOLE_MESSAGE: the op's text is then that message
_UNCLOSED = "}"
_WHOLE_MESSAGE = "msg"
# an unclosed subscript outside "..." (`${a[}`: its own text is named) and a ${ } whose
# operator's word holds one (`${u:-${a[}}`: 'bad substitution: no closing `}' in WORD', WORD the
# string being expanded: the word, or the inside of its "...")
_UNCLOSED_PLAIN = "]"
NESTED_UNCLOSED = "}}"


_UNCLOSED_MARKS = (_UNCLOSED, _UNCLOSED_PLAIN, _WHOLE_MESSAGE)
_IN_QUOTES = "dq"


def _nested_unclosed(op: A.ParamOp) -> str:
    """Whether the operator's word holds an unclosed subscript: "" no, _IN_QUOTES inside a "..."
    of its own, else "word"."""
    for word in (op.arg, op.arg2):
        if word is None:
            continue
        for p in word.parts:
            inner = p.parts if type(p) is A.DQ else (p,)  # type: ignore[union-attr]
            for q in inner:
                if type(q) is A.Param and q.prefix == "bad" and q.names_suffix in _UNCLOSED_MARKS:
                    return _IN_QUOTES if type(p) is A.DQ else "word"
    return ""


def name_unclosed_in(parts: list[A.Part], word_text: Callable[[], str]) -> bool:
    """Name the word in the message of each unclosed subscript inside its "..." (again for the
    argument of a declaration builtin: there bash names the whole `x="${a[}"`)."""
    named = False
    for k, p in enumerate(parts):
        if type(p) is A.Param and p.prefix == "bad" and p.names_suffix == NESTED_UNCLOSED:
            parts[k] = A.Param("", None, "bad", _bad_op(word_text()), True, NESTED_UNCLOSED)
            named = True
            continue
        if type(p) is not A.DQ:
            continue
        inner = list(p.parts)  # type: ignore[union-attr]
        found = False
        for j, q in enumerate(inner):
            if type(q) is A.Param and q.prefix == "bad" and q.names_suffix in (_UNCLOSED, _WHOLE_MESSAGE):
                text = f"bad substitution: no closing `}}' in {word_text()}"
                inner[j] = A.Param(q.name, q.sub, "bad", _bad_op(text), True, _WHOLE_MESSAGE)
                found = True
        if found:
            parts[k] = A.DQ(tuple(inner))
            named = True
    return named


def _default_word_tildes(p: A.Param) -> A.Param:
    """`x=${u-~:~}`: the word of ${x-...} and friends in an assignment value
    gets the assignment's tilde rule too (after each `:`)."""
    op = p.op
    if op is None or op.kind is not _TEST or op.arg is None:
        return p
    arg = op.arg
    parts = assignment_tildes(list(arg.parts))
    if tuple(parts) == arg.parts:
        return p
    new_op = A.ParamOp(op.kind, op.op, A.Word(tuple(parts), arg.line, arg.text), op.arg2)
    return A.Param(p.name, p.sub, p.prefix, new_op, p.braced, p.names_suffix, p.subscript)


def assignment_tildes(parts: list[A.Part], in_argument: bool = False) -> list[A.Part]:
    """Tilde expansion in an assignment value: at the start and after each `:` (`in_argument`:
    in a command's argument shaped like an assignment)."""
    out: list[A.Part] = []
    at_start = True
    for p in parts:
        if isinstance(p, A.Lit):
            pieces = p.text.split(":")
            for k, piece in enumerate(pieces):
                if k > 0:
                    out.append(A.Lit(":"))
                    at_start = True
                if at_start and piece.startswith("~"):
                    slash = piece.find("/")
                    user = piece[1:] if slash < 0 else piece[1:slash]
                    ends_here = slash >= 0 or k < len(pieces) - 1 or p is parts[-1]
                    if ends_here and _valid_tilde_user(user):
                        out.append(A.Tilde(user, in_argument))
                        if slash >= 0:
                            out.append(A.Lit(piece[slash:]))
                        at_start = False
                        continue
                if piece:
                    out.append(A.Lit(piece))
                    at_start = False
        else:
            # (bash: in an argument, not in ${u-a:~} of one: `echo x=${u-a:~}` prints x=a:~)
            out.append(_default_word_tildes(p) if isinstance(p, A.Param) and not in_argument else p)
            at_start = False
    # merge adjacent literals
    merged: list[A.Part] = []
    for p in out:
        if isinstance(p, A.Lit) and merged and isinstance(merged[-1], A.Lit):
            merged[-1] = A.Lit(merged[-1].text + p.text)  # type: ignore[union-attr]
        else:
            merged.append(p)
    return merged


def _one_line(body: A.CommandList, text: str) -> bool:
    """Whether bash prints a `$(` written on one line on one line too: only compound commands
    (`if`, loops, groups, functions, ...) and the `$(` inside it may print over several."""
    if "$(" in text or "<(" in text or ">(" in text:
        return False
    stack: list[A.Command] = [item.cmd for item in body.items]
    while stack:
        cmd = stack.pop()
        if isinstance(cmd, A.Pipeline):
            stack.extend(cmd.cmds)
        elif isinstance(cmd, A.AndOr):
            stack.append(cmd.first)
            stack.extend(sub for _, sub in cmd.rest)
        elif not isinstance(cmd, A.SimpleCommand):
            return False
    return True
