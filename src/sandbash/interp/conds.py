"""`[[ ]]`: the conditional command's evaluator over the parsed expression (the test
language itself, shared with `test`, `[` and /usr/bin/test, is in posix/testexpr.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..expand.arith import ArithError
from ..expand.arithops import INTS
from ..expand.arithwords import arith_join_fn, subscript_error
from ..expand.env import ArithAssignError
from ..expand.pattern import as_byte_chars, compile_pattern, escape, from_byte_chars, glob_test
from ..expand.segments import QUO, static_word
from ..expand.stringfn import param_text_fn, string_fn
from ..posix.testexpr import INT_OPS, collate, file_compare, unary_test
from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import ARRAY, ASSOC, NAMEREF, Var, split_array_ref
from ..stdio.pipe import PipeReader, PipeWriter
from ..stdio.streams import NullStream, RandomStream, ZeroStream
from ..syntax import ast as A
from ..syntax.lexer import is_name
from ..vfs.base import S_IFCHR, S_IFIFO, S_IFLNK, S_IFREG, Stat
from .variables import AssignError, ElementError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..regex import Regex
    from .shell import Shell


class CondArithError(ArithError):
    """An operand of -eq and the rest failed as arithmetic: the [[ ]] command's own error, named
    `[[: ` and of status 1 (an arithmetic error while expanding an operand discards the line)."""

    def __init__(self, e: ArithError) -> None:
        super().__init__(e.message, e.text, e.token)


class CondAssignError(ArithAssignError):
    """A store in an operand of -eq and the rest was refused (a readonly variable): reported,
    the [[ ]] command's status 1, and the line goes on (a `$(( ))` in an operand ends it)."""


def _cond_arith(sh: Shell, text: str) -> int:
    """An operand of -eq and the rest as a number; a refused store that names itself names
    `[[: ` first (bash's expr.c reports in the name of the command evaluating)."""
    if not text.strip():
        return 0
    outer = sh.arith_cmd
    sh.arith_cmd = "[[: "
    try:
        return sh.arith_eval(text)
    except ArithError as e:
        raise CondArithError(e) from None
    except CondAssignError:
        raise
    except ArithAssignError as e:
        raise CondAssignError(e.message, e.fatal) from None
    finally:
        sh.arith_cmd = outer


