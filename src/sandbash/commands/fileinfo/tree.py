"""tree (2.1.0): an indented listing of directories, as text, JSON (-J) or XML (-X)."""

from __future__ import annotations

import functools
import json

from ...expand.pattern import Pattern, compile_pattern
from ...vfs.base import Stat
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..fsutil import filevercmp, group_name, join, ls_time, mode_string, to_datetime, tz_from_env, user_name
from ..options import CommandSpec, Opt, OptionValueError, UsageError, parse_args
from ..record import Effects, declare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

USAGE = (
    "usage: tree [-acdfghilnpqrstuvxACDFJQNSUX] [-L level [-R]] [-H  baseHREF]\n"
    "\t[-T title] [-o filename] [-P pattern] [-I pattern] [--gitignore]\n"
    "\t[--gitfile[=]file] [--matchdirs] [--metafirst] [--ignore-case]\n"
    "\t[--nolinks] [--hintro[=]file] [--houtro[=]file] [--inodes] [--device]\n"
    "\t[--sort[=]<name>] [--dirsfirst] [--filesfirst] [--filelimit #] [--si]\n"
    "\t[--du] [--prune] [--charset[=]X] [--timefmt[=]format] [--fromfile]\n"
    "\t[--fflinks] [--info] [--infofile[=]file] [--noreport] [--version]\n"
    "\t[--help] [--] [directory ...]\n"
)

_FLAGS = {
    "a": "all",
    "d": "dirs_only",
    "l": "follow",
    "f": "full_path",
    "x": "xdev",
    "i": "no_indent",
    "q": "q",
    "N": "literal",
    "Q": "quote",
    "p": "perms",
    "u": "user",
    "g": "group",
    "s": "size",
    "h": "human",
    "D": "date",
    "F": "classify",
    "v": "version_sort",
    "t": "mtime_sort",
    "c": "ctime_sort",
    "U": "unsorted",
    "r": "reverse",
    "n": "nocolor",
    "C": "color",
    "A": "ansi",
    "S": "cp437",
    "J": "json",
    "X": "xml",
    "R": "R",
}
_LONG_FLAGS = {
    "noreport": "noreport",
    "prune": "prune",
    "matchdirs": "matchdirs",
    "ignore-case": "icase",
    "dirsfirst": "dirsfirst",
    "filesfirst": "filesfirst",
    "inodes": "inodes",
    "device": "device",
    "si": "si",
    "du": "du",
    "nolinks": "nolinks",
    "gitignore": "gitignore",
    "metafirst": "metafirst",
    "info": "info",
    "fflinks": "fflinks",
    "fromfile": "fromfile",
    "fromtabfile": "fromfile",
}
_SORTS = ("name", "version", "size", "mtime", "ctime", "none")


class _BadSort(OptionValueError):
    """tree 2.1.0 prints the sort names on stdout, after the message on stderr."""


def _level(text: str) -> int:
    if not text.lstrip("-").isdigit() or int(text) < 1:
        raise OptionValueError("Invalid level, must be greater than 0.")
    return int(text)


def _sort(text: str) -> str:
    if text not in _SORTS:
        raise _BadSort(f"Sort type '{text}' not valid, should be one of: ")
    return text


def _filelimit(text: str) -> int:
    if not text.isdigit():
        raise OptionValueError(f"Invalid filelimit value '{text}'.")
    return int(text)


# tree's own loop, declared: exact long names, `--sort=X` or `--sort X`, and letters whose value
# is always the next word (`-LP 2 '*.py'`), never attached
SPEC = CommandSpec(
    name="tree",
    add_help=False,
    long_prefixes=False,
    opts=(
        *(Opt(letter, dest="flags", multi=True, const=flag) for letter, flag in _FLAGS.items()),
        *(Opt(None, name, dest="flags", multi=True, const=flag) for name, flag in _LONG_FLAGS.items()),
        Opt("L", dest="level", arg="required", attached=False, type=_level),
        Opt("P", dest="include", arg="required", attached=False, multi=True),
        Opt("I", dest="exclude", arg="required", attached=False, multi=True),
        Opt("o", dest="outfile", arg="required", attached=False),
        Opt("H", dest="html_base", arg="required", attached=False),
        Opt("T", dest="title", arg="required", attached=False),
        Opt(None, "sort", arg="required", type=_sort),
        Opt(None, "charset", arg="required"),
        Opt(None, "timefmt", arg="required"),
        Opt(None, "filelimit", arg="required", type=_filelimit),
        *(Opt(None, name, arg="required") for name in ("gitfile", "hintro", "houtro", "infofile")),
        Opt(None, "help", stop=True),
        Opt(None, "version", stop=True),
    ),
)


