"""What each command does with files and sub-commands, for the static check (check.py).

A model turns one command's arguments (`None` where a word is known only at run time) into `Facts`: the file actions it performs on which paths, the commands and shell texts it runs
(`xargs`, `find -exec`, `bash -c`, awk `system()`, sed `e`, ...), URLs it fetches, symbolic links it
creates, and the reasons (`opaque`) it cannot be judged without running. Options are parsed with
each command's own `CommandSpec` (the same GNU parser the command uses, from its record), so the
check and the command agree on which argument is a file.

Which model a command gets is declared by its record (`effects=Effects.X`, commands/record.py); `MODELS`
here holds the file-command shapes, wrappers.py the rest and `model()`, which reads the record.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..commands.encode.od import file_operands as od_file_operands
from ..commands.options import CommandSpec, HelpRequested, OptionValueError, Parsed, UsageError, parse_args
from ..commands.record import Effects
from ..commands.registry import BUILTIN_TABLE

Arg = str | None  # None: known only at run time
# a word standing for paths found below a directory (find's `{}`, a glob's matches): FOUND + dir.
# The NUL byte keeps it from ever equalling a real argument.
FOUND = "\0found:"
# an operand known only at run time, where the command's options cannot swallow it
DYN = "\0dyn"
NOFOLLOW = frozenset({"delete", "rename"})


@dataclass(frozen=True)
class Effect:
    """A file action on one of `paths` (alternatives: which one is taken is not known statically).
    `recursive`: on everything below the path too."""

    action: str
    paths: tuple[Arg, ...]
    recursive: bool = False
    follow: bool = True  # a symbolic link as the last component is followed (not by rm, mv, ln, mkdir)
    entries: bool = False  # a listing that also stats each entry, following links (ls, tree)


@dataclass
class Facts:
    effects: list[Effect] = field(default_factory=list)
    commands: list[list[Arg]] = field(default_factory=list)  # argv run through the executor
    scripts: list[Arg] = field(default_factory=list)  # shell text run by a child shell
    opaque: list[str] = field(default_factory=list)
    symlinks: list[tuple[Arg, Arg]] = field(default_factory=list)  # (link, target)
    copies: list[tuple[tuple[Arg, ...], Arg]] = field(default_factory=list)  # (sources, destination)
    urls: list[tuple[str, Arg]] = field(default_factory=list)  # (method, url)
    cwd_change: bool = False  # the shell's own directory changes (cd)
    sub_cwd_unknown: bool = False  # sub-commands run in another directory (env -C, find -execdir)
    dynamic_names: bool = False  # variable names known only at run time (may run code via subscripts)


class Call:
    """One command being modelled; the model functions fill `facts`."""

    def __init__(
        self, name: str, args: Sequence[Arg], spec: CommandSpec | None = None, family: str | None = None
    ) -> None:
        self.name = name
        self.spec = spec  # the option spec of the command's record
        self.family = family or name  # the implementation the name spells (zcat: gzip)
        self.args = list(args)
        self.facts = Facts()
        self.dynamic = any(a is None for a in args)

    def fx(
        self, action: str, *paths: Arg, recursive: bool = False, follow: bool = True, entries: bool = False
    ) -> None:
        live = tuple(None if p is not None and DYN in p else p for p in paths if p != "-")
        if live:
            self.facts.effects.append(
                Effect(action, live, recursive, follow and action not in NOFOLLOW, entries)
            )

    def each(self, action: str, paths: Sequence[Arg], recursive: bool = False) -> None:
        for p in paths:
            self.fx(action, p, recursive=recursive)

    def opaque(self, why: str) -> None:
        self.facts.opaque.append(why)

    def parse(self, alike: bool = False) -> tuple[Parsed, list[str]] | None:
        """Options and operands by the command's own parser; None on a usage error (the command
        stops before touching anything) or when arguments are dynamic (the caller decides).
        `alike`: every operand plays the same role, so a run-time word (which may expand to
        any number of words) does not shift the others' meaning."""
        spec = self.spec
        if spec is None:
            return None
        if self.dynamic and (not alike or any(o.arg != "none" for o in spec.opts)):
            return None  # a run-time word might be an option taking the next word as its value
        args = [DYN if a is None else a for a in self.args]
        if self.name in ("head", "tail"):  # the obsolete `head -5` form, which they rewrite first
            args = [f"-n{a[1:]}" if re.fullmatch(r"-[0-9]+", a) else a for a in args]
        try:
            # a run-time word may also be an option or expand to several words: its place
            # holds DYN, which the effects turn into an unknown path
            return parse_args(spec, args)
        except (UsageError, OptionValueError, HelpRequested):
            return None


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def values(opts: Parsed, key: str) -> list[str]:
    """An option's values as given (a repeatable option keeps them all)."""
    v = opts.get(key)
    if v is None or v is False:
        return []
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


