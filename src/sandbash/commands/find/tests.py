"""find's tests and options: each entry of TABLE parses its arguments and
returns the predicate."""

from __future__ import annotations

import math
from collections.abc import Callable

from ...expand.pattern import compile_pattern
from ...limits import Budget
from ...vfs.base import Stat, seconds_to_ns
from ...vfs.errors import FsError
from ..fsutil import (
    GROUPS,
    USERS,
    ModeError,
    adjust_mode,
    compile_mode,
    errmsg,
    find_type_char,
    lookup_group,
    lookup_user,
    quote,
)
from .entry import Entry
from .parse import FindError, Handler, Parser, Pred

TABLE: dict[str, Handler] = {}


def handler(*names: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for n in names:
            TABLE[n] = fn
        return fn

    return register


def _true(_: Entry) -> bool:
    return True


# ------------------------------------------------------------ options


def _depth_arg(p: Parser, name: str) -> int:
    text = p.arg(name)
    if not text.isdigit():
        raise FindError(f"Expected a positive decimal integer argument to {name}, but got {quote(text)}")
    return int(text)


@handler("-maxdepth")
def _maxdepth(p: Parser, name: str) -> Pred:
    p.state.maxdepth = _depth_arg(p, name)
    return _true


@handler("-mindepth")
def _mindepth(p: Parser, name: str) -> Pred:
    p.state.mindepth = _depth_arg(p, name)
    return _true


@handler("-depth", "-d")
def _depth(p: Parser, name: str) -> Pred:
    p.state.depth_first = True
    p.explicit_depth = True
    return _true


@handler("-follow")
def _follow(p: Parser, name: str) -> Pred:
    p.state.follow = "L"
    return _true


@handler("-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race")
def _noop_option(p: Parser, name: str) -> Pred:
    return _true


@handler("-daystart")
def _daystart(p: Parser, name: str) -> Pred:
    # positional: later time tests count from today's midnight
    p.state.day_origin = p.state.day_start
    return _true


@handler("-warn", "-nowarn")
def _warn(p: Parser, name: str) -> Pred:
    p.warn = name == "-warn"
    return _true


_REGEX_TYPES = (
    "findutils-default",
    "ed",
    "emacs",
    "gnu-awk",
    "grep",
    "posix-awk",
    "awk",
    "posix-basic",
    "posix-egrep",
    "egrep",
    "posix-extended",
    "posix-minimal-basic",
    "sed",
)


@handler("-regextype")
def _regextype(p: Parser, name: str) -> Pred:
    value = p.arg(name)
    if value not in _REGEX_TYPES:
        valid = ", ".join(quote(t) for t in _REGEX_TYPES)
        raise FindError(f"Unknown regular expression type {quote(value)}; valid types are {valid}.")
    p.regextype = value
    return _true


# ------------------------------------------------------------ constants


@handler("-true")
def _p_true(p: Parser, name: str) -> Pred:
    return _true


@handler("-false")
def _p_false(p: Parser, name: str) -> Pred:
    return lambda e: False


# ------------------------------------------------------------ names


@handler("-name", "-iname")
def _name(p: Parser, name: str) -> Pred:
    pattern = p.arg(name)
    if "/" in pattern and pattern != "/" and p.warn:
        p.ctx.error(
            f"warning: {quote(name)} matches against basenames only, but the given pattern contains a "
            f"directory separator ({quote('/')}), thus the expression will evaluate to false all the time.  "
            f"Did you mean {quote('-wholename')}?"
        )
    compiled = compile_pattern(pattern, nocase=name == "-iname")
    return lambda e: compiled.fullmatch(e.name)


@handler("-path", "-wholename", "-ipath", "-iwholename")
def _path(p: Parser, name: str) -> Pred:
    compiled = compile_pattern(p.arg(name), nocase=name in ("-ipath", "-iwholename"))
    return lambda e: compiled.fullmatch(e.path)


@handler("-lname", "-ilname")
def _lname(p: Parser, name: str) -> Pred:
    compiled = compile_pattern(p.arg(name), nocase=name == "-ilname")
    ctx = p.ctx

    def test(e: Entry) -> bool:
        if not e.lst.is_link:
            return False
        try:
            return compiled.fullmatch(ctx.fs.readlink(e.path))
        except FsError:
            return False

    return test


def emacs_to_ere(pattern: str) -> str:
    """Rewrite an Emacs-syntax regex (find's default) as a POSIX ERE: `\\(`,
    `\\)`, `\\|` are the operators there; bare `( ) | { }` are literals."""
    # (here, not at the top: the regex package loads RE2, ~8 M instructions a find -name spares)
    from ...regex.brackets import bracket_end

    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "[":
            end = bracket_end(pattern, i, open_class_fails=False)
            j = end if end >= 0 else n
            out.append(pattern[i : j + 1])
            i = j + 1
            continue
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt in "()|":
                out.append(nxt)
            elif nxt in "{}":
                out.append("\\" + nxt)
            else:
                out.append("\\" + nxt)
            i += 2
            continue
        if c in "(){}|":
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def compile_find_regex(
    pattern: str, regextype: str, icase: bool, budget: Budget | None = None
) -> Callable[[str], bool]:
    """The -regex adapter: find's regex types onto the shared regex layer."""
    from ...regex import RegexError, compile_regex

    flavor = "bre"
    source = pattern
    if regextype in ("findutils-default", "emacs"):
        flavor, source = "ere", emacs_to_ere(pattern)
    elif regextype in ("posix-extended", "posix-egrep", "egrep"):
        flavor = "ere"
    elif regextype in ("awk", "posix-awk", "gnu-awk"):
        flavor = "ere"
    try:
        rx = compile_regex(source, flavor, icase=icase, budget=budget)
    except RegexError as e:
        raise FindError(f"failed to compile regular expression '{pattern}': {e.message}")
    return lambda subject: rx.fullmatch(subject) is not None


@handler("-regex", "-iregex")
def _regex(p: Parser, name: str) -> Pred:
    match = compile_find_regex(p.arg(name), p.regextype, name == "-iregex", p.ctx.budget)
    return lambda e: match(e.path)


# ------------------------------------------------------------ types

_TYPES = "bcdpflsD"


def _type_set(text: str, name: str) -> set[str]:
    """-type's letters, read one character at a time as findutils reads them: the first bad
    character is the one named (`-type zz`: `z`; `,f`: `,`)."""
    if not text:
        raise FindError(f"Arguments to {name} should contain at least one letter")
    kinds: set[str] = set()
    i = 0
    while i < len(text):
        c = text[i]
        if c not in _TYPES:
            raise FindError(f"Unknown argument to {name}: {c}")
        if c in kinds:
            raise FindError(f"Duplicate file type '{c}' in the argument list to {name}.")
        kinds.add(c)
        i += 1
        if i < len(text) and text[i] != ",":
            raise FindError(f"Must separate multiple arguments to {name} using: ','")
        i += 1
        if i == len(text):
            raise FindError(
                f"Last file type in list argument to {name} is missing, i.e., list is ending on: ','"
            )
    return kinds


@handler("-type", "-xtype")
def _type(p: Parser, name: str) -> Pred:
    text = p.arg(name)
    kinds = _type_set(text, name)
    ctx = p.ctx
    if name == "-type":
        return lambda e: find_type_char(e.stat(ctx).mode) in kinds

    def xtype(e: Entry) -> bool:
        # the other policy: with -P the link's target, with -L the link itself
        if e.follow:
            st = e.lst
        else:
            st = e.target_stat(ctx) or e.lst
        return find_type_char(st.mode) in kinds

    return xtype


# ------------------------------------------------------------ numbers


def _numeric(p: Parser, name: str, allow_float: bool = False) -> tuple[str, float]:
    text = p.arg(name)
    sign = ""
    body = text
    if body[:1] in ("+", "-"):
        sign, body = body[0], body[1:]
    try:
        if not body or not (body.replace(".", "", 1).isdigit() if allow_float else body.isdigit()):
            raise ValueError
        value = float(body) if allow_float else int(body)
    except ValueError:
        raise FindError(f"invalid argument `{text}' to `{name}'")
    return sign, value


def _compare(sign: str, value: float, actual: float) -> bool:
    if sign == "+":
        return actual > value
    if sign == "-":
        return actual < value
    return actual == value


@handler("-size")
def _size(p: Parser, name: str) -> Pred:
    text = p.arg(name)
    units = {"b": 512, "c": 1, "w": 2, "k": 1024, "M": 1 << 20, "G": 1 << 30}
    body = text
    sign = ""
    if body[:1] in ("+", "-"):
        sign, body = body[0], body[1:]
    unit = 512
    if body and not body[-1].isdigit():
        if body[-1] not in units:
            raise FindError(f"invalid -size type `{body[-1]}'")
        unit = units[body[-1]]
        body = body[:-1]
    if not body.isdigit():
        raise FindError(f"invalid argument `{text}' to `{name}'")
    n = int(body)
    ctx = p.ctx
    return lambda e: _compare(sign, n, math.ceil(e.stat(ctx).size / unit))


@handler("-empty")
def _empty(p: Parser, name: str) -> Pred:
    ctx = p.ctx

    def test(e: Entry) -> bool:
        st = e.stat(ctx)
        if st.is_dir:
            try:
                return not ctx.fs.listdir(e.path)
            except FsError:
                return False
        return st.is_file and st.size == 0

    return test


def _time_of(st: Stat, which: str) -> float:
    return {"a": st.atime, "c": st.ctime, "m": st.mtime}[which]


def _ns_of(st: Stat, which: str) -> int:
    # -newer and -newerXY compare whole nanoseconds: two files touched within one
    # microsecond still differ, as they do on the kernel's timestamps
    return {"a": st.atime_ns, "c": st.ctime_ns, "m": st.mtime_ns}[which]


@handler("-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin")
def _age(p: Parser, name: str) -> Pred:
    """GNU's time windows: `-mtime N` is (N, N+1] days ago measured from a day
    before now (or from the next midnight with -daystart); `-mmin N` is
    (N-1, N] minutes ago; `+N` older, `-N` newer."""
    sign, value = _numeric(p, name, allow_float=True)
    which = name[1]
    days = name.endswith("time")
    unit = 86400.0 if days else 60.0
    origin = p.state.day_origin + (0.0 if days else 86400.0)
    if sign == "-" and days:
        origin += 86400 - 1
    ref = origin - value * unit
    ctx = p.ctx

    def test(e: Entry) -> bool:
        t = _time_of(e.stat(ctx), which)
        if sign == "+":
            return t < ref
        if sign == "-":
            return t > ref
        return 0 <= t - ref < unit

    return test


@handler("-used")
def _used(p: Parser, name: str) -> Pred:
    text = p.tokens[p.pos] if p.pos < len(p.tokens) else None
    if text is None:
        raise FindError(f"missing argument to `{name}'")
    try:
        sign, value = _numeric(p, name)
    except FindError:
        raise FindError(f"Invalid argument {text} to -used")
    ctx = p.ctx
    return lambda e: _compare(sign, value, math.floor((e.stat(ctx).atime - e.stat(ctx).ctime) / 86400))


@handler("-newer", "-anewer", "-cnewer")
def _newer(p: Parser, name: str) -> Pred:
    path = p.arg(name)
    fs = p.ctx.fs
    try:
        ref = fs.stat(path)
    except FsError as e:
        raise FindError(f"{quote(path)}: {errmsg(e)}")
    which = {"-newer": "m", "-anewer": "a", "-cnewer": "c"}[name]
    ref_time = ref.mtime_ns
    ctx = p.ctx
    return lambda e: _ns_of(e.stat(ctx), which) > ref_time


@handler(*[f"-newer{x}{y}" for x in "aBcm" for y in "aBcmt"])
def _newer_xy(p: Parser, name: str) -> Pred:
    x, y = name[6], name[7]
    if "B" in (x, y):
        raise FindError(
            "This system does not provide a way to find the birth time of a file.\n"
            f"find: invalid predicate `{name}'"
        )
    value = p.arg(name)
    if y == "t":
        from ..date.parse import parse_datetime  # (date's parser: for -newerXt only)

        when = parse_datetime(value, seconds_to_ns(p.state.now), p.state.tz)
        if when is None:
            raise FindError(f"I cannot figure out how to interpret {quote(value)} as a date or time")
        ref_time = when
    else:
        try:
            ref = p.ctx.fs.stat(value)
        except FsError as e:
            raise FindError(f"{quote(value)}: {errmsg(e)}")
        ref_time = _ns_of(ref, y)
    ctx = p.ctx
    return lambda e: _ns_of(e.stat(ctx), x) > ref_time


# ------------------------------------------------------------ permissions and owners


@handler("-perm")
def _perm(p: Parser, name: str) -> Pred:
    text = p.arg(name)
    kind = ""
    body = text
    if body[:1] in ("-", "/", "+") and len(body) > 1:
        kind, body = body[0], body[1:]
        if kind == "+" and body.isdigit():
            raise FindError(f"invalid mode {quote(text)}")
        if kind == "+":
            kind = ""
            body = text
    try:
        changes = compile_mode(body)
    except ModeError:
        raise FindError(f"invalid mode {quote(text)}")
    if kind == "/" and adjust_mode(0, False, 0, changes) == 0 and adjust_mode(0, True, 0, changes) == 0:
        p.ctx.error(
            f"warning: you have specified a mode pattern {text} (which is equivalent to /000). The meaning "
            "of -perm /000 has now been changed to be consistent with -perm -000; that is, while it used "
            "to match no files, it now matches all files."
        )
    ctx = p.ctx

    def test(e: Entry) -> bool:
        st = e.stat(ctx)
        want = adjust_mode(0, st.is_dir, 0, changes)
        have = st.perm
        if kind == "-":
            return (have & want) == want
        if kind == "/":
            return want == 0 or bool(have & want)
        return have == want

    return test


def _access(p: Parser, bit: int) -> Pred:
    ctx = p.ctx
    vfs = ctx.fs.vfs

    def test(e: Entry) -> bool:
        # access(2) follows symbolic links: a dangling one is not accessible
        st = e.target_stat(ctx)
        if st is None:
            return False
        if vfs.uid == 0:
            return bit != 1 or bool(st.mode & 0o111) or st.is_dir
        if st.uid == vfs.uid:
            return bool(st.mode & (bit << 6))
        if st.gid == vfs.gid:
            return bool(st.mode & (bit << 3))
        return bool(st.mode & bit)

    return test


@handler("-readable")
def _readable(p: Parser, name: str) -> Pred:
    return _access(p, 4)


@handler("-writable")
def _writable(p: Parser, name: str) -> Pred:
    return _access(p, 2)


@handler("-executable")
def _executable(p: Parser, name: str) -> Pred:
    return _access(p, 1)


@handler("-user", "-group")
def _owner(p: Parser, name: str) -> Pred:
    text = p.arg(name)
    if name == "-user":
        ident = lookup_user(text)
        if ident is None:
            raise FindError(f"{quote(text)} is not the name of a known user")
    else:
        ident = lookup_group(text)
        if ident is None:
            raise FindError(f"{quote(text)} is not the name of an existing group")
    ctx = p.ctx
    if name == "-user":
        return lambda e: e.stat(ctx).uid == ident
    return lambda e: e.stat(ctx).gid == ident


@handler("-uid", "-gid", "-links", "-inum")
def _number(p: Parser, name: str) -> Pred:
    sign, value = _numeric(p, name)
    ctx = p.ctx
    field = {"-uid": "uid", "-gid": "gid", "-links": "nlink", "-inum": "ino"}[name]
    return lambda e: _compare(sign, value, getattr(e.stat(ctx), field))


@handler("-nouser", "-nogroup")
def _nouser(p: Parser, name: str) -> Pred:
    ctx = p.ctx
    if name == "-nouser":
        return lambda e: e.stat(ctx).uid not in USERS
    return lambda e: e.stat(ctx).gid not in GROUPS


@handler("-samefile")
def _samefile(p: Parser, name: str) -> Pred:
    path = p.arg(name)
    fs = p.ctx.fs
    try:
        ref = fs.stat(path) if p.state.follow == "L" else fs.lstat(path)
    except FsError as e:
        raise FindError(f"{quote(path)}: {errmsg(e)}")
    ctx = p.ctx
    return lambda e: e.stat(ctx).ino == ref.ino and e.stat(ctx).dev == ref.dev


@handler("-fstype")
def _fstype(p: Parser, name: str) -> Pred:
    wanted = p.arg(name)
    return lambda e: wanted == "tmpfs"


@handler("-context")
def _context(p: Parser, name: str) -> Pred:
    p.arg(name)
    return lambda e: False
