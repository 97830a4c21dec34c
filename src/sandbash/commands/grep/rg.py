"""rg: the common ripgrep options on grep's searcher.

Output is what ripgrep prints when stdout is not a terminal: no headings,
`path:` before each line when more than one file can be searched, no line
numbers unless -n. Files are walked in sorted order (as `--sort path`); hidden
files and binary files are skipped while walking; .gitignore (in a git
repository), .ignore and .rgignore are respected unless --no-ignore or -u.
"""

from __future__ import annotations

from ...expand.pattern import compile_pattern
from ...regex import Match, RegexError, compile_regex
from ...stdio.streams import BytesReader, NullStream, Stream
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .core import Options
from .rgignore import Ignores, Rule, path_rule
from .rgout import JsonPrinter, RgSearcher, expand_braces

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SPEC = CommandSpec(
    name="rg",
    usage="[OPTIONS] PATTERN [PATH ...]",
    summary="Recursively search the current directory for lines matching a pattern.",
    usage_status=2,
    opts=(
        Opt("e", "regexp", arg="required", dest="pats", multi=True, help="a pattern to search for"),
        Opt(
            "f",
            "file",
            arg="required",
            dest="pat_files",
            multi=True,
            help="search for patterns from the given file",
        ),
        Opt("F", "fixed-strings", help="treat patterns as literal strings"),
        Opt("i", "ignore-case", dest="case", const="i", help="search case insensitively"),
        Opt("s", "case-sensitive", dest="case", const="s", help="search case sensitively"),
        Opt("S", "smart-case", dest="case", const="S", help="smart case"),
        Opt("v", "invert-match", help="invert matching"),
        Opt("w", "word-regexp", help="only show matches surrounded by word boundaries"),
        Opt("x", "line-regexp", help="only show matches surrounded by line boundaries"),
        Opt("n", "line-number", dest="lineno", const=True, help="show line numbers"),
        Opt("N", "no-line-number", dest="lineno", const=False, help="suppress line numbers"),
        Opt("c", "count", help="show the number of matching lines per file"),
        Opt(None, "count-matches", help="show the number of matches per file"),
        Opt("l", "files-with-matches", help="print the paths with at least one match"),
        Opt(None, "files-without-match", help="print the paths with zero matches"),
        Opt("o", "only-matching", help="print only the matched parts of a line"),
        Opt("r", "replace", arg="required", help="replace every match with the text given"),
        Opt("g", "glob", arg="required", multi=True, help="include or exclude files matching the glob"),
        Opt(None, "iglob", arg="required", multi=True, help="like --glob, case insensitive"),
        Opt("t", "type", arg="required", multi=True, help="only search files matching TYPE"),
        Opt("T", "type-not", arg="required", multi=True, help="do not search files matching TYPE"),
        Opt(None, "hidden", help="search hidden files and directories"),
        Opt("u", "unrestricted", count=True, help="reduce the level of smart searching"),
        Opt(None, "no-ignore", help="don't respect ignore files"),
        Opt("H", "with-filename", dest="fname", const=True, help="print the file path with each match"),
        Opt("I", "no-filename", dest="fname", const=False, help="never print the file path"),
        Opt(None, "no-heading", help="don't group matches by file"),
        Opt(None, "heading", help="group matches by file"),
        Opt("q", "quiet", help="do not print anything"),
        Opt("m", "max-count", arg="required", help="limit the number of matching lines per file"),
        Opt("A", "after-context", arg="required", help="show NUM lines after each match"),
        Opt("B", "before-context", arg="required", help="show NUM lines before each match"),
        Opt("C", "context", arg="required", help="show NUM lines before and after each match"),
        Opt("a", "text", help="search binary files as if they were text"),
        Opt("0", "null", help="follow paths with a NUL byte"),
        Opt(None, "files", help="print each file that would be searched"),
        Opt("L", "follow", help="follow symbolic links"),
        Opt("P", "pcre2", help="use PCRE2"),
        Opt(None, "color", arg="required", help="when to use colors"),
        Opt(None, "sort", arg="required", help="sort results"),
        Opt("b", "byte-offset", help="print the byte offset of each line"),
        Opt("d", "max-depth", arg="required", help="descend at most NUM directories"),
        Opt(None, "column", help="show column numbers"),
        Opt("U", "multiline", help="enable matching across lines"),
        Opt(None, "json", help="print results as JSON Lines (begin, match, end, summary messages)"),
        Opt(None, "binary", help="search binary files (as -uuu)"),
    ),
)