@dataclass
class Node:
    name: str
    path: str
    lst: Stat
    st: Stat | None
    target: str | None = None
    is_dir: bool = False
    children: list[Node] | None = None
    error: str | None = None


@dataclass
class Options:
    flags: set[str] = field(default_factory=set)
    level: int | None = None
    include: list[Pattern] = field(default_factory=list)
    exclude: list[Pattern] = field(default_factory=list)
    sort: str = "name"
    charset: str | None = None
    timefmt: str | None = None
    filelimit: int | None = None
    outfile: str | None = None


def _bad(ctx: Ctx, message: str) -> CommandExit:
    ctx.stderr.write(f"tree: {message}\n".encode("utf-8", "surrogateescape"))
    return CommandExit(1)


def _patterns(text: str, icase: bool) -> list[Pattern]:
    return [compile_pattern(p, nocase=icase) for p in text.split("|") if p]


def _parse(ctx: Ctx) -> tuple[Options, list[str]]:
    try:
        parsed, roots = parse_args(SPEC, ctx.args)
    except UsageError as e:
        if e.kind == "needs_value":
            raise _bad(
                ctx, f"Missing argument to {'-' if len(e.name) == 1 else '--'}{e.name} option."
            ) from None
        bad = f"-`{e.name}'" if e.kind == "unknown" and not e.word.startswith("--") else f"`{e.word}'"
        ctx.stderr.write(
            f"tree: Invalid argument {bad}.\n".encode("utf-8", "surrogateescape") + USAGE.encode()
        )
        raise CommandExit(1) from None
    except _BadSort as e:
        ctx.stderr.write(f"tree: {e.message}".encode("utf-8", "surrogateescape"))
        ctx.out(",".join(_SORTS[:-1]) + "\n")
        raise CommandExit(1) from None
    except OptionValueError as e:
        raise _bad(ctx, e.message) from None
    if "help" in parsed:
        ctx.out(USAGE)
        raise CommandExit(0)
    if "version" in parsed:
        ctx.out(
            "tree v2.1.0 \u00a9 1996 - 2022 by Steve Baker, Thomas Moore, Francesc Rocher, Florian Sesser, "
            "Kyosuke Tokoro\n"
        )
        raise CommandExit(0)
    o = Options(
        flags=set(parsed.get("flags", [])),
        level=parsed.get("level"),
        sort=parsed.get("sort", "name"),
        charset=parsed.get("charset"),
        timefmt=parsed.get("timefmt"),
        filelimit=parsed.get("filelimit"),
        outfile=parsed.get("outfile"),
    )
    if o.timefmt is not None:
        o.flags.add("date")
    icase = "icase" in o.flags
    for p in parsed.get("include", []):
        o.include += _patterns(p, icase)
    for p in parsed.get("exclude", []):
        o.exclude += _patterns(p, icase)
    for key, sort in (
        ("version_sort", "version"),
        ("mtime_sort", "mtime"),
        ("ctime_sort", "ctime"),
        ("unsorted", "none"),
    ):
        if key in o.flags:
            o.sort = sort
    return o, roots or ["."]


