"""Which commands exist, and where each is implemented.

Every command is declared once, by `@declare(...)` over its function (commands/record.py). For
laziness (`sandbash -c 'echo hi'` imports no command module) the names are looked up in
`commands/index.py`, which is GENERATED from those records by

    python tests/unit/commands/test_records.py --write-index

and checked by tests/unit/commands/test_records.py (a stale index fails the test, naming the
command). The index is therefore derived, never a second truth edited by hand; loading a command
checks that its record really answers to the name.

A `CommandTable` is what one `Bash` runs: the built-in commands plus that Bash's custom commands
(which replace a built-in of the same name). There is no process-wide registration.

Identity (what the policy decides on, see policy.py): `spells` declares that names are spellings of
ONE implementation (`egrep` is `grep -E`, `zcat` is `gzip -dc`, `dir` is `ls -C -b`, `[` is `test`
wanting a closing `]`); `uses` declares a program with a front end of its own that runs another
implementation's engine (`rg` searches with grep's matcher, `tar -z` compresses with gzip's codec).
"""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import sys
from collections.abc import Iterable

from .index import INDEX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .record import CommandRecord, Effects
# (record.py, with the command context and the option parser, is imported by the first command
# module loaded or custom record: a run of builtins alone, `echo hi`, needs neither)

_LOADED: dict[str, CommandRecord] = {}
_IMPORT_LOCK = _thread.RLock()


HOST_PREFIX = "host:"  # the index's key for a host-mode variant (`host:uname`)
# The interpreter's own names: not records (the executor runs a child shell for them), but one
# implementation for the policy, so a rule about bash covers sh
SHELLS: dict[str, str] = {"bash": "bash", "sh": "bash"}


def _load(name: str) -> CommandRecord | None:
    """The built-in record for `name` (its module imported on first use)."""
    found = _LOADED.get(name)
    if found is not None:
        return found
    entry = INDEX.get(name)
    if entry is None:
        return None
    module_name, attr = entry[0], entry[1]
    # Pipeline stages load their commands from several threads at once; two threads importing
    # sibling modules of one package can trip the import system's deadlock detector.
    with _IMPORT_LOCK:
        # (__import__, not importlib.import_module: the importlib package and warnings are ~1.3 M
        # instructions of a start-up that imports nothing else through them)
        module = sys.modules.get(qualified := f"sandbash.commands.{module_name}")
        if module is None:
            __import__(f"sandbash.commands.{module_name}")  # (the name spelled out: test_no_host_access)
            module = sys.modules[qualified]
    from .record import CommandRecord  # (loaded by now: the command's module declared itself with it)

    record = getattr(module, attr, None)
    if not isinstance(record, CommandRecord) or name.removeprefix(HOST_PREFIX) not in record.names:
        raise ImportError(
            f"commands/index.py is stale: {name} is not declared at {module_name}.{attr} "
            "(python tests/unit/commands/test_records.py --write-index)"
        )
    _LOADED[name] = record
    return record


_FAMILIES: dict[str, frozenset[str]] = {}


def _families() -> dict[str, frozenset[str]]:
    """implementation -> its spellings, for the families of the index (computed once)."""
    if not _FAMILIES:
        groups: dict[str, set[str]] = {}
        for n, entry in INDEX.items():
            groups.setdefault(entry[2], set()).add(n)
        for n, family in SHELLS.items():
            groups.setdefault(family, set()).add(n)
        _FAMILIES.update({k: frozenset(v) for k, v in groups.items()})
    return _FAMILIES


def _index_family(name: str) -> str:
    entry = INDEX.get(name)
    return entry[2] if entry is not None else SHELLS.get(name, name)