class ShellTestEnv:
    """The shell's view for file and variable tests."""

    def __init__(self, sh: Shell, builtin: bool = False) -> None:
        self.sh = sh
        self.uid = sh.rt.identity.uid
        self.gid = sh.rt.identity.gid
        # test/[ under assoc_expand_once take a -v key as already expanded ([[ ]] expands it)
        self.key_as_is = builtin and bool(sh.state.shopts.get("assoc_expand_once"))

    def stat(self, path: str) -> Stat | None:
        fd = self._fd_stat(path)
        return fd if fd is not None else self.sh.state.fs.try_stat(path)

    def lstat(self, path: str) -> Stat | None:
        if self._fd_stat(path) is not None:
            return Stat(S_IFLNK | 0o700, uid=self.uid, gid=self.gid)  # (a link to the descriptor's file)
        return self.sh.state.fs.try_lstat(path)

    def _fd_stat(self, path: str) -> Stat | None:
        """/dev/fd/N of a descriptor the shell has open (`[ -p <(cmd) ]`): a pipe's end is a FIFO,
        /dev/null and friends a device, anything else a file; None for any other path."""
        if not path.startswith("/dev/fd/") or not path[8:].isdigit():
            return None
        stream = self.sh.state.fds.get(int(path[8:]))
        if stream is None:
            return None
        if isinstance(stream, (PipeReader, PipeWriter)):
            kind = S_IFIFO
        elif isinstance(stream, (NullStream, ZeroStream, RandomStream)):
            kind = S_IFCHR
        else:
            kind = S_IFREG
        perm = (0o400 if stream.readable else 0) | (0o200 if stream.writable else 0)
        return Stat(kind | perm, uid=self.uid, gid=self.gid)

    def option(self, name: str) -> bool:
        return bool(self.sh.state.opts.get(name, False))

    def is_nameref(self, name: str) -> bool:
        var = self.sh.state.vars.find(name)
        return var is not None and bool(var.attrs & NAMEREF)

    def var_set(self, arg: str) -> bool:
        sh = self.sh
        number = arg.strip(" \t\n\v\f\r")
        if number[1:].isdecimal() if number[:1] in "+-" else number.isdecimal():
            # bash's legal_number: `-v 2` asks whether $2 is set (`-v 0`: $0 always is)
            return 0 <= int(number) <= len(sh.state.positional)
        name, bracket, sub = arg.partition("[")
        var = sh.lookup(name)
        assoc = var is not None and bool(var.attrs & ASSOC or isinstance(var.value, AssocArray))
        if bracket:
            # not bash's valid_array_reference (`a[1"]`, `a[1]x`, `a[]`): find_variable then
            # looks for a variable of that whole name, which none has
            parts = split_array_ref(arg, quotes=not (assoc and self.key_as_is))
            if parts is None or not parts[1] or not is_name(name):
                return False
            sub = parts[1] + "]"
        if sub and not assoc:
            return self._index_set(name, var, sub[:-1])
        if var is None or var.value is None:
            return False
        v = var.value
        if not sub:
            # an array's name alone is its element 0 (bash)
            return (
                v.get("0") is not None
                if isinstance(v, AssocArray)
                else (v.get(0) is not None if isinstance(v, IndexedArray) else True)
            )
        key = sub[:-1]  # (an associative array looks `@` and `*` up as keys)
        return isinstance(v, AssocArray) and (key if self.key_as_is else sh.subscript_key(key)) in v

    def _index_set(self, name: str, var: Var | None, key: str) -> bool:
        """-v name[key] of an indexed array, a scalar or an unset name: the index is evaluated
        whatever the variable holds, as bash's get_array_value does (an arithmetic error ends the
        command line; a negative one past the start is a bad subscript, reported, false)."""
        v = var.value if var is not None else None
        if key in ("@", "*"):
            return bool(v) or isinstance(v, str)
        if not key:
            return False
        try:
            index = self.sh.eval_index(key, v if isinstance(v, IndexedArray) else None)
        except ArithError as e:  # (unnamed: `test -v` does not name itself either)
            raise ElementError.of(subscript_error(e)) from None
        except AssignError:
            self.sh.report_error(f"{name}: bad array subscript")
            return False
        if isinstance(v, IndexedArray):
            return v.get(index) is not None
        return v is not None and index == 0


def _xt(text: str) -> str:
    """An operand as `set -x` shows it in [[ ]]: an empty one as ''."""
    return text if text else "''"


def eval_cond(sh: Shell, node: A.Cond, negated: str = "") -> bool | None:
    """`negated`: "! " when the term is under a `!` (the trace shows it, as bash's does)."""
    ex = sh.expander
    if isinstance(node, A.CondAnd):
        return bool(eval_cond(sh, node.left)) and bool(eval_cond(sh, node.right))
    if isinstance(node, A.CondOr):
        return bool(eval_cond(sh, node.left)) or bool(eval_cond(sh, node.right))
    if isinstance(node, A.CondNot):
        return not eval_cond(sh, node.operand, "! " if not negated else "")
    if isinstance(node, A.CondWord):
        value = ex.string(node.word)
        if sh.state.opts["xtrace"]:
            sh.xtrace_line(f"[[ {negated}-n {_xt(value)} ]]")
        return value != ""
    if isinstance(node, A.CondUnary):
        # -v name[sub]: the subscript is expanded here, quoted, and only dequoted by the test
        arg = ex.arith_operand(node.operand) if node.op == "-v" else ex.string(node.operand)
        if sh.state.opts["xtrace"]:
            sh.xtrace_line(f"[[ {negated}{node.op} {_xt(arg)} ]]")
        return unary_test(ShellTestEnv(sh), node.op, arg)
    op = node.op
    if op in INT_OPS:
        return _int_compare(sh, op, ex.arith_operand(node.left), ex.arith_operand(node.right), negated)
    left = ex.string(node.left)
    if op in ("==", "=", "!="):
        if sh.state.opts["xtrace"]:
            pat, shown = _pattern_traced(sh, node.right)
            sh.xtrace_line(f"[[ {negated}{_xt(left)} {op} {_xt(shown)} ]]")
        else:
            pat = ex.pattern(node.right)
        matched = compile_pattern(pat, True, sh.state.shopts["nocasematch"]).matches(left, sh.locale_bytes)
        return matched if op != "!=" else not matched
    if op == "=~":
        return _regex_match(sh, left, node.right, negated)
    right = ex.string(node.right)
    if sh.state.opts["xtrace"]:
        sh.xtrace_line(f"[[ {negated}{_xt(left)} {op} {_xt(right)} ]]")
    if op == "<":
        return collate(left) < collate(right)
    if op == ">":
        return collate(left) > collate(right)
    return file_compare(ShellTestEnv(sh), op, left, right)


