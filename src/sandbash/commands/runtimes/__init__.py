"""Embedded language runtimes run as sandbash commands: `python3`/`python` (Monty), `sqlite3`
(stdlib sqlite3 over a database file of the virtual filesystem), and the ones rt-lua-js adds.

Each reads and writes files only through the command context's filesystem facade (policy, quota),
its streams are the command's streams, and the run's deadline, cancellation and memory budget
stop it like any other command. `common.py` holds the invocation helpers they share.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

# runtime command -> (the optional module it needs, or "" for none; one sentence for a model)
NOTES: dict[str, tuple[str, str]] = {
    "python3": (
        "pydantic_monty",
        "python3/python run Python in Monty, a sandboxed subset of Python 3 (json, re, "
        "math, datetime, collections, itertools, csv, textwrap, statistics, open/os/pathlib on the "
        "sandbox's files, subprocess/os.system running sandbash commands; no "
        "class inheritance, generators or third-party packages)",
    ),
    "sqlite3": ("", "sqlite3 is the SQLite shell (3.40) over database files of the sandbox"),
    "lua": (
        "lupa",
        "lua/lua5.4 run Lua 5.4 (-e CODE, a file or stdin; string, table, math, utf8, "
        "coroutine, io and os over the sandbox's files, io.popen/os.execute through this shell)",
    ),
    "node": (
        "_quickjs",
        "node/js run JavaScript in QuickJS (node -e/-p, a file or stdin; console, process, "
        "Buffer, timers, promises, require of fs, path, child_process.execSync, readline, util, os, "
        "events, assert and local files; no npm packages or ES module import syntax)",
    ),
}
# host programs a model may reach for, and the runtime command that provides each here
HOST_PROGRAMS = (
    ("python", "python3"),
    ("node", "node"),
    ("git", ""),
    ("package managers", ""),
    ("compilers", ""),
)


def _usable(name: str) -> bool:
    module = NOTES[name][0]
    return not module or importlib.util.find_spec(module) is not None


def runtime_notes(names: Iterable[str]) -> list[str]:
    """A sentence for each embedded runtime among `names` that can run here (its package installed)."""
    present = set(names)
    return [NOTES[n][1] for n in NOTES if n in present and _usable(n)]


def unavailable_programs(names: Iterable[str]) -> str:
    """The usual host programs this sandbox does not offer: `python, node, git, ...` without the ones a
    runtime provides here."""
    present = {n for n in names if n not in NOTES or _usable(n)}
    return ", ".join(prog for prog, cmd in HOST_PROGRAMS if not cmd or cmd not in present)
