"""ls options: the command spec and the configuration they produce."""

from __future__ import annotations

from ..context import CommandExit, Ctx
from ..fsutil import parse_size, quote
from ..options import CommandSpec, Opt, Parsed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

SPEC = CommandSpec(
    name="ls",
    usage="[OPTION]... [FILE]...",
    summary="List information about the FILEs (the current directory by default).",
    opts=(
        Opt("a", "all", help="do not ignore entries starting with ."),
        Opt("A", "almost-all", help="do not list implied . and .."),
        Opt(None, "author", help="with -l, print the author of each file"),
        Opt("b", "escape", help="print C-style escapes for nongraphic characters"),
        Opt(None, "block-size", arg="required", metavar="SIZE", help="with -l, scale sizes by SIZE"),
        Opt("B", "ignore-backups", help="do not list implied entries ending with ~"),
        Opt("c", None, dest="c", help="sort by / show ctime"),
        Opt("C", None, dest="C", help="list entries by columns"),
        Opt(None, "color", arg="optional", metavar="WHEN", help="colorize the output (never in the sandbox)"),
        Opt("d", "directory", help="list directories themselves, not their contents"),
        Opt("D", "dired", help="generate output designed for Emacs' dired mode"),
        Opt("f", None, dest="f", help="list all entries in directory order"),
        Opt(
            "F",
            "classify",
            arg="optional",
            metavar="WHEN",
            help="append indicator (one of */=>@|) to entries",
        ),
        Opt(None, "file-type", help="likewise, except do not append '*'"),
        Opt(
            None,
            "format",
            arg="required",
            metavar="WORD",
            help="across -x, commas -m, horizontal -x, long -l, single-column -1, verbose -l, vertical -C",
        ),
        Opt(None, "full-time", help="like -l --time-style=full-iso"),
        Opt("g", None, dest="g", help="like -l, but do not list owner"),
        Opt(None, "group-directories-first", help="group directories before files"),
        Opt("G", "no-group", help="in a long listing, don't print group names"),
        Opt("h", "human-readable", help="with -l and -s, print sizes like 1K 234M 2G etc."),
        Opt(None, "si", help="likewise, but use powers of 1000 not 1024"),
        Opt("H", "dereference-command-line", help="follow symbolic links listed on the command line"),
        Opt(
            None,
            "dereference-command-line-symlink-to-dir",
            help="follow each command line symbolic link that points to a directory",
        ),
        Opt(
            None,
            "hide",
            arg="required",
            metavar="PATTERN",
            multi=True,
            help="do not list implied entries matching shell PATTERN",
        ),
        Opt(None, "hyperlink", arg="optional", metavar="WHEN", help="hyperlink file names"),
        Opt(
            None,
            "indicator-style",
            arg="required",
            metavar="WORD",
            help="append indicator with style WORD to entry names",
        ),
        Opt("i", "inode", help="print the index number of each file"),
        Opt(
            "I",
            "ignore",
            arg="required",
            metavar="PATTERN",
            multi=True,
            help="do not list implied entries matching shell PATTERN",
        ),
        Opt("k", "kibibytes", help="default to 1024-byte blocks for file system usage"),
        Opt("l", None, dest="l", help="use a long listing format"),
        Opt(
            "L",
            "dereference",
            help="show information for the file references rather than for the link itself",
        ),
        Opt("m", None, dest="m", help="fill width with a comma separated list of entries"),
        Opt("n", "numeric-uid-gid", help="like -l, but list numeric user and group IDs"),
        Opt("N", "literal", help="print entry names without quoting"),
        Opt("o", None, dest="o", help="like -l, but do not list group information"),
        Opt("p", None, dest="p", help="append / indicator to directories"),
        Opt("q", "hide-control-chars", help="print ? instead of nongraphic characters"),
        Opt(None, "show-control-chars", help="show nongraphic characters as-is"),
        Opt("Q", "quote-name", help="enclose entry names in double quotes"),
        Opt(
            None,
            "quoting-style",
            arg="required",
            metavar="WORD",
            help="use quoting style WORD for entry names",
        ),
        Opt("r", "reverse", help="reverse order while sorting"),
        Opt("R", "recursive", help="list subdirectories recursively"),
        Opt("s", "size", help="print the allocated size of each file, in blocks"),
        Opt("S", None, dest="S", help="sort by file size, largest first"),
        Opt(
            None,
            "sort",
            arg="required",
            metavar="WORD",
            help="sort by WORD instead of name: none, size, time, version, extension",
        ),
        Opt(
            None,
            "time",
            arg="required",
            metavar="WORD",
            help="change the default of using modification times",
        ),
        Opt(None, "time-style", arg="required", metavar="TIME_STYLE", help="time/date format with -l"),
        Opt("t", None, dest="t", help="sort by time, newest first"),
        Opt(
            "T", "tabsize", arg="required", metavar="COLS", help="assume tab stops at each COLS instead of 8"
        ),
        Opt("u", None, dest="u", help="sort by / show access time"),
        Opt("U", None, dest="U", help="do not sort; list entries in directory order"),
        Opt("v", None, dest="v", help="natural sort of (version) numbers within text"),
        Opt("w", "width", arg="required", metavar="COLS", help="set output width to COLS.  0 means no limit"),
        Opt("x", None, dest="x", help="list entries by lines instead of by columns"),
        Opt("X", None, dest="X", help="sort alphabetically by entry extension"),
        Opt("Z", "context", help="print any security context of each file"),
        Opt(None, "zero", help="end each output line with NUL, not newline"),
        Opt("1", None, dest="one", help="list one file per line"),
    ),
    usage_status=2,
)


