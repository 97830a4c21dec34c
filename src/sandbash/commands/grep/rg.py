"""rg: the common ripgrep options on grep's searcher.

Output is what ripgrep prints when stdout is not a terminal: no headings,
`path:` before each line when more than one file can be searched, no line
numbers unless -n. Files are walked in sorted order; hidden files and binary
files are skipped while walking; ignore files (.gitignore) are not read.
"""

from __future__ import annotations

from ...expand.pattern import compile_pattern
from ...regex import Match, RegexError, compile_regex
from ...stdio.streams import BytesReader, NullStream
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from .core import Options, Searcher

SPEC = CommandSpec(
    name="rg",
    usage="[OPTIONS] PATTERN [PATH ...]",
    summary="Recursively search the current directory for lines matching a pattern.",
    usage_status=2,
    opts=(
        Opt("e", "regexp", arg="required", dest="pats", multi=True, help="a pattern to search for"),
        Opt("f", "file", arg="required", dest="pat_files", multi=True, help="search for patterns from the given file"),
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
    ),
)

TYPES = {
    "py": ["*.py", "*.pyi"], "python": ["*.py", "*.pyi"], "js": ["*.js", "*.jsx", "*.mjs", "*.cjs"],
    "ts": ["*.ts", "*.tsx", "*.mts", "*.cts"], "rust": ["*.rs"], "go": ["*.go"], "c": ["*.c", "*.h"],
    "cpp": ["*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"], "java": ["*.java"], "rb": ["*.rb"],
    "ruby": ["*.rb"], "sh": ["*.sh", "*.bash", "*.zsh"], "md": ["*.md", "*.markdown"],
    "markdown": ["*.md", "*.markdown"], "json": ["*.json"], "yaml": ["*.yaml", "*.yml"], "toml": ["*.toml"],
    "html": ["*.html", "*.htm"], "css": ["*.css", "*.scss"], "txt": ["*.txt"], "xml": ["*.xml"],
    "sql": ["*.sql"], "php": ["*.php"], "swift": ["*.swift"], "kotlin": ["*.kt", "*.kts"], "lua": ["*.lua"],
    "csv": ["*.csv"], "make": ["Makefile", "makefile", "*.mk"], "docker": ["Dockerfile", "*.dockerfile"],
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


def cmd_rg(ctx: Ctx) -> int:
    p, operands = ctx.parse(SPEC)
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
        patterns = patterns or [""]
    elif not p.has("pats") and not p.has("pat_files"):
        if not operands:
            ctx.stderr.write(b"error: rg requires at least one pattern to execute a search\n")
            return 2
        patterns = [operands.pop(0)]
    o = Options()
    o.prog = "rg"
    case = p.get("case", "s")
    icase = case == "i" or (case == "S" and not any(ch.isupper() for pat in patterns for ch in pat))
    if p.get("fixed_strings"):
        patterns = ["".join("\\" + ch if not ch.isalnum() and ch != " " and ord(ch) < 128 else ch for ch in pat)
                    for pat in patterns]
    whole = "line" if p.get("line_regexp") else ("word" if p.get("word_regexp") else "")
    try:
        pat = patterns[0] if len(patterns) == 1 else "|".join(f"(?:{x})" for x in patterns)
        line_rx = compile_regex(pat, "pcre", icase, whole=whole, budget=ctx.budget)
        rx = compile_regex(pat, "pcre", icase, line_mode=True, whole=whole, budget=ctx.budget)
    except RegexError as e:
        ctx.stderr.write(f"rg: regex parse error:\n    {pat}\nerror: {e.message}\n".encode())
        return 2
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
    o.binary = "text" if p.get("text") else "without-match"
    if p.has("replace"):
        o.replace = _replacement(p["replace"])
    try:
        if p.has("max_count"):
            o.max_count = int(p["max_count"])
        if p.has("context"):
            o.before = o.after = int(p["context"])
            o.context = True
        if p.has("before_context"):
            o.before = int(p["before_context"])
            o.context = True
        if p.has("after_context"):
            o.after = int(p["after_context"])
            o.context = True
        max_depth = int(p["max_depth"]) if p.has("max_depth") else -1
    except ValueError:
        ctx.stderr.write(b"rg: invalid number\n")
        return 2
    hidden = bool(p.get("hidden")) or (p.get("unrestricted", 0) or 0) >= 2
    globs: list[tuple[bool, object]] = []
    for g in p.get("glob", []):
        neg = g.startswith("!")
        globs.append((neg, compile_pattern(g[1:] if neg else g)))
    for g in p.get("iglob", []):
        neg = g.startswith("!")
        globs.append((neg, compile_pattern(g[1:] if neg else g, nocase=True)))
    types = [compile_pattern(x) for t in p.get("type", []) for x in TYPES.get(t, [f"*.{t}"])]
    types_not = [compile_pattern(x) for t in p.get("type_not", []) for x in TYPES.get(t, [f"*.{t}"])]

    def wanted(rel: str, base: str) -> bool:
        if types and not any(t.fullmatch(base) for t in types):  # type: ignore[attr-defined]
            return False
        if any(t.fullmatch(base) for t in types_not):  # type: ignore[attr-defined]
            return False
        includes = [g for neg, g in globs if not neg]
        for neg, g in globs:
            subject = rel if "/" in g.source else base  # type: ignore[attr-defined]
            if g.fullmatch(subject):  # type: ignore[attr-defined]
                return not neg
        return not includes

    use_stdin = not operands and _stdin_has_data(ctx)
    paths = operands or (["-"] if use_stdin else ["./"])
    files: list[tuple[str, str]] = []  # (path to open, name shown)
    error = False
    for path in paths:
        if path == "-":
            files.append(("-", "<stdin>"))
            continue
        st = ctx.fs.try_stat(path)
        if st is None:
            ctx.stderr.write(f"rg: {path}: No such file or directory (os error 2)\n".encode())
            error = True
            continue
        if not st.is_dir:
            files.append((path, path))
            continue
        _walk(ctx, path, "" if path == "./" else path.rstrip("/") + "/" if path != "/" else "/", hidden, wanted,
              files, max_depth, bool(p.get("follow")))
    if p.get("files"):
        for _path, shown in files:
            ctx.out(shown.encode("utf-8", "surrogateescape") + (b"\0" if o.null_after_name else b"\n"))
        return 0 if files else 1
    fname = p.get("fname")
    o.with_fname = (len(paths) > 1 or any(ctx.fs.is_dir(x) for x in paths if x != "-")) if fname is None else fname
    searcher = Searcher(ctx, rx, line_rx, o)
    for path, shown in files:
        if path == "-":
            found = searcher.search_stream(ctx.stdin, shown)
        else:
            try:
                stream = ctx.fs.open(path)
            except FsError as e:
                ctx.stderr.write(f"rg: {shown}: {e.message} (os error {e.errno})\n".encode())
                error = True
                continue
            try:
                found = searcher.search_stream(stream, shown)
            finally:
                stream.close()
        if found and o.quiet:
            return 0
    if error and not (o.quiet and searcher.any_selected):
        return 2
    return 0 if searcher.any_selected else 1


def _stdin_has_data(ctx: Ctx) -> bool:
    """ripgrep searches stdin when it is not a terminal; an empty or absent
    stdin in the sandbox means "search the working directory" instead."""
    st = ctx.stdin
    if st.is_tty or isinstance(st, NullStream) or not st.readable:
        return False
    if isinstance(st, BytesReader):
        chunk = st.read(1)
        if not chunk:
            return False
        st.unread(chunk)
    return True


def _walk(ctx: Ctx, top: str, shown_prefix: str, hidden: bool, wanted, files: list[tuple[str, str]],  # type: ignore[no-untyped-def]
          max_depth: int, follow: bool, depth: int = 1) -> None:
    try:
        names = sorted(ctx.fs.listdir(top))
    except FsError as e:
        ctx.stderr.write(f"rg: {top}: {e.message}\n".encode())
        return
    for n in names:
        ctx.checkpoint()
        if n.startswith(".") and not hidden:
            continue
        path = top.rstrip("/") + "/" + n if top != "/" else "/" + n
        shown = shown_prefix + n
        lst = ctx.fs.try_lstat(path)
        if lst is None:
            continue
        st = ctx.fs.try_stat(path) if (lst.is_link and follow) else lst
        if st is None or (lst.is_link and not follow):
            continue
        if st.is_dir:
            if max_depth < 0 or depth < max_depth:
                _walk(ctx, path, shown + "/", hidden, wanted, files, max_depth, follow, depth + 1)
            continue
        if st.is_file and wanted(shown, n):
            files.append((path, shown))


__all__ = ["CommandExit", "cmd_rg"]
