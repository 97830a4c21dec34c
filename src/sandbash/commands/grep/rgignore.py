"""The ignore files ripgrep reads while walking: `.gitignore` (inside a git repository: a `.git`
at or above the search root), `.ignore` and `.rgignore` (always), each applying to its own
directory and below. gitignore rules: blank lines and `#` comments skipped, `!` re-includes,
a trailing `/` matches directories only, a pattern with a `/` before its end is anchored to the
file's directory, `**` matches any number of directories; the last matching rule wins, and
files deeper down override those above (checked in walking order)."""

from __future__ import annotations

from ...expand.pattern import Pattern, compile_pattern
from ...vfs.errors import FsError
from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same class without importing dataclasses and inspect (~6 ms of a first rg)
    from ...leanclass import dataclass

IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")  # later files take precedence
MAX_RULES = 10_000  # per file: an ignore file is configuration, not data


@dataclass(frozen=True)
class Rule:
    parts: tuple[Pattern | None, ...]  # None stands for `**`
    negate: bool
    dir_only: bool
    anchored: bool

    def matches(self, rel: str, is_dir: bool) -> bool:
        """`rel`: the path relative to the ignore file's directory."""
        if self.dir_only and not is_dir:
            return False
        names = rel.split("/")
        if self.anchored:
            return _match(self.parts, names)
        return any(_match(self.parts, names[i:]) for i in range(len(names)))


def _match(parts: tuple[Pattern | None, ...], names: list[str]) -> bool:
    if not parts:
        return not names
    head = parts[0]
    if head is None:  # `**`: zero or more directories
        return any(_match(parts[1:], names[i:]) for i in range(len(names) + 1))
    return bool(names) and head.fullmatch(names[0]) and _match(parts[1:], names[1:])


def path_rule(glob: str, nocase: bool = False) -> Rule:
    """A glob with a `/` as ripgrep's -g reads it: anchored at the search root, `*` within one
    name, `**` across directories."""
    parts = tuple(
        None if p == "**" else compile_pattern(p, nocase=nocase) for p in glob.strip("/").split("/")
    )
    return Rule(parts, negate=False, dir_only=glob.endswith("/"), anchored=True)


def parse_rules(text: str) -> list[Rule]:
    rules: list[Rule] = []
    for raw in text.splitlines()[:MAX_RULES]:
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        line = line.rstrip(" ") if not line.endswith("\\ ") else line
        negate = line.startswith("!")
        if negate or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        parts = tuple(None if p == "**" else compile_pattern(p) for p in line.lstrip("/").split("/"))
        rules.append(Rule(parts, negate, dir_only, anchored))
    return rules


class Ignores:
    """The rules in force at each directory of one walk, on absolute paths. The ignore files of
    the directories above the search root count too (as ripgrep reads them)."""

    def __init__(self, ctx: Ctx, top: str, enabled: bool) -> None:
        self.ctx = ctx
        self.enabled = enabled
        self.repo = _repo_root(ctx, ctx.fs.abspath(top)) if enabled else None
        # (directory, its rules), outermost first; pushed and popped by the walk
        self.stack: list[tuple[str, list[Rule]]] = []
        if enabled:
            parts = [p for p in ctx.fs.abspath(top).split("/") if p]
            for i in range(len(parts)):
                self.enter("/" + "/".join(parts[:i]))

    def enter(self, directory: str) -> None:
        """Read `directory`'s ignore files (an absolute path) before walking it."""
        rules: list[Rule] = []
        if self.enabled:
            base = directory.rstrip("/")
            for name in IGNORE_FILES:
                if name == ".gitignore" and (
                    self.repo is None or not (base + "/").startswith(self.repo.rstrip("/") + "/")
                ):
                    continue
                try:
                    data = self.ctx.fs.read_bytes(base + "/" + name)
                except FsError:
                    continue
                rules += parse_rules(data.decode("utf-8", "surrogateescape"))
        self.stack.append((directory, rules))

    def leave(self) -> None:
        self.stack.pop()

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether the absolute `path` is ignored: the last rule that matches decides."""
        verdict = False
        for directory, rules in self.stack:
            if not rules:
                continue
            base = directory.rstrip("/") + "/"
            if not path.startswith(base):
                continue
            rel = path[len(base) :]
            for rule in rules:
                if rule.matches(rel, is_dir):
                    verdict = not rule.negate
        return verdict


def _repo_root(ctx: Ctx, path: str) -> str | None:
    """The nearest directory at or above `path` holding a `.git`."""
    while True:
        if ctx.fs.try_lstat(path.rstrip("/") + "/.git") is not None:
            return path
        if path in ("/", ""):
            return None
        path = path.rstrip("/").rsplit("/", 1)[0] or "/"