def _choice(ctx: Ctx, value: str, option: str, choices: dict[str, str]) -> str:
    """GNU argmatch: exact or unique-prefix match, else the 'Valid arguments' error."""
    if value in choices:
        return choices[value]
    found = {v for k, v in choices.items() if k.startswith(value)} if value else set()
    if len(found) == 1:
        return found.pop()
    kind = "ambiguous" if found else "invalid"
    lines = [f"{ctx.prog}: {kind} argument {quote(value)} for {quote('--' + option)}", "Valid arguments are:"]
    groups: dict[str, list[str]] = {}
    for k, v in choices.items():
        groups.setdefault(v, []).append(k)
    for names in groups.values():
        lines.append("  - " + ", ".join(quote(n) for n in names))
    lines.append(f"Try '{ctx.help_prog} --help' for more information.")
    ctx.stderr.write(("\n".join(lines) + "\n").encode())
    # argmatch failures exit through usage(EXIT_FAILURE), not ls's status 2
    raise CommandExit(1)


@dataclass
class Config:
    fmt: str = "one"  # one, long, columns, across, commas
    show: str = "normal"  # normal, almost, all
    ignore_backups: bool = False
    ignore: list[str] = field(default_factory=list)
    hide: list[str] = field(default_factory=list)
    sort: str = "name"  # name, none, size, time, version, extension
    reverse: bool = False
    time: str = "mtime"
    recursive: bool = False
    directory: bool = False
    deref: str = "cmdline-dir"  # never, always, cmdline, cmdline-dir
    indicator: str = "none"  # none, slash, file-type, classify
    inode: bool = False
    size: bool = False
    human: int = 0  # 0, 1024, 1000
    block_size: int = 1024
    block_size_given: bool = False
    block_suffix: str = ""
    numeric: bool = False
    owner: bool = True
    group: bool = True
    author: bool = False
    context: bool = False
    time_style: str = "locale"
    quoting: str = "literal"
    hide_control: bool = False
    width: int = 80
    tabsize: int = 8
    dirs_first: bool = False
    eol: str = "\n"