TYPES = {
    "py": ["*.py", "*.pyi"],
    "python": ["*.py", "*.pyi"],
    "js": ["*.js", "*.jsx", "*.mjs", "*.cjs"],
    "ts": ["*.ts", "*.tsx", "*.mts", "*.cts"],
    "rust": ["*.rs"],
    "go": ["*.go"],
    "c": ["*.c", "*.h"],
    "cpp": ["*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"],
    "java": ["*.java"],
    "rb": ["*.rb"],
    "ruby": ["*.rb"],
    "sh": ["*.sh", "*.bash", "*.zsh"],
    "md": ["*.md", "*.markdown"],
    "markdown": ["*.md", "*.markdown"],
    "json": ["*.json"],
    "yaml": ["*.yaml", "*.yml"],
    "toml": ["*.toml"],
    "html": ["*.html", "*.htm"],
    "css": ["*.css", "*.scss"],
    "txt": ["*.txt"],
    "xml": ["*.xml"],
    "sql": ["*.sql"],
    "php": ["*.php"],
    "swift": ["*.swift"],
    "kotlin": ["*.kt", "*.kts"],
    "lua": ["*.lua"],
    "csv": ["*.csv"],
    "make": ["Makefile", "makefile", "*.mk"],
    "docker": ["Dockerfile", "*.dockerfile"],
}


def _replacement(template: str):  # type: ignore[no-untyped-def]
    """rg's -r syntax: $N, ${N}, $name, ${name}, $$."""
    parts: list[tuple[bool, str]] = []
    i = 0
    n = len(template)
    lit: list[str] = []
    while i < n:
        c = template[i]
        if c == "$" and i + 1 < n:
            d = template[i + 1]
            if d == "$":
                lit.append("$")
                i += 2
                continue
            if d == "{":
                close = template.find("}", i + 2)
                if close > 0:
                    parts.append((False, "".join(lit)))
                    lit = []
                    parts.append((True, template[i + 2 : close]))
                    i = close + 1
                    continue
            j = i + 1
            while j < n and (template[j].isalnum() or template[j] == "_"):
                j += 1
            if j > i + 1:
                parts.append((False, "".join(lit)))
                lit = []
                parts.append((True, template[i + 1 : j]))
                i = j
                continue
        lit.append(c)
        i += 1
    parts.append((False, "".join(lit)))

    def expand(m: Match) -> bytes:
        out: list[bytes] = []
        for is_ref, v in parts:
            if not is_ref:
                out.append(v.encode("utf-8", "surrogateescape"))
            elif v.isdigit():
                try:
                    g = m.group(int(v))
                except IndexError:
                    g = None
                out.append(g or b"")
        return b"".join(out)

    return expand