class Tree:
    def __init__(self, ctx: Ctx, o: Options) -> None:
        self.ctx = ctx
        self.o = o
        self.fs = ctx.fs
        self.tz = tz_from_env(ctx.env)
        self.now = ctx.fs.vfs.clock()
        self.dirs = 0
        self.files = 0
        env = ctx.env
        locale = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
        utf8 = "utf-8" in locale.lower() or "utf8" in locale.lower()
        if o.charset is not None:
            utf8 = o.charset.lower().replace("_", "-") in ("utf-8", "utf8")
        if utf8:
            self.branch, self.last, self.pipe, self.blank = "├── ", "└── ", "│\u00a0\u00a0 ", "    "
        else:
            self.branch, self.last, self.pipe, self.blank = "|-- ", "`-- ", "|   ", "    "

    def has(self, flag: str) -> bool:
        return flag in self.o.flags

    # --- reading
    def make_node(self, name: str, path: str) -> Node | None:
        fs = self.fs
        try:
            lst = fs.lstat(path)
        except FsError:
            return None
        node = Node(name, path, lst, lst)
        if lst.is_link:
            try:
                node.target = fs.readlink(path)
            except FsError:
                node.target = ""
            node.st = fs.try_stat(path)
        node.is_dir = node.st is not None and node.st.is_dir
        return node

    def keep(self, node: Node) -> bool:
        o = self.o
        name = node.name
        if name.startswith(".") and not self.has("all"):
            return False
        real_dir = node.lst.is_dir or (self.has("follow") and node.is_dir)
        if self.has("dirs_only") and not node.is_dir:
            return False
        if any(p.fullmatch(name) for p in o.exclude):
            return False
        # -P filters files; directories always show (--matchdirs opens them up)
        return not (o.include and not real_dir and not any(p.fullmatch(name) for p in o.include))

    def read(self, node: Node, depth: int, visited: set[int], matched: bool = False) -> None:
        """Fill node.children (or node.error) down to the depth limit."""
        ctx = self.ctx
        ctx.checkpoint()
        if self.o.level is not None and depth >= self.o.level:
            return
        if node.lst.is_link and not self.has("follow"):
            return
        assert node.st is not None
        if node.st.ino in visited:
            node.error = "recursive, not followed"
            return
        visited.add(node.st.ino)
        try:
            names = self.fs.listdir(node.path)
        except FsError:
            node.error = "error opening dir"
            return
        if self.o.filelimit is not None and len(names) > self.o.filelimit:
            node.error = f"{len(names)} entries exceeds filelimit, not opening dir"
            return
        kids: list[Node] = []
        for name in names:
            child = self.make_node(name, join(node.path, name))
            if child is None:
                continue
            if matched:
                # the children of a directory matched by --matchdirs all show
                if (name.startswith(".") and not self.has("all")) or any(
                    p.fullmatch(name) for p in self.o.exclude
                ):
                    continue
                if self.has("dirs_only") and not child.is_dir:
                    continue
            elif not self.keep(child):
                continue
            child_matched = (
                self.has("matchdirs")
                and bool(self.o.include)
                and any(p.fullmatch(name) for p in self.o.include)
            )
            if child.is_dir:
                self.read(child, depth + 1, visited, child_matched)
            kids.append(child)
        if self.has("prune"):
            kids = [
                k
                for k in kids
                if not (k.is_dir and k.children is not None and not k.children and k.error is None)
                and not (k.is_dir and k.lst.is_link and not self.has("follow") and bool(self.o.include))
            ]
        node.children = self.sort(kids)

    def sort(self, kids: list[Node]) -> list[Node]:
        o = self.o

        def key_name(n: Node) -> bytes:
            return n.name.encode("utf-8", "surrogateescape")

        if o.sort == "none":
            out = list(kids)
        elif o.sort == "version":

            def vcmp(a: Node, b: Node) -> int:
                return filevercmp(key_name(a), key_name(b))

            out = sorted(kids, key=functools.cmp_to_key(vcmp))
        else:
            out = sorted(kids, key=key_name)
            if o.sort == "size":
                out.sort(key=lambda n: -(n.lst.size))
            elif o.sort == "mtime":
                out.sort(key=lambda n: n.lst.mtime_ns)
            elif o.sort == "ctime":
                out.sort(key=lambda n: n.lst.ctime_ns)
        if self.has("reverse"):
            out.reverse()
        if self.has("dirsfirst"):
            out = [n for n in out if n.is_dir] + [n for n in out if not n.is_dir]
        elif self.has("filesfirst"):
            out = [n for n in out if not n.is_dir] + [n for n in out if n.is_dir]
        return out

    def count(self, node: Node) -> None:
        for k in node.children or []:
            if k.is_dir:
                self.dirs += 1
                self.count(k)
            else:
                self.files += 1

    # --- text output
    def quote(self, name: str) -> str:
        if self.has("quote"):
            return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if self.has("q"):
            return "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in name)
        return name

    def human(self, n: int) -> str:
        base = 1000 if self.has("si") else 1024
        units = "kMGTPE" if base == 1000 else "KMGTPE"
        if n < base:
            return f"{n:4d}"
        value = float(n)
        idx = -1
        while value >= base and idx < len(units) - 1:
            value /= base
            idx += 1
        return f"{value:3.1f}{units[idx]}" if value < 9.95 else f"{value:3.0f}{units[idx]}"

    def meta(self, node: Node) -> str:
        st = node.lst
        parts: list[str] = []
        if self.has("inodes"):
            parts.append(f"{st.ino:7d}")
        if self.has("device"):
            parts.append(f"{st.dev:3d}")
        if self.has("perms"):
            parts.append(mode_string(st.mode))
        if self.has("user"):
            parts.append(f"{user_name(st.uid):<8}")
        if self.has("group"):
            parts.append(f"{group_name(st.gid):<8}")
        if self.has("size") or self.has("human") or self.has("si"):
            parts.append(self.human(st.size) if (self.has("human") or self.has("si")) else f"{st.size:11d}")
        if self.has("date"):
            parts.append(self.date(st.mtime))
        return f"[{' '.join(parts)}]  " if parts else ""

    def date(self, t: float) -> str:
        if self.o.timefmt:
            return to_datetime(t, self.tz).strftime(self.o.timefmt)
        return ls_time(t, self.now, self.tz)

    def label(self, node: Node, root: bool) -> str:
        name = node.path if (self.has("full_path") and not root) else node.name
        text = self.meta(node) + self.quote(name)
        if node.lst.is_link:
            text += " -> " + self.quote(node.target or "")
            if self.has("classify") and node.st is not None:
                text += self.indicator(node.st)
        elif self.has("classify"):
            text += self.indicator(node.lst)
        if node.error:
            text += f"  [{node.error}]"
        return text

    def indicator(self, st: Stat) -> str:
        if st.is_dir:
            return "/"
        kind = st.mode & 0o170000
        if kind == 0o010000:
            return "|"
        if kind == 0o140000:
            return "="
        if st.is_program:
            return "*"
        return ""

    def text_lines(self, node: Node, prefix: str, out: list[str]) -> None:
        kids = node.children or []
        for i, k in enumerate(kids):
            self.ctx.checkpoint()
            last = i == len(kids) - 1
            if self.has("no_indent"):
                out.append(self.label(k, False) + "\n")
                self.text_lines(k, "", out)
                continue
            out.append(prefix + (self.last if last else self.branch) + self.label(k, False) + "\n")
            self.text_lines(k, prefix + (self.blank if last else self.pipe), out)

    # --- JSON / XML
    def json_attrs(self, node: Node, root: bool) -> str:
        st = node.lst
        kind = "link" if st.is_link else "directory" if st.is_dir else "file"
        if root and node.error == "error opening dir" and not st.is_dir:
            kind = "file"
        name = node.path if (self.has("full_path") and not root) else node.name
        attrs = [f'"type":"{kind}"', f'"name":{json.dumps(name, ensure_ascii=False)}']
        if st.is_link:
            attrs.append(f'"target":{json.dumps(node.target or "", ensure_ascii=False)}')
        if self.has("inodes"):
            attrs.append(f'"inode":{st.ino}')
        if self.has("perms"):
            attrs.append(f'"mode":"{st.mode & 0o7777:04o}","prot":"{mode_string(st.mode)}"')
        if self.has("user"):
            attrs.append(f'"user":"{user_name(st.uid)}"')
        if self.has("group"):
            attrs.append(f'"group":"{group_name(st.gid)}"')
        if self.has("size") or self.has("human"):
            attrs.append(f'"size":{st.size}')
        if self.has("date"):
            attrs.append(f'"time":"{self.date(st.mtime)}"')
        return ",".join(attrs)

    def json_node(self, node: Node, indent: int, root: bool) -> str:
        pad = "  " * indent
        if root and node.st is None and node.error:
            # tree 2.1.0 prints this (malformed) record for a missing directory
            return (
                f',"name":{json.dumps(node.name, ensure_ascii=False)},"contents":[{{"error": "{node.error}"}}'
                f"\n\n{pad}]}}"
            )
        head = pad + "{" + self.json_attrs(node, root)
        if node.error:
            return head + f',"contents":[{{"error": "{node.error}"}}\n\n{pad}]}}'
        if not node.children:
            return head + "}"
        inner = ",\n".join(self.json_node(k, indent + 1, False) for k in node.children)
        return head + ',"contents":[\n' + inner + "\n" + pad + "]}"

    def xml_node(self, node: Node, indent: int, root: bool) -> str:
        pad = "  " * indent
        st = node.lst
        kind = "link" if st.is_link else "directory" if st.is_dir else "file"
        name = node.path if (self.has("full_path") and not root) else node.name
        attrs = f' name="{_xml_escape(name)}"'
        if st.is_link:
            attrs += f' target="{_xml_escape(node.target or "")}"'
        if self.has("size"):
            attrs += f' size="{st.size}"'
        if not node.children:
            return f"{pad}<{kind}{attrs}></{kind}>"
        inner = "\n".join(self.xml_node(k, indent + 1, False) for k in node.children)
        return f"{pad}<{kind}{attrs}>\n{inner}\n{pad}</{kind}>"


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


