"""`test`, `[` and the `[[ ]]` evaluator, sharing the file and string tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..expand.pattern import compile_pattern
from ..syntax import ast as A
from ..vfs.base import Stat
from . import builtin

if TYPE_CHECKING:
    from ..interp.shell import Shell

UNARY = frozenset("-a -b -c -d -e -f -g -h -k -p -r -s -t -u -w -x -G -L -N -O -S -o -v -R -z -n".split())
BINARY = frozenset("= == != < > -eq -ne -lt -le -gt -ge -nt -ot -ef".split())


class TestError(Exception):
    pass


def _perm(sh: Shell, st: Stat, bit: int) -> bool:
    ident = sh.rt.identity
    if st.uid == ident.uid:
        return bool(st.mode & (bit << 6))
    if st.gid == ident.gid:
        return bool(st.mode & (bit << 3))
    return bool(st.mode & bit)


def unary_test(sh: Shell, op: str, arg: str) -> bool:
    fs = sh.state.fs
    if op == "-z":
        return arg == ""
    if op == "-n":
        return arg != ""
    if op == "-v":
        name, _, sub = arg.partition("[")
        var = sh.lookup(name)
        if var is None or var.value is None:
            return False
        if sub:
            key = sub[:-1]
            from ..interp.arrays import AssocArray, IndexedArray

            v = var.value
            if key in ("@", "*"):
                return bool(v)
            if isinstance(v, AssocArray):
                return sh.subscript_key(key) in v
            if isinstance(v, IndexedArray):
                try:
                    return v.get(sh.eval_index(key, v)) is not None
                except Exception:
                    return False
            return key == "0"
        return True
    if op == "-R":
        from ..interp.vars import NAMEREF

        var = sh.state.vars.find(arg)
        return var is not None and bool(var.attrs & NAMEREF)
    if op == "-o":
        return bool(sh.state.opts.get(arg, False))
    if op == "-t":
        return False
    if op in ("-h", "-L"):
        st = fs.try_lstat(arg) if arg else None
        return st is not None and st.is_link
    st = fs.try_stat(arg) if arg else None
    if st is None:
        return False
    if op in ("-e", "-a"):
        return True
    if op == "-f":
        return st.is_file
    if op == "-d":
        return st.is_dir
    if op == "-s":
        return st.size > 0
    if op == "-r":
        return _perm(sh, st, 4)
    if op == "-w":
        return _perm(sh, st, 2)
    if op == "-x":
        return _perm(sh, st, 1)
    if op == "-b":
        return (st.mode & 0o170000) == 0o060000
    if op == "-c":
        return st.is_chr
    if op == "-p":
        return (st.mode & 0o170000) == 0o010000
    if op == "-S":
        return (st.mode & 0o170000) == 0o140000
    if op == "-g":
        return bool(st.mode & 0o2000)
    if op == "-u":
        return bool(st.mode & 0o4000)
    if op == "-k":
        return bool(st.mode & 0o1000)
    if op == "-O":
        return st.uid == sh.rt.identity.uid
    if op == "-G":
        return st.gid == sh.rt.identity.gid
    if op == "-N":
        return st.mtime > st.atime
    return False


def file_compare(sh: Shell, op: str, a: str, b: str) -> bool:
    fs = sh.state.fs
    sa = fs.try_stat(a)
    sb = fs.try_stat(b)
    if op == "-nt":
        return sa is not None and (sb is None or sa.mtime > sb.mtime)
    if op == "-ot":
        return sb is not None and (sa is None or sa.mtime < sb.mtime)
    # -ef
    return sa is not None and sb is not None and sa.ino == sb.ino and sa.dev == sb.dev


_INT_OPS = {"-eq": lambda x, y: x == y, "-ne": lambda x, y: x != y, "-lt": lambda x, y: x < y,
            "-le": lambda x, y: x <= y, "-gt": lambda x, y: x > y, "-ge": lambda x, y: x >= y}


def _collate(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


# ------------------------------------------------------------ [[ ]]


def eval_cond(sh: Shell, node: A.Cond) -> bool | None:
    t = type(node)
    ex = sh.expander
    if t is A.CondAnd:
        return bool(eval_cond(sh, node.left)) and bool(eval_cond(sh, node.right))  # type: ignore[union-attr]
    if t is A.CondOr:
        return bool(eval_cond(sh, node.left)) or bool(eval_cond(sh, node.right))  # type: ignore[union-attr]
    if t is A.CondNot:
        return not eval_cond(sh, node.operand)  # type: ignore[union-attr]
    if t is A.CondWord:
        return ex.string(node.word) != ""  # type: ignore[union-attr]
    if t is A.CondUnary:
        u: A.CondUnary = node  # type: ignore[assignment]
        arg = ex.string(u.operand)
        if sh.state.opts["xtrace"]:
            sh.xtrace_line(f"[[ {u.op} {arg} ]]")
        return unary_test(sh, u.op, arg)
    b: A.CondBinary = node  # type: ignore[assignment]
    op = b.op
    left = ex.string(b.left)
    if op in ("==", "=", "!="):
        pat = ex.pattern(b.right)
        if sh.state.opts["xtrace"]:
            sh.xtrace_line(f"[[ {left} {op} {pat} ]]")
        matched = compile_pattern(pat, True, sh.state.shopts["nocasematch"]).fullmatch(left)
        return matched if op != "!=" else not matched
    if op == "=~":
        return _regex_match(sh, left, b.right)
    right = ex.string(b.right)
    if sh.state.opts["xtrace"]:
        sh.xtrace_line(f"[[ {left} {op} {right} ]]")
    if op == "<":
        return _collate(left) < _collate(right)
    if op == ">":
        return _collate(left) > _collate(right)
    if op in _INT_OPS:
        x = sh.arith_eval(left) if left.strip() else 0
        y = sh.arith_eval(right) if right.strip() else 0
        return bool(_INT_OPS[op](x, y))
    return file_compare(sh, op, left, right)


def _regex_match(sh: Shell, subject: str, word: A.Word) -> bool | None:
    from ..interp.arrays import IndexedArray
    from ..interp.vars import ARRAY, Var

    pattern = sh.expander.regex(word)
    if sh.state.opts["xtrace"]:
        sh.xtrace_line(f"[[ {subject} =~ {pattern} ]]")
    try:
        from ..regex import compile_regex

        rx = compile_regex(pattern, "ere", icase=sh.state.shopts["nocasematch"])
    except ImportError:
        rx = None
    except Exception:
        return None
    if rx is None:
        return None
    m = rx.search(subject)
    scope = sh.state.vars.globals
    if m is None:
        scope["BASH_REMATCH"] = Var(IndexedArray(), ARRAY)
        return False
    groups = [m.group(0) or ""] + [g if g is not None else "" for g in m.groups()]
    scope["BASH_REMATCH"] = Var(IndexedArray(groups), ARRAY)
    return True


# ------------------------------------------------------------ test / [


class _TestParser:
    """POSIX test: the argument-count rules for 0-4 arguments, then a
    recursive parser with ! -a -o ( )."""

    def __init__(self, sh: Shell, args: list[str]) -> None:
        self.sh = sh
        self.args = args
        self.i = 0

    def integer(self, s: str) -> int:
        text = s.strip(" \t\n")
        body = text[1:] if text[:1] in "+-" else text
        if not body.isdigit() or not body.isascii():
            raise TestError(f"{s}: integer expression expected")
        return int(text, 10)

    def binary(self, a: str, op: str, b: str) -> bool:
        if op in ("=", "=="):
            return a == b
        if op == "!=":
            return a != b
        if op == "<":
            return _collate(a) < _collate(b)
        if op == ">":
            return _collate(a) > _collate(b)
        if op in _INT_OPS:
            return bool(_INT_OPS[op](self.integer(a), self.integer(b)))
        return file_compare(self.sh, op, a, b)

    def evaluate(self) -> bool:
        args = self.args
        n = len(args)
        if n == 0:
            return False
        if n == 1:
            return args[0] != ""
        if n == 2:
            if args[0] == "!":
                return args[1] == ""
            if args[0] in UNARY:
                return unary_test(self.sh, args[0], args[1])
            raise TestError(f"{args[0]}: unary operator expected")
        if n == 3:
            if args[1] in BINARY:
                return self.binary(args[0], args[1], args[2])
            if args[0] == "!":
                self.args = args[1:]
                return not self.evaluate()
            if args[0] == "(" and args[2] == ")":
                return args[1] != ""
            if args[1] in ("-a", "-o"):
                pass
            else:
                raise TestError(f"{args[1]}: binary operator expected")
        if n == 4:
            if args[0] == "!":
                self.args = args[1:]
                return not self.evaluate()
            if args[0] == "(" and args[3] == ")":
                self.args = args[1:3]
                return self.evaluate()
        result = self.expr_or()
        if self.i < len(self.args):
            raise TestError("too many arguments")
        return result

    def peek(self) -> str | None:
        return self.args[self.i] if self.i < len(self.args) else None

    def take(self) -> str:
        if self.i >= len(self.args):
            raise TestError("argument expected")
        a = self.args[self.i]
        self.i += 1
        return a

    def expr_or(self) -> bool:
        left = self.expr_and()
        while self.peek() == "-o":
            self.i += 1
            right = self.expr_and()
            left = left or right
        return left

    def expr_and(self) -> bool:
        left = self.expr_not()
        while self.peek() == "-a":
            self.i += 1
            right = self.expr_not()
            left = left and right
        return left

    def expr_not(self) -> bool:
        if self.peek() == "!":
            self.i += 1
            return not self.expr_not()
        return self.primary()

    def primary(self) -> bool:
        a = self.take()
        if a == "(":
            value = self.expr_or()
            if self.peek() != ")":
                raise TestError("`)' expected")
            self.i += 1
            return value
        nxt = self.peek()
        if nxt is not None and nxt in BINARY:
            self.i += 1
            b = self.take()
            return self.binary(a, nxt, b)
        if a in UNARY and nxt is not None:
            self.i += 1
            return unary_test(self.sh, a, nxt)
        return a != ""


def run_test(sh: Shell, name: str, args: list[str]) -> int:
    try:
        return 0 if _TestParser(sh, args).evaluate() else 1
    except TestError as e:
        sh.builtin_error(name, str(e))
        return 2
    except (ArithError, ExpansionError) as e:
        sh.builtin_error(name, getattr(e, "message", str(e)))
        return 2


@builtin("test")
def bi_test(sh: Shell, argv: list[str]) -> int:
    return run_test(sh, "test", argv[1:])


@builtin("[")
def bi_bracket(sh: Shell, argv: list[str]) -> int:
    if argv[-1] != "]":
        sh.builtin_error("[", "missing `]'")
        return 2
    return run_test(sh, "[", argv[1:-1])