@declare("rg", spec=SPEC, uses=("grep",), effects=Effects.GREP)
def cmd_rg(ctx: Ctx) -> int:
    p, operands = ctx.parse(SPEC)
    patterns = _patterns(ctx, p, operands)
    if isinstance(patterns, int):
        return patterns
    case = p.get("case", "s")
    icase = case == "i" or (case == "S" and not any(ch.isupper() for pat in patterns for ch in pat))
    if p.get("fixed_strings"):
        patterns = [
            "".join("\\" + ch if not ch.isalnum() and ch != " " and ord(ch) < 128 else ch for ch in pat)
            for pat in patterns
        ]
    whole = "line" if p.get("line_regexp") else ("word" if p.get("word_regexp") else "")
    try:
        pat = patterns[0] if len(patterns) == 1 else "|".join(f"(?:{x})" for x in patterns)
        line_rx = compile_regex(pat, "pcre", icase, whole=whole, budget=ctx.budget)
        rx = compile_regex(pat, "pcre", icase, line_mode=True, whole=whole, budget=ctx.budget)
    except RegexError as e:
        ctx.stderr.write(f"rg: regex parse error:\n    {pat}\nerror: {e.message}\n".encode())
        return 2
    try:
        o = _options(p)
        max_depth = int(p["max_depth"]) if p.has("max_depth") else -1
        wanted = _Filter(p)
    except ValueError as e:
        ctx.stderr.write(f"rg: {e}\n".encode())
        return 2
    unrestricted = p.get("unrestricted", 0) or 0
    hidden = bool(p.get("hidden")) or unrestricted >= 2
    use_stdin = not operands and _stdin_has_data(ctx)
    paths = operands or (["-"] if use_stdin else ["./"])
    files: list[tuple[str, str, bool]] = []  # (path to open, name shown, named on the command line)
    error = False
    for path in paths:
        if path == "-":
            files.append(("-", "<stdin>", True))
            continue
        try:
            st = ctx.fs.stat(path)
        except FsError as failed:  # (a refused name says so, with its rule)
            ctx.stderr.write(
                f"rg: {path}: IO error for operation on {path}: {failed.message} "
                f"(os error {int(failed.errno or 0)})\n".encode("utf-8", "surrogateescape")
            )
            error = True
            continue
        if not st.is_dir:
            files.append((path, path, True))
            continue
        walk = _Walk(
            ctx,
            hidden,
            wanted,
            max_depth,
            bool(p.get("follow")),
            files,
            ignore_files=not (p.get("no_ignore") or unrestricted >= 1),
        )
        walk.run(path, "" if path == "./" else path.rstrip("/") + "/" if path != "/" else "/")
        error = error or walk.error
    if p.get("files"):
        for _path, shown, _explicit in files:
            ctx.out(shown.encode("utf-8", "surrogateescape") + (b"\0" if o.null_after_name else b"\n"))
        return 2 if error else (0 if files else 1)
    if not files and not error:
        ctx.stderr.write(
            b"rg: No files were searched, which means ripgrep probably applied a filter you didn't "
            b"expect.\nRunning with --debug will show why files are being skipped.\n"
        )
        return 2
    fname = p.get("fname")
    o.with_fname = (
        (len(paths) > 1 or any(ctx.fs.is_dir(x) for x in paths if x != "-")) if fname is None else fname
    )
    if p.get("json"):
        printer = JsonPrinter(ctx, line_rx, o.invert)
        found = _search_all(ctx, files, printer.search)
        printer.summary()
        return 2 if error or found is None else (0 if found else 1)
    searcher = RgSearcher(ctx, rx, line_rx, o, count_matches=bool(p.get("count_matches")))
    binary = "text" if p.get("text") else "binary"

    def search(stream: Stream, shown: str, explicit: bool) -> bool:
        # ripgrep skips binary files it finds while walking; one it was given is searched (and noted)
        o.binary = binary if explicit or unrestricted >= 3 or p.get("binary") else "without-match"
        return searcher.search_stream(stream, shown)

    found = _search_all(ctx, files, search, quiet=o.quiet)
    if found is None:
        error = True
    if error and not (o.quiet and searcher.any_selected):
        return 2
    return 0 if searcher.any_selected else 1


def _patterns(ctx: Ctx, p: Any, operands: list[str]) -> list[str] | int:
    """The patterns from -e, -f and the first operand (popped); a status when there are none."""
    patterns: list[str] = []
    for key, value in p.order:
        if key == "pats":
            patterns.append(value)
        elif key == "pat_files":
            try:
                patterns += ctx.read_input(value).decode("utf-8", "surrogateescape").splitlines()
            except FsError as e:
                ctx.stderr.write(f"rg: {value}: {e.message} (os error {e.errno})\n".encode())
                return 2
    if p.get("files"):
        return patterns or [""]
    if not p.has("pats") and not p.has("pat_files"):
        if not operands:
            ctx.stderr.write(b"rg: ripgrep requires at least one pattern to execute a search\n")
            return 2
        patterns = [operands.pop(0)]
    return patterns