CondCode = Callable[[], "bool | None"]

# characters that make a literal word more than itself on the right of == (glob, extglob,
# tilde, escapes): such a pattern goes through the pattern compiler as eval_cond does
_PATTERN_CHARS = frozenset("*?[]\\()|+@!~$`'\"{}")


def cond_code(sh: Shell, node: A.Cond) -> CondCode:
    """The test of `[[ ]]` decided once from its tree (what eval_cond decides again at every run),
    for runs without `set -x` (the caller checks: a trace needs eval_cond's lines). The same
    expansions in the same order, the same answers; shapes not specialised here are eval_cond's."""
    ex = sh.expander
    if isinstance(node, (A.CondAnd, A.CondOr)):
        left, right = cond_code(sh, node.left), cond_code(sh, node.right)
        if isinstance(node, A.CondAnd):
            return lambda: bool(left()) and bool(right())
        return lambda: bool(left()) or bool(right())
    if isinstance(node, A.CondNot):
        operand = cond_code(sh, node.operand)
        return lambda: not operand()
    if isinstance(node, A.CondWord):
        string = string_fn(ex, node.word)
        return lambda: string() != ""
    if isinstance(node, A.CondUnary):
        return _unary_code(sh, node.op, node.operand)
    if isinstance(node, A.CondBinary):
        op = node.op
        if op in INT_OPS:
            return _int_code(sh, INT_OPS[op], node.left, node.right)
        if op in ("==", "=", "!="):
            if (pat := _plain_pattern(node.right)) is not None:
                return _equal_code(sh, node.left, pat, op == "!=")
            return _match_code(sh, node.left, node.right, op == "!=")
        if op == "=~":
            return _regex_code(sh, node.left, node.right)
    return partial(eval_cond, sh, node)


def _unary_code(sh: Shell, op: str, word: A.Word) -> CondCode:
    if op == "-n" or op == "-z":
        # (string_fn: what Expander.string gives, the word's shape decided once; `-n ${m[$k]+set}`
        # reads the element through elements.element_fn)
        string = string_fn(sh.expander, word)
        if op == "-n":
            return lambda: string() != ""
        return lambda: string() == ""
    if op == "-v":
        # the subscript is expanded here, quoted, and only dequoted by the test (as eval_cond)
        ex = sh.expander
        # (what arith_operand gives: the text's subscripts quoted, or the word's string)
        operand = arith_join_fn(ex, word.parts) if "[" in word.text else string_fn(ex, word)
        var_set = ShellTestEnv(sh).var_set  # (it reads the shell as it runs: one made here serves)
        return lambda: var_set(operand())
    operand_text = string_fn(sh.expander, word)
    return lambda: unary_test(ShellTestEnv(sh), op, operand_text())


def _plain_pattern(word: A.Word) -> str | None:
    """The right side of == when it is literal text that matches only itself, else None."""
    parts = word.parts
    if len(parts) != 1 or type(parts[0]) is not A.Lit:
        return None
    text = parts[0].text
    return None if _PATTERN_CHARS.intersection(text) else text


def _equal_code(sh: Shell, left: A.Word, pat: str, negate: bool) -> CondCode:
    string = string_fn(sh.expander, left)
    st = sh.state

    def equal() -> bool:
        subject = string()
        if st.shopts["nocasematch"]:
            matched = compile_pattern(pat, True, True).matches(subject, sh.locale_bytes)
        else:
            matched = subject == pat
        return matched is not negate

    return equal


