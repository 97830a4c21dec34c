"""Pathname expansion over the virtual filesystem."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..vfs.errors import FsError
from ..vfs.facade import FsView
from .pattern import compile_pattern, has_glob, unescape


@dataclass(slots=True)
class GlobOptions:
    dotglob: bool = False
    nocaseglob: bool = False
    extglob: bool = False
    globstar: bool = False
    globskipdots: bool = True
    ignore: tuple[str, ...] = ()


def _split_pattern(pattern: str) -> list[str]:
    """Split on unescaped slashes (a slash inside brackets still splits)."""
    parts: list[str] = []
    cur: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            cur.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "/":
            parts.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def glob(
    fs: FsView,
    pattern: str,
    opts: GlobOptions,
    charge: Callable[[int], None] | None = None,
) -> list[str]:
    """All paths matching `pattern` (an escaped pattern string), sorted."""
    comps = _split_pattern(pattern)
    absolute = pattern.startswith("/")
    if absolute:
        comps = comps[1:]
        bases = ["/"]
    else:
        bases = [""]
    trailing_slash = False
    if comps and comps[-1] == "" and len(comps) > 1:
        trailing_slash = True
        comps = comps[:-1]
    for idx, comp in enumerate(comps):
        last = idx == len(comps) - 1
        new: list[str] = []
        if comp == "**" and opts.globstar:
            for base in bases:
                if last and base and not trailing_slash:
                    new.append(base if base.endswith("/") else base + "/")
                new.extend(_globstar(fs, base, opts, charge, dirs_only=not last or trailing_slash))
            bases = new
            continue
        if not has_glob(comp, opts.extglob):
            name = unescape(comp)
            for base in bases:
                path = _join(base, name)
                if last:
                    if fs.try_lstat(path or ".") is not None or name == "":
                        new.append(path)
                else:
                    new.append(path)
            bases = new
            continue
        pat = compile_pattern(comp, opts.extglob, opts.nocaseglob, path=True)
        explicit_dot = unescape(comp[:1]) == "." or comp.startswith("\\.")
        for base in bases:
            try:
                names = fs.listdir(base or ".")
            except FsError:
                continue
            if charge is not None:
                charge(len(names) + 1)
            candidates = list(names)
            if explicit_dot and not opts.globskipdots:
                candidates += [".", ".."]
            for name in candidates:
                if name.startswith(".") and not explicit_dot:
                    if not opts.dotglob or name in (".", ".."):
                        continue
                if not pat.fullmatch(name):
                    continue
                path = _join(base, name)
                if not last:
                    st = fs.try_stat(path)
                    if st is None or not st.is_dir:
                        continue
                new.append(path)
        bases = new
        if not bases:
            return []
    results = bases
    if trailing_slash:
        results = [p + "/" for p in results if fs.is_dir(p)]
    if opts.ignore:
        ignore = [compile_pattern(g, opts.extglob, False, path=True) for g in opts.ignore]
        results = [p for p in results if not any(g.fullmatch(p) for g in ignore)]
        results = [p for p in results if p.rsplit("/", 1)[-1] not in (".", "..")]
    return sorted(results, key=_sort_key)


def _sort_key(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _join(base: str, name: str) -> str:
    if not base:
        return name
    if base.endswith("/"):
        return base + name
    return base + "/" + name


def _globstar(
    fs: FsView, base: str, opts: GlobOptions, charge: Callable[[int], None] | None, dirs_only: bool
) -> list[str]:
    """`**`: the base itself and everything below it (directories only when
    more components follow)."""
    out: list[str] = []
    if dirs_only:
        out.append(base)
    stack = [base]
    while stack:
        d = stack.pop()
        try:
            names = sorted(fs.listdir(d or "."))
        except FsError:
            continue
        if charge is not None:
            charge(len(names) + 1)
        subdirs = []
        for name in names:
            if name.startswith(".") and not opts.dotglob:
                continue
            path = _join(d, name)
            st = fs.try_lstat(path)
            is_dir = st is not None and st.is_dir
            if is_dir:
                subdirs.append(path)
                out.append(path)
            elif not dirs_only:
                out.append(path)
        stack.extend(reversed(subdirs))
    if not dirs_only and base == "":
        pass
    return out