def _options(p: Any) -> Options:
    """grep's searcher options as ripgrep's flags set them (ValueError for a bad number)."""
    o = Options()
    o.prog = "rg"
    o.per_line = True
    o.invert = bool(p.get("invert_match"))
    o.count = bool(p.get("count") or p.get("count_matches"))
    o.list_files = bool(p.get("files_with_matches"))
    o.list_nonmatching = bool(p.get("files_without_match"))
    o.quiet = bool(p.get("quiet"))
    o.only = bool(p.get("only_matching"))
    o.line_numbers = bool(p.get("lineno", False))
    o.byte_offset = bool(p.get("byte_offset"))
    o.null_after_name = bool(p.get("null"))
    if p.has("replace"):
        o.replace = _replacement(p["replace"])
    numbers = {
        "max_count": "max_count",
        "context": "context",
        "before_context": "before",
        "after_context": "after",
    }
    for key, what in numbers.items():
        if not p.has(key):
            continue
        try:
            n = int(p[key])
        except ValueError:
            raise ValueError(f"invalid number for --{key.replace('_', '-')}: {p[key]}") from None
        if what == "max_count":
            o.max_count = n
        elif what == "context":
            o.before = o.after = n
        else:
            setattr(o, what, n)
        o.context = o.context or what != "max_count"
    return o


class _Filter:
    """-g/--iglob (braces expanded; they override the ignore files, as in ripgrep) and -t/-T."""

    def __init__(self, p: Any) -> None:
        self.globs: list[tuple[bool, Any]] = []
        for key, nocase in (("glob", False), ("iglob", True)):
            for g in p.get(key, []):
                neg = g.startswith("!")
                for one in expand_braces(g[1:] if neg else g):
                    self.globs.append(
                        (neg, path_rule(one, nocase) if "/" in one else compile_pattern(one, nocase=nocase))
                    )
        self.types = [compile_pattern(x) for t in p.get("type", []) for x in TYPES.get(t, [f"*.{t}"])]
        self.types_not = [compile_pattern(x) for t in p.get("type_not", []) for x in TYPES.get(t, [f"*.{t}"])]
        self.includes = any(not neg for neg, _ in self.globs)

    def glob_verdict(self, rel: str, base: str, is_dir: bool = False) -> bool | None:
        """True/False from the last glob that matches; None when none does."""
        verdict: bool | None = None
        for neg, g in self.globs:
            if g.matches(rel, is_dir) if isinstance(g, Rule) else g.fullmatch(base):
                verdict = not neg
        return verdict

    def types_allow(self, base: str) -> bool:
        if self.types and not any(t.fullmatch(base) for t in self.types):
            return False
        return not any(t.fullmatch(base) for t in self.types_not)


def _search_all(
    ctx: Ctx, files: list[tuple[str, str, bool]], search: Any, quiet: bool = False
) -> bool | None:
    """Search each file with search(stream, shown, explicit); None when a file could not be opened."""
    found_any = False
    failed = False
    for path, shown, explicit in files:
        if path == "-":
            stream: Stream = ctx.stdin
        else:
            try:
                stream = ctx.fs.open(path)
            except FsError as e:
                ctx.stderr.write(
                    f"rg: {shown}: {e.message} (os error {e.errno})\n".encode("utf-8", "surrogateescape")
                )
                failed = True
                continue
        try:
            found = search(stream, shown, explicit)
        finally:
            if path != "-":
                stream.close()
        found_any = found_any or found
        if found and quiet:
            break
    return None if failed else found_any