def _match_code(sh: Shell, left: A.Word, right: A.Word, negate: bool) -> CondCode:
    """`subject == pattern` (and `!=`) as eval_cond matches it, the subject expanded first: a
    right side of plain text (static_word) is its pattern once, tested as glob_test tests it (a
    literal or `pre*suf`-like shape by str methods, else compiled once per setting of nocasematch
    at this place); any other is expanded each time."""
    string = string_fn(sh.expander, left)
    shopts = sh.state.shopts
    if static_word(right):
        ex = sh.expander
        at_empty = ex._at_empty  # (expanding it now must leave no trace)
        test = glob_test(
            ex.pattern(right), sh.locale_bytes
        )  # (a bool: str tests, or the pattern's fullmatch)
        ex._at_empty = at_empty

        def static_match() -> bool:
            subject = string()
            return test(subject, shopts["nocasematch"], True) is not negate

        return static_match
    pattern = sh.expander.pattern
    locale_bytes = sh.locale_bytes

    def match() -> bool:
        subject = string()
        return (
            compile_pattern(pattern(right), True, shopts["nocasematch"]).matches(subject, locale_bytes)
            is not negate
        )

    return match


def _int_code(sh: Shell, compare: Callable[[int, int], bool], left: A.Word, right: A.Word) -> CondCode:
    """`a -lt b` and the rest: both operands expanded before either is evaluated (bash's order:
    `[[ x -lt ${x:=5} ]]` sees x set). A literal decimal operand is its number from the start; an
    expanded one that arithmetic stored (INTS: `n=$((n+1))`) is read back without evaluating it."""
    ints = INTS.get
    lf, rf = _operand_code(sh, left), _operand_code(sh, right)
    rn = _decimal(right)
    if rn is not None:

        def int_compare_const() -> bool:
            x = lf()
            v = ints(x)
            if v is None:
                v = _cond_arith(sh, x)
            return compare(v, rn)  # (a bool: the operator module's comparisons of ints)

        return int_compare_const

    def int_compare() -> bool:
        x, y = lf(), rf()
        v = ints(x)
        if v is None:
            v = _cond_arith(sh, x)
        w = ints(y)
        if w is None:
            w = _cond_arith(sh, y)
        return compare(v, w)

    return int_compare


def _decimal(word: A.Word) -> int | None:
    """The number a literal operand of plain decimal digits is (as arith_eval reads it: no
    leading 0, which would make it octal), else None."""
    parts = word.parts
    if len(parts) != 1 or type(parts[0]) is not A.Lit:
        return None
    text = parts[0].text
    if text.isascii() and text.isdigit() and len(text) < 19 and (text[0] != "0" or len(text) == 1):
        return int(text)
    return None


def _operand_code(sh: Shell, word: A.Word) -> Callable[[], str]:
    parts = word.parts
    if len(parts) == 1 and type(parts[0]) is A.Lit:
        text = parts[0].text
        if text.isascii() and text.replace("_", "a").isalnum():  # (no subscript, no tilde)
            return lambda: text
    if "[" not in word.text:  # (what arith_operand does for it: nothing of it to quote)
        # string() as a closure, the parameter's plan and lookup bound (expand/stringfn.py)
        p0 = parts[0] if len(parts) == 1 else None
        if type(p0) is A.Param:
            return param_text_fn(sh.expander, p0, False, True)  # (what string() calls for $x)
        if type(p0) is A.DQ and len(p0.parts) == 1 and type(p0.parts[0]) is A.Param:
            return param_text_fn(sh.expander, p0.parts[0], True, True)  # ("$x")
        return string_fn(sh.expander, word)
    return arith_join_fn(sh.expander, word.parts)  # (what arith_operand does for it)


def _pattern_traced(sh: Shell, word: A.Word) -> tuple[str, str]:
    """The right side of == expanded once: the pattern (Expander.pattern: quoted characters that
    could match more escaped) and how `set -x` shows it (bash: every quoted character escaped,
    `"a b"` as `\\a\\ \\b`)."""
    segs: list[tuple[str, int]] = []
    sh.expander._parts(word.parts, segs, False, join_at=True)
    pattern = "".join(escape(t) if f == QUO else t for t, f in segs)
    shown = "".join("".join("\\" + c for c in t) if f == QUO else t for t, f in segs)
    return pattern, shown


