"""Pathname expansion over the virtual filesystem.

The walk follows bash's own (lib/glob): a pattern is split at its last slash, the directory part
is expanded first and the last component is matched in each directory it gives. Under globstar a
`**` component lists a whole subtree, and the flags below decide, as in bash, whether the
directory itself is listed and whether leading `**/` runs collapse. Results keep bash's
duplicates (`a/**/**` style patterns) and are sorted once at the end, so they are the words bash
gives, not a tidied set.
"""

from __future__ import annotations

from collections.abc import Callable

from ..leanclass import Declared
from ..vfs.errors import FsError
from ..vfs.facade import FsView
from .pattern import as_bytes, compile_pattern, has_glob, patscan, unescape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass


@dataclass(slots=True)
class GlobOptions(metaclass=Declared):
    dotglob: bool = False
    nocaseglob: bool = False
    extglob: bool = False
    globstar: bool = False
    globskipdots: bool = True
    ignore: tuple[str, ...] = ()
    bytewise: bool = False  # the locale is C/POSIX: a non-ASCII name is matched a byte a character


# bash's internal glob flags (lib/glob/glob.h), the ones the shell's expansion uses
_ALLDIRS = 1  # `**`: every name below the directory, recursively, whatever the pattern
_NULLDIR = 2  # no directory precedes the pattern (names are relative, without "./")
_ADDCURDIR = 4  # list the directory itself too ("" under _NULLDIR)
_RECURSE = 8  # expanding the directory part of a longer pattern

_EXT_OPS = "?*+@!"


def _is_star2(text: str) -> bool:
    return text == "**"


def _extglob_start(p: str, i: int = 0) -> bool:
    return p[i : i + 1] in tuple(_EXT_OPS) and p[i + 1 : i + 2] == "("


def _last_slash(pattern: str, extglob: bool) -> int:
    """Where the directory part ends: the last slash, not counting one inside an extglob group
    that runs to the end of the pattern (bash's glob_dirscan)."""
    last = pattern.rfind("/")
    if last < 0 or not extglob:
        return last
    d = -1
    i = 0
    n = len(pattern)
    while i < n:
        if _extglob_start(pattern, i):
            end = patscan(pattern, i + 2)
            if end < 0 or end >= n:  # bash's scan stops at the last character either way
                break
            i = end
            continue
        if pattern[i] == "/":
            d = i
        i += 1
    return d


# what ends a pattern's literal start: the glob characters, a backslash (the next character is
# quoted: the prefix stops before it rather than unescaping) and the extglob operators (each
# stops it whether or not a `(` follows: a shorter prefix only filters less)
_NOT_LITERAL = frozenset("*?[\\+@!(")


def _literal_prefix(pat: str) -> str:
    """The text every name `pat` matches starts with, exactly as written ("" when it starts
    with a glob character)."""
    for i, c in enumerate(pat):
        if c in _NOT_LITERAL:
            return pat[:i]
    return pat


def _dot_or_dotdot(name: str) -> bool:
    return name in (".", "..")