def _stdin_has_data(ctx: Ctx) -> bool:
    """ripgrep searches stdin when it is not a terminal; an empty or absent
    stdin in the sandbox means "search the working directory" instead."""
    st = ctx.stdin
    if st.is_tty or isinstance(st, NullStream) or not st.readable:
        return False
    if not getattr(st, "holds_data", True):  # the host's terminal or /dev/null handed over as stdin
        return False
    if isinstance(st, BytesReader):
        chunk = st.read(1)
        if not chunk:
            return False
        st.unread(chunk)
    return True


class _Walk:
    """The directory walk: sorted names, hidden entries skipped unless asked, symlinks followed
    with -L (a link to a directory on the current path is a loop: reported, not entered)."""

    def __init__(
        self,
        ctx: Ctx,
        hidden: bool,
        wanted: _Filter,
        max_depth: int,
        follow: bool,
        files: list[tuple[str, str, bool]],
        ignore_files: bool = True,
    ) -> None:
        self.ctx = ctx
        self.ignore_files = ignore_files
        self.ignores: Ignores | None = None
        self.hidden = hidden
        self.wanted = wanted
        self.max_depth = max_depth
        self.follow = follow
        self.files = files
        self.error = False
        self._ancestors: list[tuple[tuple[int, int], str]] = []

    def run(self, top: str, shown_prefix: str) -> None:
        self.ignores = Ignores(self.ctx, top, self.ignore_files)
        st = self.ctx.fs.try_stat(top)
        if st is not None:
            self._ancestors = [((st.dev, st.ino), shown_prefix.rstrip("/") or ".")]
        self._dir(top, shown_prefix, 1)

    def _dir(self, top: str, shown_prefix: str, depth: int) -> None:
        ctx = self.ctx
        try:
            names = sorted(ctx.fs.listdir(top))
        except FsError as e:
            ctx.stderr.write(
                f"rg: {shown_prefix.rstrip('/') or top}: {e.message} (os error {e.errno})\n".encode(
                    "utf-8", "surrogateescape"
                )
            )
            self.error = True
            return
        ignores = self.ignores
        assert ignores is not None
        ignores.enter(ctx.fs.abspath(top))
        try:
            self._entries(top, shown_prefix, depth, names, ignores)
        finally:
            ignores.leave()

    def _entries(self, top: str, shown_prefix: str, depth: int, names: list[str], ignores: Ignores) -> None:
        ctx = self.ctx
        for n in names:
            ctx.checkpoint()
            if n.startswith(".") and not self.hidden:
                continue
            path = top.rstrip("/") + "/" + n if top != "/" else "/" + n
            shown = shown_prefix + n
            lst = ctx.fs.try_lstat(path)
            if lst is None or (lst.is_link and not self.follow):
                continue
            st = ctx.fs.try_stat(path) if lst.is_link else lst
            if st is None or (n == ".git" and st.is_dir):  # ripgrep never searches a repository's own files
                continue
            verdict = self.wanted.glob_verdict(shown, n, st.is_dir)
            if verdict is False or (verdict is None and ignores.ignored(ctx.fs.abspath(path), st.is_dir)):
                continue
            if st.is_dir:
                if self.max_depth < 0 or depth < self.max_depth:
                    self._enter(path, shown, st.dev, st.ino, depth)
                continue
            if verdict is None and self.wanted.includes:
                continue
            if st.is_file and (verdict or self.wanted.types_allow(n)):
                self.files.append((path, shown, False))

    def _enter(self, path: str, shown: str, dev: int, ino: int, depth: int) -> None:
        key = (dev, ino)
        for seen, where in self._ancestors:
            if seen == key:
                self.ctx.stderr.write(
                    f"rg: File system loop found: {shown} points to an ancestor {where}\n".encode(
                        "utf-8", "surrogateescape"
                    )
                )
                self.error = True
                return
        self._ancestors.append((key, shown))
        try:
            self._dir(path, shown + "/", depth + 1)
        finally:
            self._ancestors.pop()


__all__ = ["CommandExit", "cmd_rg"]