def _configure(ctx: Ctx, opts: Parsed) -> Config:
    c = Config()
    if ctx.name == "dir":
        c.fmt, c.quoting = "columns", "escape"
    elif ctx.name == "vdir":
        c.fmt, c.quoting = "long", "escape"
    cols_env = ctx.env.get("COLUMNS", "")
    if cols_env.isdigit() and int(cols_env) > 0:
        c.width = int(cols_env)
    sort_given = False
    time_given = False
    for key, value in opts.order:
        if key in ("l", "g", "o", "numeric_uid_gid"):
            c.fmt = "long"
        elif key == "one":
            c.fmt = "one"
        elif key == "C":
            c.fmt = "columns"
        elif key == "x":
            c.fmt = "across"
        elif key == "m":
            c.fmt = "commas"
        elif key == "format":
            c.fmt = _choice(
                ctx,
                value,
                "format",
                {
                    "verbose": "long",
                    "long": "long",
                    "commas": "commas",
                    "horizontal": "across",
                    "across": "across",
                    "vertical": "columns",
                    "single-column": "one",
                },
            )
        elif key == "full_time":
            c.fmt = "long"
            c.time_style = "full-iso"
        elif key == "all":
            c.show = "all"
        elif key == "almost_all":
            c.show = "almost"
        elif key == "f":
            c.show = "all"
            c.sort = "none"
            sort_given = True
            if c.fmt == "long":
                c.fmt = "one"
            c.size = False
        elif key in ("t", "S", "U", "v", "X", "sort"):
            sort_given = True
            word = (
                value
                if key == "sort"
                else {"t": "time", "S": "size", "U": "none", "v": "version", "X": "extension"}[key]
            )
            c.sort = (
                _choice(
                    ctx,
                    word,
                    "sort",
                    {
                        "none": "none",
                        "time": "time",
                        "size": "size",
                        "extension": "extension",
                        "version": "version",
                        "width": "width",
                    },
                )
                if key == "sort"
                else word
            )
        elif key in ("u", "c"):
            c.time = "atime" if key == "u" else "ctime"
            time_given = True
        elif key == "time":
            c.time = _choice(
                ctx,
                value,
                "time",
                {
                    "atime": "atime",
                    "access": "atime",
                    "use": "atime",
                    "ctime": "ctime",
                    "status": "ctime",
                    "mtime": "mtime",
                    "modification": "mtime",
                    "birth": "mtime",
                    "creation": "mtime",
                },
            )
            time_given = True
        elif key == "classify":
            when = (
                _choice(
                    ctx,
                    value,
                    "classify",
                    {
                        "always": "always",
                        "yes": "always",
                        "force": "always",
                        "never": "never",
                        "no": "never",
                        "none": "never",
                        "auto": "auto",
                        "tty": "auto",
                        "if-tty": "auto",
                    },
                )
                if value is not None
                else "always"
            )
            if when == "always":
                c.indicator = "classify"
        elif key == "file_type":
            c.indicator = "file-type"
        elif key == "p":
            c.indicator = "slash"
        elif key == "indicator_style":
            c.indicator = _choice(
                ctx,
                value,
                "indicator-style",
                {"none": "none", "slash": "slash", "file-type": "file-type", "classify": "classify"},
            )
        elif key == "quoting_style":
            c.quoting = _choice(
                ctx,
                value,
                "quoting-style",
                {
                    "literal": "literal",
                    "shell": "shell",
                    "shell-always": "shell-always",
                    "shell-escape": "shell-escape",
                    "shell-escape-always": "shell-escape-always",
                    "c": "c",
                    "c-maybe": "c-maybe",
                    "escape": "escape",
                    "locale": "locale",
                    "clocale": "clocale",
                },
            )
        elif key == "literal":
            c.quoting = "literal"
        elif key == "quote_name":
            c.quoting = "c"
        elif key == "escape":
            c.quoting = "escape"
        elif key == "hide_control_chars":
            c.hide_control = True
        elif key == "show_control_chars":
            c.hide_control = False
        elif key in ("human_readable", "si"):
            c.human = 1024 if key == "human_readable" else 1000
        elif key == "block_size":
            text = value.lstrip("'")
            size = parse_size(text if text[:1].isdigit() else "1" + text, allow_b_suffix=False)
            if value in ("human-readable", "si"):
                c.human = 1024 if value == "human-readable" else 1000
            elif size is None or size == 0:
                ctx.error(f"invalid --block-size argument '{value}'")
                raise CommandExit(2)
            else:
                c.block_size, c.block_size_given, c.human = size, True, 0
                # `--block-size=K` (no digits) shows the unit after each number
                c.block_suffix = "" if text[:1].isdigit() else text
        elif key == "kibibytes":
            c.block_size = 1024
        elif key in ("dereference", "dereference_command_line", "dereference_command_line_symlink_to_dir"):
            c.deref = {"dereference": "always", "dereference_command_line": "cmdline"}.get(key, "cmdline-dir")
        elif key == "width":
            if not value.isdigit():
                ctx.error(f"invalid line width: {quote(value)}")
                raise CommandExit(2)
            c.width = int(value)
        elif key == "tabsize":
            if not value.isdigit():
                ctx.error(f"invalid tab size: {quote(value)}")
                raise CommandExit(2)
            c.tabsize = int(value)
        elif key == "time_style":
            c.time_style = value
    if opts.has("g"):
        c.owner = False
    if opts.has("o") or opts.has("no_group"):
        c.group = False
    c.numeric = opts.has("numeric_uid_gid")
    c.author = opts.has("author")
    c.context = opts.has("context")
    c.recursive = opts.has("recursive")
    c.directory = opts.has("directory")
    c.inode = opts.has("inode")
    c.size = opts.has("size")
    c.reverse = opts.has("reverse")
    c.dirs_first = opts.has("group_directories_first")
    c.ignore_backups = opts.has("ignore_backups")
    c.ignore = list(opts.get("ignore", []))
    c.hide = list(opts.get("hide", []))
    if opts.has("zero"):
        c.eol = "\0"
    # -u/-c sort by that time unless -l shows it (then -t is needed to sort)
    if time_given and not sort_given and c.fmt != "long":
        c.sort = "time"
    if (
        c.deref == "cmdline-dir"
        and not any(opts.has(k) for k in ("dereference_command_line_symlink_to_dir",))
        and (c.directory or c.indicator == "classify" or c.fmt == "long")
    ):
        c.deref = "never"
    given_style = style = c.time_style
    if style.startswith("posix-"):
        style = style[6:]
    c.time_style = style
    if not (style.startswith("+") or style in ("full-iso", "long-iso", "iso", "locale")):
        ctx.stderr.write(
            f"{ctx.prog}: invalid argument {quote(given_style)} for ‘time style’\nValid arguments are:\n"
            "  - [posix-]full-iso\n  - [posix-]long-iso\n  - [posix-]iso\n  - [posix-]locale\n"
            f"  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\nTry '{ctx.help_prog} --help' for more information.\n".encode()
        )
        raise CommandExit(2)
    return c


# ------------------------------------------------------------ entries