# ------------------------------------------------------------ the shape every parsed model shares

Model = Callable[[Call], None]
Body = Callable[[Call, Parsed, list[str]], None]


def _unknown(c: Call, actions: Sequence[str]) -> None:
    """Arguments known only at run time: every action the command may do, on an unknown path."""
    for a in actions:
        c.fx(a, None)


def _parsed(
    *unknown: str, alike: bool | Callable[[Call], bool] = False, also: Callable[[Facts], None] | None = None
) -> Callable[[Body], Model]:
    """A model whose body reads the options and operands of the command's own parser. When they
    cannot be known (run-time words, or arguments parsed otherwise than the command does), the
    model reports every action in `unknown` on an unknown path, and `also` adds what else may
    happen (links, copies). `alike`: see Call.parse (a function: decided by the call)."""

    def wrap(body: Body) -> Model:
        def model(c: Call) -> None:
            p = c.parse(alike=alike(c) if callable(alike) else alike)
            if p is None:
                _unknown(c, unknown)
                if also is not None:
                    also(c.facts)
                return
            body(c, p[0], p[1])

        model.__doc__ = body.__doc__
        return model

    return wrap


def _may_copy(facts: Facts) -> None:
    facts.copies.append(((None,), None))


def _may_link(facts: Facts) -> None:
    facts.symlinks.append((None, None))


# ------------------------------------------------------------ generic shapes


@_parsed("read", alike=lambda c: c.name not in ("join", "comm", "cmp", "sdiff", "diff3"))
def _read_operands(c: Call, opts: Parsed, operands: list[str]) -> None:
    c.each("read", operands)


def _no_files(c: Call) -> None:
    return None


@_parsed("stat", alike=True)
def _stat_operands(c: Call, opts: Parsed, operands: list[str]) -> None:
    # stat and readlink look at a link itself (stat -L follows it); realpath and df follow
    follow = c.name in ("realpath", "df") or bool(opts.get("dereference"))
    for path in operands:
        c.fx("stat", path, follow=follow)


@_parsed("list", alike=True)
def _list_tree(c: Call, opts: Parsed, operands: list[str]) -> None:
    c.each("list", operands or ["."], recursive=True)


def _with_outputs(*keys: str, reads: bool = True) -> Model:
    """Operands read; the options named in `keys` are files written (sort -o, shuf -o, iconv -o)."""

    @_parsed("read", "create")
    def model(c: Call, opts: Parsed, operands: list[str]) -> None:
        if reads:
            c.each("read", operands)
        for k in keys:
            c.each("create", values(opts, k))
        for f in values(opts, "files0_from"):
            c.fx("read", f)
            c.fx("read", None)  # the files it names

    return model


@_parsed("read", "create")
def _in_out(c: Call, opts: Parsed, operands: list[str]) -> None:
    """uniq / xxd: [INPUT [OUTPUT]]."""
    if operands:
        c.fx("read", operands[0])
    if len(operands) > 1:
        c.fx("create", operands[1])


