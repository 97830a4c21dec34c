"""tar's command line: old-style letter bundles (`tar czf a.tgz dir`), short
and long options in any order, and `-C DIR` that applies to the names after
it. GNU tar's own parser differs enough from getopt_long (old style, position
of -C) that it has its own, small, parser here."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field

    from .tar_xform import Xform
else:  # the same class without importing dataclasses and inspect (~46 M instructions of a first tar)
    from ...leanclass import dataclass, field

# letter -> (key, takes an argument)
SHORT: dict[str, tuple[str, bool]] = {
    "c": ("op:c", False),
    "x": ("op:x", False),
    "t": ("op:t", False),
    "r": ("op:r", False),
    "u": ("op:u", False),
    "d": ("op:d", False),
    "f": ("file", True),
    "z": ("gzip", False),
    "j": ("bzip2", False),
    "J": ("xz", False),
    "Z": ("compress", False),
    "a": ("auto", False),
    "v": ("verbose", False),
    "C": ("directory", True),
    "O": ("to_stdout", False),
    "k": ("keep_old", False),
    "m": ("touch", False),
    "p": ("preserve", False),
    "h": ("dereference", False),
    "P": ("absolute", False),
    "T": ("files_from", True),
    "X": ("exclude_from", True),
    "b": ("ignore_arg", True),
    "H": ("ignore_arg", True),
    "i": ("ignore", False),
    "W": ("ignore", False),
    "l": ("ignore", False),
    "o": ("ignore", False),
    "s": ("ignore", False),
    "S": ("ignore", False),
    "B": ("ignore", False),
    "?": ("help", False),
}
LONG: dict[str, tuple[str, bool]] = {
    "create": ("op:c", False),
    "extract": ("op:x", False),
    "get": ("op:x", False),
    "list": ("op:t", False),
    "append": ("op:r", False),
    "update": ("op:u", False),
    "diff": ("op:d", False),
    "compare": ("op:d", False),
    "file": ("file", True),
    "gzip": ("gzip", False),
    "gunzip": ("gzip", False),
    "ungzip": ("gzip", False),
    "bzip2": ("bzip2", False),
    "xz": ("xz", False),
    "lzma": ("xz", False),
    "compress": ("compress", False),
    "uncompress": ("compress", False),
    "auto-compress": ("auto", False),
    "verbose": ("verbose", False),
    "directory": ("directory", True),
    "to-stdout": ("to_stdout", False),
    "strip-components": ("strip", True),
    "transform": ("transform", True),
    "xform": ("transform", True),
    "exclude": ("exclude", True),
    "exclude-from": ("exclude_from", True),
    "files-from": ("files_from", True),
    "no-recursion": ("no_recursion", False),
    "recursion": ("recursion", False),
    "absolute-names": ("absolute", False),
    "keep-old-files": ("keep_old", False),
    "skip-old-files": ("skip_old", False),
    "overwrite": ("ignore", False),
    "overwrite-dir": ("ignore", False),
    "touch": ("touch", False),
    "preserve-permissions": ("preserve", False),
    "same-permissions": ("preserve", False),
    "no-same-permissions": ("ignore", False),
    "no-same-owner": ("ignore", False),
    "same-owner": ("ignore", False),
    "numeric-owner": ("ignore", False),
    "dereference": ("dereference", False),
    "hard-dereference": ("hard_dereference", False),
    "wildcards": ("wildcards", False),
    "no-wildcards": ("no_wildcards", False),
    "anchored": ("ignore", False),
    "no-anchored": ("ignore", False),
    "owner": ("owner", True),
    "group": ("group", True),
    "mode": ("ignore_arg", True),
    "mtime": ("ignore_arg", True),
    "sort": ("ignore_arg", True),
    "format": ("ignore_arg", True),
    "totals": ("ignore", False),
    "null": ("ignore", False),
    "blocking-factor": ("ignore_arg", True),
    "record-size": ("ignore_arg", True),
    "warning": ("ignore_arg", True),
    "one-file-system": ("ignore", False),
    "ignore-zeros": ("ignore", False),
    "verify": ("ignore", False),
    "no-overwrite-dir": ("ignore", False),
    "delay-directory-restore": ("ignore", False),
    "exclude-vcs": ("exclude_vcs", False),
    "help": ("help", False),
    "usage": ("help", False),
    "version": ("version", False),
    "check-links": ("ignore", False),
    "sparse": ("ignore", False),
}
VCS = [
    ".git",
    ".gitignore",
    ".gitmodules",
    ".gitattributes",
    ".svn",
    ".hg",
    ".hgignore",
    ".bzr",
    "CVS",
    "_darcs",
]


class TarUsage(Exception):
    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class TarArgs:
    op: str | None = None
    file: str | None = None
    compress: str | None = None
    auto: bool = False
    verbose: int = 0
    directory: str | None = None
    # the -C text that named each directory (a message names it as given, not as joined)
    directory_text: dict[str, str] = field(default_factory=dict)
    names: list[tuple[str | None, str]] = field(default_factory=list)
    files_from: list[tuple[str | None, str]] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    exclude_from: list[str] = field(default_factory=list)
    to_stdout: bool = False
    strip: int = 0
    transforms: list[Xform] = field(default_factory=list)
    recursion: bool = True
    absolute: bool = False
    keep_old: bool = False
    skip_old: bool = False
    touch: bool = False
    preserve: bool = False
    dereference: bool = False
    hard_dereference: bool = False  # a file archived again is stored again, not as a hard link
    wildcards: bool = False
    owner: str | None = None
    group: str | None = None
    help: bool = False
    version: bool = False

    def apply(self, key: str, value: str | None) -> None:
        if key.startswith("op:"):
            if self.op is not None and self.op != key[3:]:
                raise TarUsage(
                    "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option"
                )
            self.op = key[3:]
        elif key in ("help", "version"):
            # the first of them is what GNU tar answers (argp exits on it)
            if not (self.help or self.version):
                setattr(self, key, True)
        elif key in ("gzip", "bzip2", "xz", "compress"):
            self.compress = key
        elif key == "verbose":
            self.verbose += 1
        elif key == "directory":
            # a relative -C is taken from the one before it: GNU tar changes directory in turn
            text = value or ""
            if self.directory is not None and not text.startswith("/"):
                value = self.directory.rstrip("/") + "/" + text
            self.directory = value
            self.directory_text[value or ""] = text
        elif key == "strip":
            if value is None or not value.isdigit():
                raise TarUsage(f"{value}: Invalid number of elements")
            self.strip = int(value)
        elif key == "transform":
            from .tar_xform import XformError, parse_xforms

            try:
                self.transforms.extend(parse_xforms(value or ""))
            except XformError as e:
                raise TarUsage(e.message) from None
        elif key in ("exclude", "exclude_from"):
            getattr(self, key).append(value)
        elif key == "exclude_vcs":
            self.exclude.extend(VCS)
        elif key == "files_from":
            self.files_from.append((self.directory, value or "-"))
        elif key == "no_recursion":
            self.recursion = False
        elif key == "no_wildcards":
            self.wildcards = False
        elif key in ("file", "owner", "group"):
            setattr(self, key, value)
        elif key not in ("ignore", "ignore_arg"):
            setattr(self, key, True)


def _long(args: TarArgs, arg: str, rest: list[str]) -> None:
    name, eq, value = arg[2:].partition("=")
    matches = [k for k in LONG if k.startswith(name)] if name not in LONG else [name]
    if not matches:
        raise TarUsage(f"unrecognized option '{arg}'", 64)
    if len(matches) > 1:
        raise TarUsage(f"option '--{name}' is ambiguous", 64)
    key, takes = LONG[matches[0]]
    if takes and not eq:
        if not rest:
            raise TarUsage(f"option '--{matches[0]}' requires an argument", 64)
        value = rest.pop(0)
    elif not takes and eq:
        raise TarUsage(f"option '--{matches[0]}' doesn't allow an argument", 64)
    args.apply(key, value if takes else None)


def parse_tar_args(argv: list[str]) -> TarArgs:
    args = TarArgs()
    rest = list(argv)
    if rest and not rest[0].startswith("-"):
        # old style: a bundle of letters whose arguments follow in order
        bundle = rest.pop(0)
        for letter in bundle:
            if letter not in SHORT:
                raise TarUsage(f"invalid option -- '{letter}'", 64)
            key, takes = SHORT[letter]
            value = None
            if takes:
                if not rest:
                    raise TarUsage(f"Old option '{letter}' requires an argument.")
                value = rest.pop(0)
            args.apply(key, value)
    only_names = False
    while rest:
        arg = rest.pop(0)
        if only_names or arg == "-" or not arg.startswith("-"):
            args.names.append((args.directory, arg))
            continue
        if arg == "--":
            only_names = True
            continue
        if arg.startswith("--"):
            _long(args, arg, rest)
            continue
        i = 1
        while i < len(arg):
            letter = arg[i]
            i += 1
            if letter not in SHORT:
                raise TarUsage(f"invalid option -- '{letter}'", 64)
            key, takes = SHORT[letter]
            value = None
            if takes:
                if i < len(arg):
                    value, i = arg[i:], len(arg)
                elif rest:
                    value = rest.pop(0)
                else:
                    raise TarUsage(f"option requires an argument -- '{letter}'", 64)
            args.apply(key, value)
    if args.help or args.version:
        return args
    if args.op is None:
        raise TarUsage("You must specify one of the '-Acdtrux', '--delete' or '--test-label' options")
    if args.op in ("r", "u") and (args.file or "-") == "-":
        # appending reads the archive back first: not a stream (no -f is standard output here)
        raise TarUsage("Options '-Aru' are incompatible with '-f -'")
    return args