class _Globber:
    __slots__ = ("fs", "opts", "charge")

    def __init__(self, fs: FsView, opts: GlobOptions, charge: Callable[[int], None] | None) -> None:
        self.fs = fs
        self.opts = opts
        self.charge = charge

    # ------------------------------------------------------------ names to skip

    def skipname(self, pat: str, name: str) -> bool:
        """Whether `name` is left out before matching: dot files unless the pattern starts with a
        dot (or dotglob), `.` and `..` under globskipdots (bash's skipname)."""
        if _extglob_start(pat):
            return self._extglob_skipname(pat, name)
        explicit = pat[:1] == "." or pat[:2] == "\\."
        if self.opts.globskipdots and _dot_or_dotdot(name):
            return True
        if self.opts.dotglob:
            return not explicit and _dot_or_dotdot(name)
        return name[:1] == "." and not explicit

    def _extglob_skipname(self, pat: str, name: str) -> bool:
        # skipped only when every alternative of the leading group would skip it
        wild = pat[0] in "*?"
        end = patscan(pat, 2)
        if end < 0:
            return False
        n = len(pat)
        if end == n and "|" not in pat[2:]:
            return self.skipname(pat[2 : end - 1], name)
        i = 2
        r = True
        while True:
            nxt = patscan(pat, i, "|")
            if nxt < 0:
                break
            r = self.skipname(pat[i : nxt - 1], name)
            if not r:
                return False
            i = nxt
            if i == end:
                break
        if i == n:
            return r
        if wild and end < n:
            return self.skipname(pat[end:], name)
        return True

    # ------------------------------------------------------------ file tests

    def testdir(self, path: str, lstat: bool = False) -> int:
        """0 for a directory, -2 for a symlink (when `lstat`), -1 otherwise (bash's glob_testdir)."""
        if not path:  # as stat("") fails: ENOENT
            return -1
        st = self.fs.try_lstat(path) if lstat else self.fs.try_stat(path)
        if st is None:
            return -1
        if st.is_link:
            return -2
        return 0 if st.is_dir else -1

    def _listdir(self, path: str) -> list[str] | None:
        if not path:
            return None
        try:
            names = self.fs.listdir(path)
        except FsError:
            return None
        if self.charge is not None:
            self.charge(len(names) + 1)
        return names

    # ------------------------------------------------------------ one directory

    def vector(self, pat: str, dirname: str, flags: int) -> list[str] | None:
        """The names in `dirname` that `pat` matches (paths under _ALLDIRS); None when the
        directory cannot be read (bash's glob_vector)."""
        if pat == "":
            return None if self.testdir(dirname) < 0 else [""]
        if not has_glob(pat, self.opts.extglob):
            if self.testdir(dirname) < 0:
                return None
            name = unescape(pat)
            return [name] if self.fs.try_lstat(_makepath(dirname, name, 0)) is not None else []
        if flags & _ALLDIRS:
            return self._subtree(pat, dirname, flags)
        names = self._listdir(dirname)
        if names is None:
            return None
        opts = self.opts
        # the names left once dot files are skipped and, when the pattern starts with literal
        # text (compared as written: not under nocaseglob), those that start with it; the
        # pattern is compiled only when one is left (`let seen[$w]++` globs a new `seen[...]`
        # at each step, and its compiling was most of the step's cost)
        prefix = "" if opts.nocaseglob else _literal_prefix(pat)
        candidates = [
            name
            for name in (".", "..", *names)  # as readdir gives them
            if name.startswith(prefix) and not self.skipname(pat, name)
        ]
        if not candidates:
            return []
        compiled = compile_pattern(pat, opts.extglob, opts.nocaseglob, path=True)
        dotglob = opts.dotglob
        if opts.bytewise:
            wide = compiled.bytewise()
            return [
                name
                for name in candidates
                if (compiled if name.isascii() else wide).match_name(as_bytes(name), dotglob)
            ]
        return [name for name in candidates if compiled.match_name(name, dotglob)]

    def _subtree(self, pat: str, dirname: str, flags: int) -> list[str] | None:
        """`**`: every name below `dirname` (symlinks listed, not followed), the directory itself
        first under _ADDCURDIR. Iterative, so a deep tree cannot exhaust the Python stack."""
        top = self._listdir(dirname)
        if top is None:
            return None
        out: list[str] = []
        if flags & _ADDCURDIR:
            out.append("" if flags & _NULLDIR else dirname)
        nulldir = bool(flags & _NULLDIR)
        work: list[tuple[str, list[str]]] = [(dirname, top)]
        while work:
            base, names = work.pop()
            for name in names:
                if self.skipname(pat, name):
                    continue
                sub = _makepath(base, name, _NULLDIR if nulldir else 0)
                out.append(sub)
                if self.testdir(sub, lstat=True) == 0:
                    below = self._listdir(sub)
                    if below:
                        work.append((sub, below))
        return out

    # ------------------------------------------------------------ a whole pattern

    def expand(self, pathname: str, flags: int) -> list[str] | None:
        """Every path `pathname` matches, unsorted; None when nothing can match (bash's
        glob_filename)."""
        cut = _last_slash(pathname, self.opts.extglob)
        dirname, filename = (pathname[: cut + 1], pathname[cut + 1 :]) if cut >= 0 else ("", pathname)
        if dirname and has_glob(dirname, self.opts.extglob):
            return self._expand_in_dirs(dirname, filename, flags)
        if filename == "":
            plain = unescape(dirname)
            if dirname != plain and not flags & _RECURSE and self.testdir(plain) < 0:
                return None
            return [plain]
        return self._in_one_dir(unescape(dirname), filename, flags)

    def _in_one_dir(self, dirname: str, filename: str, flags: int) -> list[str] | None:
        dflags = flags
        if not dirname:
            dflags |= _NULLDIR
        if self.opts.globstar and _is_star2(filename):
            dflags |= _ALLDIRS | _ADDCURDIR
            if not dirname and not flags & _ALLDIRS:
                dflags &= ~_ADDCURDIR
        found = self.vector(filename, dirname or ".", dflags)
        if found is None:
            return None
        return _prefix("" if dflags & _ALLDIRS else dirname, found)

    def _expand_in_dirs(self, dirname: str, filename: str, flags: int) -> list[str] | None:
        d = dirname
        dflags = flags
        all_star2 = last_star2 = False
        globstar = self.opts.globstar
        if globstar and d.startswith("**/"):
            # a leading run of `**/` is one `**/`
            start = i = 0
            while d.startswith("**/", i):
                start = i
                i += 3
                while i < len(d) and d[i] == "/":
                    i += 1
                if i == len(d):
                    all_star2 = True
                    break
            d = d[start:]
            dflags |= _ALLDIRS | _ADDCURDIR
        length = len(d)
        if globstar and not all_star2:
            # a trailing run of `/**/` is one `/**/`
            dl = prev = length
            while dl >= 4 and d[dl - 4 : dl] == "/**/":
                prev = dl
                dl -= 3
            last_star2 = dl != length
            length = prev
        if last_star2 and length > 4 and _is_star2(filename):
            length -= 3  # `dir/**/**`: the last `**` alone scans the subtree once
        d = d[:length]
        if d.endswith("/"):
            d = d[:-1]
        directories = self.expand(d, dflags | _RECURSE)
        if not directories:
            return None
        if all_star2 and _is_star2(filename):
            return self._in_one_dir("", filename, flags)
        return self._each_dir(directories, filename, flags, all_star2)

    def _each_dir(self, directories: list[str], filename: str, flags: int, all_star2: bool) -> list[str]:
        star2 = self.opts.globstar and _is_star2(filename)
        result: list[str] = []
        for dname in directories:
            dflags = flags & ~(_ALLDIRS | _ADDCURDIR)
            if star2:
                dflags |= _ALLDIRS | _ADDCURDIR
            scan = dname
            if dname == "" and filename:
                dflags |= _NULLDIR
                scan = "."
            found: list[str] | None
            if (
                all_star2
                and not dflags & _NULLDIR
                and self.testdir(scan, lstat=True) == -2
                and self.testdir(scan) == 0
            ):
                # a symlink to a directory that `**` reached: named (with `**/`), not entered
                found = None if filename else [""]
            else:
                found = self.vector(filename, scan, dflags)
            if found is None:
                continue
            if star2:
                if dflags & _NULLDIR and not flags & _NULLDIR and found and found[0] == "":
                    # `**` from the current directory listed everything already: stop here
                    result.extend(x for x in found if x != "")
                    break
                result.extend(found)
            else:
                result.extend(_prefix(dname, found))
        return result