def _writes(
    action: str, first_is_not_path: bool = False, recursive_key: str = "", follow: bool = True
) -> Model:
    @_parsed(action)
    def model(c: Call, opts: Parsed, operands: list[str]) -> None:
        if first_is_not_path and not opts.get("reference"):
            operands = operands[1:]
        if opts.get("reference"):
            c.fx("stat", str(opts["reference"]))
        for path in operands:
            c.fx(action, path, recursive=bool(recursive_key and opts.get(recursive_key)), follow=follow)

    return model


# ------------------------------------------------------------ file commands


def _cp_like(
    c: Call, opts: Parsed, operands: list[str], action_src: str, action_dst: str, recursive_key: str | None
) -> None:
    target = opts.get("target_directory")
    if target is None and opts.get("no_target_directory") is None and len(operands) < 2:
        return  # missing operand: a usage error at run time
    if target is None:
        *sources, dest = operands
    else:
        sources, dest = operands, str(target)
    recursive = bool(recursive_key and (opts.get(recursive_key) or opts.get("archive")))
    c.fx("stat", dest)  # is DEST a directory (through a link)?
    for s in sources:
        if s.rstrip("/") == dest.rstrip("/"):
            continue  # "are the same file": refused before anything is opened
        c.fx(action_src, s, recursive=recursive)
        base = s.rstrip("/").rsplit("/", 1)[-1]
        # DEST is a directory (the file goes inside) or the new name: not known without the files
        into = FOUND + dest if "\0" in s else dest.rstrip("/") + "/" + base
        if target is not None or len(sources) > 1:
            c.fx(action_dst, into, recursive=recursive)
        else:
            c.fx(action_dst, dest, into, recursive=recursive)
    # symbolic links survive a move or a copy that does not dereference: they may land at DEST
    if (
        action_src == "rename"
        or (recursive and not opts.get("dereference"))
        or opts.get("d")
        or opts.get("no_dereference")
    ):
        c.facts.copies.append((tuple(sources), dest))


@_parsed("read", "create", also=_may_copy)
def m_cp(c: Call, opts: Parsed, operands: list[str]) -> None:
    if opts.get("symbolic_link"):
        _ln(c, opts, operands)
        return
    # cp -l makes hard links: the Vfs decides `link` (write-like) on each source, as ln
    _cp_like(c, opts, operands, "link" if opts.get("link") else "read", "create", "recursive")


@_parsed("rename", "rename", also=_may_copy)
def m_mv(c: Call, opts: Parsed, operands: list[str]) -> None:
    _cp_like(c, opts, operands, "rename", "rename", None)


@_parsed("read", "create", also=_may_copy)
def m_install(c: Call, opts: Parsed, operands: list[str]) -> None:
    if opts.get("directory"):
        c.each("create", operands)
        return
    _cp_like(c, opts, operands, "read", "create", None)


def _ln(c: Call, opts: Parsed, operands: list[str]) -> None:
    target_dir = opts.get("target_directory")
    if target_dir is None and len(operands) == 1:
        pairs = [(operands[0], operands[0].rstrip("/").rsplit("/", 1)[-1])]
    elif target_dir is not None:
        pairs = [(t, str(target_dir).rstrip("/") + "/" + t.rstrip("/").rsplit("/", 1)[-1]) for t in operands]
    elif len(operands) == 2:
        pairs = [(operands[0], operands[1])]
    else:
        pairs = [
            (t, operands[-1].rstrip("/") + "/" + t.rstrip("/").rsplit("/", 1)[-1]) for t in operands[:-1]
        ]
    symbolic = bool(opts.get("symbolic") or opts.get("symbolic_link"))
    if len(operands) > 1 or target_dir is not None:
        c.fx("stat", str(target_dir) if target_dir is not None else operands[-1])  # a directory to link into?
    for target, link in pairs:
        c.fx("symlink" if symbolic else "create", link, follow=False)
        if symbolic:
            c.facts.symlinks.append((link, target))
        else:
            c.fx("link", target)  # a hard link needs the right to write its source (Vfs.link)