@declare("tree", spec=SPEC, effects=Effects.TREE)
def cmd_tree(ctx: Ctx) -> int:
    o, roots = _parse(ctx)
    t = Tree(ctx, o)
    status = 0
    nodes: list[Node] = []
    for root in roots:
        node = t.make_node(root, root)
        if node is None:
            lst = Stat(mode=0o040000)
            node = Node(root, root, lst, None, error="error opening dir")
            status = 2
        elif not node.is_dir:
            node.error = "error opening dir"
            t.files += 1
        else:
            t.read(node, 0, set())
            if node.children or (node.error or "").endswith("not opening dir"):
                t.dirs += 1
            t.count(node)
        nodes.append(node)
    dirs_only = t.has("dirs_only")
    if t.has("json"):
        body = ",\n".join(t.json_node(n, 1, True) for n in nodes)
        report = (
            f'  {{"type":"report","directories":{t.dirs}' + ("" if dirs_only else f',"files":{t.files}') + "}"
        )
        text = "[\n" + body + "\n,\n" + (report if not t.has("noreport") else "") + "\n]\n"
    elif t.has("xml"):
        body = "\n".join(t.xml_node(n, 1, True) for n in nodes)
        report = (
            ""
            if t.has("noreport")
            else (
                f"\n  <report>\n    <directories>{t.dirs}</directories>\n"
                + ("" if dirs_only else f"    <files>{t.files}</files>\n")
                + "  </report>"
            )
        )
        text = '<?xml version="1.0" encoding="UTF-8"?>\n<tree>\n' + body + report + "\n</tree>\n"
    else:
        lines: list[str] = []
        for n in nodes:
            lines.append(t.label(n, True) + "\n")
            t.text_lines(n, "", lines)
        if not t.has("noreport"):
            d = f"{t.dirs} director{'y' if t.dirs == 1 else 'ies'}"
            f = f"{t.files} file{'' if t.files == 1 else 's'}"
            lines.append("\n" + (d if dirs_only else f"{d}, {f}") + "\n")
        text = "".join(lines)
    if o.outfile is not None:
        try:
            ctx.fs.write_bytes(o.outfile, text.encode("utf-8", "surrogateescape"))
        except FsError:
            ctx.stderr.write(f"tree: invalid filename '{o.outfile}'\n".encode("utf-8", "surrogateescape"))
            return 1
    else:
        ctx.out(text)
    return status