def _makepath(base: str, name: str, flags: int) -> str:
    """bash's sh_makepath: `base/name`, without a leading "./" on the name; a base of "." is
    left out under _NULLDIR."""
    if flags & _NULLDIR and base in (".", "./"):
        base = ""
    elif not base:
        base = "."
    if name.startswith("./"):
        name = name[2:]
    if not base:
        return name
    return base + name if base.endswith("/") else base + "/" + name


def _prefix(dirname: str, names: list[str]) -> list[str]:
    """Each name under `dirname` ("" names the directory itself, with its slash)."""
    if not dirname:
        return names
    if not dirname.endswith("/"):
        dirname += "/"
    return [dirname + n for n in names]


def glob(
    fs: FsView,
    pattern: str,
    opts: GlobOptions,
    charge: Callable[[int], None] | None = None,
) -> list[str]:
    """All paths matching `pattern` (an escaped pattern string), sorted."""
    results = _Globber(fs, opts, charge).expand(pattern, 0) or []
    if opts.ignore:
        ignore = [compile_pattern(g, opts.extglob, False, path=True) for g in opts.ignore]
        if opts.bytewise:
            results = [p for p in results if not any(g.bytewise().fullmatch(as_bytes(p)) for g in ignore)]
        else:
            results = [p for p in results if not any(g.fullmatch(p) for g in ignore)]
        results = [p for p in results if p.rsplit("/", 1)[-1] not in (".", "..")]
    return sorted(results, key=_sort_key)


def _sort_key(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")