m_ln = _parsed("create", "symlink", "link", also=_may_link)(_ln)


@_parsed("delete", alike=True)
def m_rm(c: Call, opts: Parsed, operands: list[str]) -> None:
    c.each("delete", operands, recursive=bool(opts.get("recursive")))


@_parsed("delete")
def m_rmdir(c: Call, opts: Parsed, operands: list[str]) -> None:
    for d in operands:
        c.fx("delete", d)
        if opts.get("parents"):
            parts = d.rstrip("/").split("/")
            for i in range(len(parts) - 1, 0, -1):
                if parts[:i] != [""]:
                    c.fx("delete", "/".join(parts[:i]))


@_parsed("create")
def m_mknod(c: Call, opts: Parsed, operands: list[str]) -> None:
    if operands:
        c.fx("create", operands[0], follow=False)


@_parsed("create")
def m_touch(c: Call, opts: Parsed, operands: list[str]) -> None:
    if opts.get("reference"):
        c.fx("stat", str(opts["reference"]))
    c.each("create", operands)


@_parsed("create")
def m_mktemp(c: Call, opts: Parsed, operands: list[str]) -> None:
    if opts.get("dry_run"):
        return
    template = operands[0] if operands else "tmp.XXXXXXXXXX"
    tmpdir = opts.get("tmpdir")
    if "/" in template and not tmpdir and not opts.get("t"):
        c.fx("create", template)
        return
    # with no -p, mktemp uses $TMPDIR, which only the run knows (default /tmp)
    base = str(tmpdir) if isinstance(tmpdir, str) and tmpdir else None
    c.fx("create", base.rstrip("/") + "/" + template if base else None)


@_parsed("read", "create")
def m_split(c: Call, opts: Parsed, operands: list[str]) -> None:
    if operands:
        c.fx("read", operands[0])
    prefix = operands[1] if len(operands) > 1 else "x"
    c.fx("create", prefix + "aa")
    if opts.get("filter"):
        c.facts.scripts.append(str(opts["filter"]))


@_parsed("read", "create")
def m_csplit(c: Call, opts: Parsed, operands: list[str]) -> None:
    if operands:
        c.fx("read", operands[0])
    c.fx("create", str(opts.get("prefix") or "xx") + "00")


@_parsed("create", alike=True)
def m_tee(c: Call, opts: Parsed, operands: list[str]) -> None:
    c.each("create", operands)


_SUFFIX = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz"}


@_parsed("read", "create", "delete")
def m_compress(c: Call, opts: Parsed, operands: list[str]) -> None:
    """gzip/bzip2/xz and their un-/cat forms: read each file, write the (de)compressed one next to
    it and remove the original, unless -c/-k/-t."""
    family = c.family
    suffix = str(opts.get("suffix") or _SUFFIX.get(family, ".gz"))
    to_stdout = opts.get("stdout") or c.name.endswith("cat") or opts.get("test")
    decompress = (
        opts.get("decompress")
        or c.name.startswith("gun")
        or c.name.startswith("un")
        or c.name.startswith("bun")
    )
    recursive = bool(opts.get("recursive"))
    for f in operands:
        c.fx("read", f, recursive=recursive)
        if to_stdout:
            continue
        out = (f[: -len(suffix)] if f.endswith(suffix) else None) if decompress else f + suffix
        c.fx("create", f if recursive else out, recursive=recursive)
        if not opts.get("keep"):
            c.fx("delete", f, recursive=recursive)


def m_hashsum(c: Call) -> None:
    args = [a for a in c.args]
    if any(a is None for a in args):
        _unknown(c, ("read",))
        return
    files = [a for a in args if a is not None and (not a.startswith("-") or a == "-")]
    check = any(
        a is not None
        and (a in ("-c", "--check") or (a.startswith("-") and not a.startswith("--") and "c" in a))
        for a in args
    )
    c.each("read", files)
    if check:
        c.fx("read", None)  # the files named inside the checksum list