class CommandTable:
    """The commands one sandbox runs: the built-ins of the index plus its own custom records."""

    def __init__(self, custom: Iterable[CommandRecord] = ()) -> None:
        self.custom: dict[str, CommandRecord] = {}
        for record in custom:
            from .record import CommandRecord  # (only with custom commands)

            if not isinstance(record, CommandRecord):
                raise TypeError(f"not a sandbash command: {record!r} (use sandbash.custom.command)")
            for n in record.names:
                self.custom[n] = record

    def lookup(self, name: str, host: bool = False) -> CommandRecord | None:
        """The record `name` runs; `host`: in host mode (a host variant first, if there is one)."""
        record = self.custom.get(name)
        if record is not None:
            return record
        if host and HOST_PREFIX + name in INDEX:
            return _load(HOST_PREFIX + name)
        return _load(name) if HOST_PREFIX not in name else None

    def known(self, name: str) -> bool:
        """Whether `name` is a command here (without importing its module)."""
        return name in self.custom or (name in INDEX and HOST_PREFIX not in name)

    def needs_host(self, name: str) -> bool:
        """A command that exists only in host mode (ps, ss, systemctl)."""
        if name in self.custom:
            return self.custom[name].host_only
        entry = INDEX.get(name)
        return entry is not None and entry[5]

    def needs_network(self, name: str) -> bool:
        """A command that exists only when the sandbox has a network (curl, wget)."""
        record = self.custom.get(name)
        if record is not None:
            return record.network
        entry = INDEX.get(name)
        return entry is not None and entry[4]

    def names(self) -> list[str]:
        """Every command name (built-in and custom), sorted."""
        return sorted({n for n in INDEX if HOST_PREFIX not in n} | set(self.custom))

    def summaries(self) -> dict[str, str]:
        """name -> one-line summary of the custom commands."""
        return {n: r.summary for n, r in self.custom.items()}

    def implementation(self, name: str) -> str:
        """The implementation a command name spells (`zcat` -> `gzip`); the name itself otherwise."""
        record = self.custom.get(name)
        return record.family(name) if record is not None else _index_family(name)

    def spellings(self, name: str) -> frozenset[str]:
        """Every name of the implementation `name` spells (itself included)."""
        impl = self.implementation(name)
        members = {n for n in _families().get(impl, ()) if n not in self.custom}
        members |= {n for n, r in self.custom.items() if r.family(n) == impl}
        members.add(name)
        return frozenset(members)

    def effects(self, name: str) -> Effects | None:
        """What the command does with files, for the static check (None: not modelled)."""
        record = self.custom.get(name)
        if record is not None:
            return record.effects
        entry = INDEX.get(name)
        if entry is None:
            return None
        from .record import Effects

        return Effects(entry[6])

    def engines(self, name: str) -> frozenset[str]:
        """The implementations whose engine `name` runs behind a front end of its own (`rg` -> grep)."""
        record = self.custom.get(name)
        if record is not None:
            return record.uses
        entry = INDEX.get(name)
        return frozenset(entry[3]) if entry is not None else frozenset()


# the built-in commands alone (what a Bash without custom commands runs)
BUILTIN_TABLE = CommandTable()


def implementation(name: str) -> str:
    return BUILTIN_TABLE.implementation(name)


def spellings(name: str) -> frozenset[str]:
    return BUILTIN_TABLE.spellings(name)


def engines(name: str) -> frozenset[str]:
    return BUILTIN_TABLE.engines(name)


def names() -> list[str]:
    """Every built-in command name, sorted (a sandbox's own list: `bash.commands.names()`)."""
    return BUILTIN_TABLE.names()


known_names = names


def all_records() -> list[CommandRecord]:
    """Every built-in record, found by importing every module under sandbash.commands (for the
    index generator and the tests; never on a run's path)."""
    import importlib
    import pkgutil

    from . import __path__ as package_path
    from .record import CommandRecord

    seen: dict[int, CommandRecord] = {}
    for info in pkgutil.walk_packages(package_path, "sandbash.commands."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, CommandRecord) and value.module == info.name:
                seen[id(value)] = value
    return sorted(seen.values(), key=lambda r: (r.module or "", r.names))


def render_index(records: Iterable[CommandRecord]) -> str:
    """The text of commands/index.py for `records`."""
    rows: list[str] = []
    for r in records:
        assert r.module is not None and r.attr is not None
        module = r.module.removeprefix("sandbash.commands.")
        for n in r.names:
            key = HOST_PREFIX + n if r.host_variant else n
            effects = r.effects.value if r.effects is not None else None
            rows.append(
                f"    {key!r}: ({module!r}, {r.attr!r}, {r.family(n)!r}, {tuple(sorted(r.uses))!r}, "
                f"{r.network!r}, {r.host_only!r}, {effects!r}),"
            )
    rows.sort()
    return (
        '"""GENERATED from the @declare records by `python tests/unit/commands/test_records.py --write-index`:\n'
        "do not edit. name -> (module under sandbash.commands, attribute, implementation it spells,\n"
        "engines it uses, needs a network, exists only in host mode, its Effects); `host:NAME`: the host-mode\n"
        'variant."""\n\n'
        "INDEX: dict[str, tuple[str, str, str, tuple[str, ...], bool, bool, str]] = {\n"
        + "\n".join(rows)
        + "\n}\n"
    )


if __name__ == "__main__":
    # print the index text; tests/unit/commands/test_records.py --write-index writes the file
    print(render_index(all_records()), end="")