def _int_compare(sh: Shell, op: str, left: str, right: str, negated: str = "") -> bool:
    if sh.state.opts["xtrace"]:
        sh.xtrace_line(f"[[ {negated}{_xt(left)} {op} {_xt(right)} ]]")
    x = _cond_arith(sh, left)
    y = _cond_arith(sh, right)
    return bool(INT_OPS[op](x, y))


def _regex_match(sh: Shell, subject: str, word: A.Word, negated: str = "") -> bool | None:
    pattern = sh.expander.regex(word)
    if sh.state.opts["xtrace"]:
        sh.xtrace_line(f"[[ {negated}{_xt(subject)} =~ {_xt(pattern)} ]]")
    c_locale = _bytewise(sh, subject, pattern)
    rx = _compile_ere(sh, pattern, sh.state.shopts["nocasematch"], c_locale)
    return None if rx is None else _rematch(sh, rx, subject, c_locale)


def _bytewise(sh: Shell, subject: str, pattern: str) -> bool:
    """Whether =~ matches bytes: the C/POSIX locale (bash's regcomp/regexec there see one character
    a byte, `.` takes one byte of é) and a text that is not ASCII (an ASCII one matches alike)."""
    return not (subject.isascii() and pattern.isascii()) and sh.locale_bytes()


def _compile_ere(sh: Shell, pattern: str, icase: bool, c_locale: bool) -> Regex | None:
    """The right side of =~ compiled (None: bash's status 2, a pattern the engine refuses);
    `c_locale`: bytewise, the pattern taken one character a byte and the C locale's classes."""
    try:
        from ..regex import compile_regex

        if c_locale:
            return compile_regex(
                as_byte_chars(pattern), "ere", icase=icase, budget=sh.rt.budget, c_locale=True
            )
        return compile_regex(pattern, "ere", icase=icase, budget=sh.rt.budget)
    except ImportError:
        return None
    except Exception:
        return None


def _rematch(sh: Shell, rx: Regex, subject: str, c_locale: bool) -> bool:
    """Search `subject` and store BASH_REMATCH (global, as bash's sh_regmatch): the whole match
    and each group's text, "" for a group that took no part; an empty array after no match.
    `c_locale`: `rx` matches bytes (_compile_ere), each group's bytes made text again."""
    m = rx.search(as_byte_chars(subject) if c_locale else subject)
    scope = sh.state.vars.globals
    if m is None:
        scope["BASH_REMATCH"] = Var(IndexedArray(), ARRAY)
        return False
    text = m.string
    groups = [text[s:e] if s >= 0 else "" for s, e in m.spans()]
    scope["BASH_REMATCH"] = Var(
        IndexedArray(list(map(from_byte_chars, groups)) if c_locale else groups), ARRAY
    )
    return True


def _regex_code(sh: Shell, left: A.Word, right: A.Word) -> CondCode:
    """`subject =~ regex` as eval_cond tests it (the subject expanded first, then the regex:
    Expander.regex keeps a literal word's ERE text), the compiled Regex held at this place while
    its text, nocasematch and the run's budget are those it was made for."""
    string = string_fn(sh.expander, left)
    regex = sh.expander.regex
    shopts = sh.state.shopts
    held: list[Any] = [None, False, None, None, False]  # ERE text, icase, budget, Regex, bytewise

    def regex_match() -> bool | None:
        subject = string()
        pattern = regex(right)
        icase = shopts["nocasematch"]
        budget = sh.rt.budget
        c_locale = _bytewise(sh, subject, pattern)
        if pattern == held[0] and icase == held[1] and budget is held[2] and c_locale == held[4]:
            rx = held[3]
        else:
            rx = _compile_ere(sh, pattern, icase, c_locale)
            if rx is None:
                return None
            held[:] = pattern, icase, budget, rx, c_locale
        return _rematch(sh, rx, subject, c_locale)

    return regex_match