@_parsed("read", "create")
def m_patch(c: Call, opts: Parsed, operands: list[str]) -> None:
    if opts.get("input"):
        c.fx("read", str(opts["input"]))
    if opts.get("dry_run"):
        c.each("read", operands[:1])
        return
    if operands:
        c.fx("create", operands[0])
    else:
        c.fx("create", None)  # the files the patch names
    if opts.get("output"):
        c.fx("create", str(opts["output"]))


def m_tar(c: Call) -> None:
    args = c.args
    if c.dynamic or not args:
        _unknown(c, ("read", "create", "list"))
        return
    first, rest = args[0] or "", [a or "" for a in args[1:]]
    words: list[str] = []
    if first and not first.startswith("-"):
        words = ["-" + ch for ch in first]  # old style: `tar xzf a.tar`
    else:
        rest = [first, *rest]
    mode = ""
    archive: str | None = None
    directory: str | None = None
    operands: list[str] = []
    tokens = words + rest
    values_for = set("fCTX")
    i = 0
    pending: list[str] = []
    while i < len(tokens):
        t = tokens[i]
        i += 1
        if t.startswith("--"):
            name, eq, value = t[2:].partition("=")
            if name in ("file", "directory", "files-from", "exclude-from") and not eq and i < len(tokens):
                value = tokens[i]
                i += 1
            if name == "file":
                archive = value
            elif name == "directory":
                directory = value
            elif name in ("files-from", "exclude-from"):
                c.fx("read", value)
                c.fx("read", None)
            elif name in ("create", "extract", "get", "list", "append", "update", "diff", "compare"):
                mode = {
                    "get": "x",
                    "extract": "x",
                    "create": "c",
                    "list": "t",
                    "append": "r",
                    "update": "u",
                }.get(name, "d")
            continue
        if t.startswith("-") and len(t) > 1:
            for j, ch in enumerate(t[1:]):
                if ch in "cxtruAd":
                    mode = mode or ch
                if ch in values_for:
                    value = t[j + 2 :] if t[j + 2 :] else (tokens[i] if i < len(tokens) else "")
                    if not t[j + 2 :]:
                        i += 1
                    pending.append(ch + value)
                    break
            continue
        operands.append(t)
    for item in pending:
        ch, value = item[0], item[1:]
        if ch == "f":
            archive = value
        elif ch == "C":
            directory = value
        else:
            c.fx("read", value)
            c.fx("read", None)
    base = directory.rstrip("/") + "/" if directory else ""
    if mode in ("c", "r", "u", "A"):
        if archive:
            c.fx("create", archive)
        c.each("read", [p if p.startswith("/") else base + p for p in operands], recursive=True)
    elif mode in ("x",):
        if archive:
            c.fx("read", archive)
        c.fx("create", directory or ".", recursive=True)
        c.facts.copies.append(((None,), directory or "."))
    else:
        if archive:
            c.fx("read", archive)
        if mode == "d":
            c.fx("read", directory or ".", recursive=True)


@_parsed("read", "create")
def m_zip(c: Call, opts: Parsed, operands: list[str]) -> None:
    if operands:
        c.fx("create", operands[0])
        c.each("read", operands[1:], recursive=bool(opts.get("recurse_paths")))


@_parsed("read", "create")
def m_unzip(c: Call, opts: Parsed, operands: list[str]) -> None:
    if operands:
        c.fx("read", operands[0])
    if not any(opts.get(k) for k in ("l", "v", "t", "p", "c", "z")):
        dest = str(opts.get("d") or ".")
        c.fx("create", dest, recursive=True)
        c.facts.copies.append(((None,), dest))


