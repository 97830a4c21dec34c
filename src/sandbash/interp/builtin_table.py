"""The one seam between the interpreter and its builtins: the table the executor dispatches
builtins from. The table lives here, below the builtins; the `sandbash.builtins` package's
modules fill it as they are imported (builtins import the interpreter, never the other way).

The table is lazy, for start-up: `HOME` names the module that defines each builtin, and the
executor's `lookup()` imports only that module the first time the builtin runs (`echo hi` loads
`echo`, not all the modules). Anything that reads the table as a whole (`name in BUILTINS`,
iterating, `BUILTINS[name]`) loads every module first, so it always sees the full table.
tests/unit/interp/test_builtin_table.py checks `HOME` against what the modules register."""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .shell import Shell

Builtin = Callable[["Shell", list[str]], int]

# builtin name -> the module of sandbash.builtins that registers it
HOME: dict[str, str] = {
    **dict.fromkeys(["complete", "compopt"], "complete"),
    **dict.fromkeys(
        [
            ".",
            "break",
            "builtin",
            "caller",
            "command",
            "continue",
            "enable",
            "eval",
            "exec",
            "exit",
            "hash",
            "help",
            "logout",
            "return",
            "shift",
            "source",
            "suspend",
            "times",
            "type",
            "umask",
        ],
        "core",
    ),
    **dict.fromkeys(["cd", "dirs", "popd", "pushd", "pwd"], "dirs"),
    **dict.fromkeys(["bind", "fc"], "editing"),
    "history": "history",
    "echo": "echo",
    **dict.fromkeys([":", "false", "true"], "truefalse"),
    **dict.fromkeys(["mapfile", "printf", "read", "readarray"], "io"),
    **dict.fromkeys(["bg", "disown", "fg", "jobs", "kill", "wait"], "jobs"),
    "compgen": "compgen",
    **dict.fromkeys(["alias", "trap", "unalias"], "misc"),
    **dict.fromkeys(["[", "test"], "testcmd"),
    "ulimit": "ulimit",
    **dict.fromkeys(
        ["declare", "export", "getopts", "let", "local", "readonly", "set", "shopt", "typeset", "unset"],
        "varcmds",
    ),
}
# names whose module is not imported yet (a plain set: the executor tests it on every command)
PENDING: set[str] = set(HOME)


class _Table(dict[str, Builtin]):
    """The builtins by name. Reading it as a whole loads every builtin module first; the
    executor reads it through `lookup()`, which loads one module."""

    __slots__ = ()

    def full(self) -> _Table:
        if PENDING:
            load()
        return self

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self.full(), name)

    def __getitem__(self, name: str) -> Builtin:
        return dict.__getitem__(self.full(), name)

    def get(self, name: str, default: Builtin | None = None) -> Builtin | None:  # type: ignore[override]
        return dict.get(self.full(), name, default)

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self.full())

    def __len__(self) -> int:
        return dict.__len__(self.full())

    def keys(self) -> KeysView[str]:  # type: ignore[override]
        return dict.keys(self.full())

    def values(self) -> ValuesView[Builtin]:  # type: ignore[override]
        return dict.values(self.full())

    def items(self) -> ItemsView[str, Builtin]:  # type: ignore[override]
        return dict.items(self.full())


BUILTINS: dict[str, Builtin] = _Table()
_get = dict.get  # the table's own lookup, without loading everything
# `loaded(name)`: the builtin if its module is imported, else None (the executor's per-command
# lookup: a C call, with `lookup` only for a name still in PENDING)
loaded: Callable[[str], Builtin | None] = dict.get.__get__(BUILTINS)  # type: ignore[attr-defined]
# POSIX special builtins (errors in them are fatal in posix mode; listed by `enable -s`)
SPECIAL = frozenset(
    {
        ":",
        ".",
        "break",
        "continue",
        "eval",
        "exec",
        "exit",
        "export",
        "readonly",
        "return",
        "set",
        "shift",
        "times",
        "trap",
        "unset",
        "source",
    }
)
DECLARATION = frozenset({"declare", "typeset", "local", "export", "readonly"})


def builtin(*names: str) -> Callable[[Builtin], Builtin]:
    """Register a builtin under `names` (the builtins package's modules use it as a decorator)."""

    def deco(fn: Builtin) -> Builtin:
        for n in names:
            dict.__setitem__(BUILTINS, n, fn)
            PENDING.discard(n)
        return fn

    return deco


def lookup(name: str) -> Builtin | None:
    """The builtin `name`, importing only its module the first time; None: not a builtin."""
    fn = _get(BUILTINS, name)
    if fn is None and name in PENDING:
        _import(HOME[name])
        PENDING.discard(name)  # (registered by its import; discarded even if it was not, so no retry)
        fn = _get(BUILTINS, name)
    return fn


def is_builtin(name: str) -> bool:
    """`name` names a builtin (loaded or not)."""
    return name in PENDING or dict.__contains__(BUILTINS, name)


def load() -> None:
    """Fill the whole table: import every builtin module."""
    for module in sorted(set(HOME.values())):
        _import(module)
    PENDING.clear()


def _import(module: str) -> None:
    from .. import builtins  # (the interpreter's one import of its builtins)

    __import__(f"{builtins.__name__}.{module}")  # (importlib is not imported at start-up)