@_parsed("read")
def m_date(c: Call, opts: Parsed, operands: list[str]) -> None:
    if opts.get("reference"):
        c.fx("stat", str(opts["reference"]))
    if opts.get("file"):
        c.fx("read", str(opts["file"]))


@_parsed("list", alike=True)
def m_ls(c: Call, opts: Parsed, operands: list[str]) -> None:
    listing = not opts.get("directory")
    for path in operands or ["."]:
        c.fx("list" if listing else "stat", path, recursive=bool(opts.get("recursive")), entries=listing)


@_parsed("read")
def m_diff(c: Call, opts: Parsed, operands: list[str]) -> None:
    c.each("read", operands, recursive=bool(opts.get("recursive")))
    for k in ("from_file", "to_file", "exclude_from"):
        c.each("read", values(opts, k))
    c.each("create", values(opts, "output"))
    if opts.get("paginate"):
        c.facts.commands.append(["/usr/bin/pr", "-h", None])  # (-l: each pair's output through pr)


@_parsed("read")
def m_od(c: Call, opts: Parsed, operands: list[str]) -> None:
    c.each("read", od_file_operands(opts, operands))


@_parsed("read")
def m_file(c: Call, opts: Parsed, operands: list[str]) -> None:
    c.each("read", operands)
    if opts.get("files_from"):
        c.fx("read", str(opts["files_from"]))
        c.fx("read", None)


def m_tree(c: Call) -> None:
    if c.dynamic:
        _unknown(c, ("list",))
        return
    p = c.parse()  # tree's own declaration (commands/fileinfo/tree.py)
    if p is None or "help" in p[0] or "version" in p[0]:
        return  # tree stops before reading anything
    opts, roots = p
    if opts.get("outfile") is not None:
        c.fx("create", opts["outfile"])
    for path in roots or ["."]:
        c.fx("list", path, recursive=True, entries=True)


def _opaque(c: Call) -> None:
    c.opaque(f"{c.name}: what it does with files depends on a program only the run reads")


# ------------------------------------------------------------ the shapes of Effects


# the file commands' models; wrappers.py adds the wrappers' and languages' (and reads the records)
MODELS: dict[Effects, Model] = {
    Effects.NONE: _no_files,
    Effects.READS: _read_operands,
    Effects.STAT: _stat_operands,
    Effects.LIST_TREE: _list_tree,
    Effects.OUTPUTS: _with_outputs("output"),
    Effects.IN_OUT: _in_out,
    Effects.OPAQUE: _opaque,
    Effects.HASHSUM: m_hashsum,
    Effects.CP: m_cp,
    Effects.MV: m_mv,
    Effects.INSTALL: m_install,
    Effects.LN: m_ln,
    Effects.RM: m_rm,
    Effects.SHRED: _writes("write"),
    Effects.RMDIR: m_rmdir,
    Effects.MKDIR: _writes("create", follow=False),
    Effects.MKNOD: m_mknod,
    Effects.TOUCH: m_touch,
    Effects.CHMOD: _writes("chmod", first_is_not_path=True, recursive_key="recursive"),
    Effects.MKTEMP: m_mktemp,
    Effects.SPLIT: m_split,
    Effects.CSPLIT: m_csplit,
    Effects.TEE: m_tee,
    Effects.COMPRESS: m_compress,
    Effects.DECOMPRESS_CAT: m_compress,
    Effects.PATCH: m_patch,
    Effects.TAR: m_tar,
    Effects.ZIP: m_zip,
    Effects.UNZIP: m_unzip,
    Effects.DATE: m_date,
    Effects.LS: m_ls,
    Effects.DIFF: m_diff,
    Effects.FILE: m_file,
    Effects.TREE: m_tree,
    Effects.OD: m_od,
}


def writes_files(name: str) -> bool:
    """A command whose purpose is changing files: listed by `help` as needing remediation mode."""
    effects = BUILTIN_TABLE.effects(name)
    return effects is not None and effects.writes
