"""Nothing reaches the host unless it goes through the one module that owns
that capability: a walk over the package's syntax trees."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "src" / "sandbash"

BANNED_MODULES = {
    "subprocess",
    "socket",
    "ctypes",
    "pty",
    "multiprocessing",
    "shutil",
    "pathlib",
    "tempfile",
    "http",
    "urllib",
    "ftplib",
    "smtplib",
    "telnetlib",
    "signal",
    "resource",
    "mmap",
    "fcntl",
    "sqlite3",
}
BANNED_OS_CALLS = {
    "system",
    "popen",
    "fork",
    "forkpty",
    "execv",
    "execve",
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "execvp",
    "execvpe",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "posix_spawn",
    "posix_spawnp",
    "kill",
    "killpg",
}
# modules that own a host capability (relative to src/sandbash)
OWNERS_OS = {
    "vfs/host.py",
    "vfs/hostio.py",
    "vfs/overlay.py",
    "vfs/readwrite.py",
    "vfs/sqlite.py",
    "stdio/hostin.py",  # a descriptor the embedder hands over as stdin
    "host/procfs.py",  # host mode: the one reader of /proc, /sys, uname and statvfs (sandbash.host)
    "cli/app.py",
    "agent/mcp_server.py",  # the host-facing programs: their own environment (SANDBASH_*)
    "switches.py",  # reads only sandbash's own SANDBASH_TREE_WALKER switch, once, at import
    # box mode: the service's socket and config file, the alias client, and the one module that
    # starts host programs (a [tool.<name>] table, inside bubblewrap)
    "box/service.py",
    "box/alias.py",
    "box/spawn.py",
    "box/egress_relay.py",
}  # ... and, inside a contained tool's sandbox (never imported), its egress relay
OWNERS_OPEN = OWNERS_OS | {"cli/app.py"}
OWNERS_NET = {
    "net/client.py",
    "net/transport.py",
    "agent/mcp_server.py",
    "box/service.py",
    "box/alias.py",  # box mode: the shell service's Unix socket, both ends
    "box/egress.py",
    "box/egress_relay.py",
}  # ... and a contained tool's egress proxy and its relay
# python3's Monty worker pool: getpid (a forked child starts its own pool) and kill of its own
# worker process when the run is cancelled or past its deadline (the worker has no host access)
OWNERS_WORKER = {
    "commands/runtimes/python_worker.py",
    "commands/runtimes/js_worker.py",  # node's QuickJS worker: getpid (a spare is per process)
    "commands/runtimes/js_child.py",
}  # ... and inside it, its own TZ (the sandbox's, not the host's)
# node/js: QuickJS runs in a worker process of its own (its bindings cannot call Python under a
# time limit, so the deadline kills the process); the script inside reaches only the host requests
# js_host.py answers over the pipe (test_runtimes_lua_js.py shows it cannot reach the host)
OWNERS_SUBPROCESS = {
    "commands/runtimes/js_worker.py",
    "box/spawn.py",  # box mode: a [tool.<name>] host program, only inside bubblewrap
    "box/egress_relay.py",
}  # ... started by the relay, its parent inside that sandbox
# ... and that worker sets its own CPU limit (it must end even if the sandbash that started it dies);
# sqlite3's worker (started by js_worker.py too) caps its data segment at the run's memory left
OWNERS_RESOURCE = {"commands/runtimes/js_child.py", "commands/runtimes/sqlite_child.py"}
# the optional worker pool of a service (`sandbash mcp --workers N`): worker processes with an
# address-space limit, killed past a call's time limit (sandbash.agent.workers)
OWNERS_POOL = {"agent/workers.py"}
# SQLite opens host files: the SQLite-backed filesystem and session store (files the embedder names),
# and the sqlite3 command, whose databases are in-memory copies of sandbox files (ATTACH and host
# temporary files refused; in its worker process, sqlite_child.py)
OWNERS_SQLITE = {
    "vfs/sqlite.py",
    "sessions/stores.py",
    "commands/runtimes/sqlite.py",
    "commands/runtimes/sqlite_child.py",
}
OWNERS_SIGNAL = {
    "cli/app.py",  # the command-line program's own SIGINT/SIGTERM: cancel the run quietly
    "box/spawn.py",
}  # box mode: SIGKILL to the init of a host program's sandbox (its own namespace)
OWNERS_KILL = {"box/spawn.py"}  # ... at the deadline, or when its client has gone
# awk and jq compile their parsed programs to Python code (never user text
# pasted into source: literals go through repr/constants)
# modules that compile generated Python: awk and jq programs (from parsed, escaped trees), the
# lean dataclasses' __init__ (leanclass.py: from the package's own class definitions, never script
# text), arithmetic (arithgen.py), a hot `(( ))` command around arithgen's statements (arithcmd.py),
# a hot `for ((;;))` loop's steps around them (arithfor.py), hot `while`/`until` loops and loop
# bodies (loopgen.py), hot function bodies (funcgen.py) and a slice of names (slicefn.py: fixed
# text by which operand is a name), all from parsed trees with every script-derived value a
# namespace constant, never text in the source; textcache.py's function_of is the one place those
# and steps.py have their text run (once per process)
OWNERS_CODEGEN = (
    "commands/awk/",
    "commands/jq/",
    "leanclass.py",
    "expand/arithgen.py",
    "interp/arithcmd.py",
    "interp/arithfor.py",
    "interp/funcgen.py",
    "interp/loopgen.py",
    "interp/slicefn.py",
    "interp/steps.py",
    "textcache.py",
)
# modules that load their own package's submodules on first use by a name from a literal table of
# that package (commands, builtins, filesystem backends): `__import__` instead of importlib, which is
# not imported at start-up. The name is always the package's own prefix plus a table entry.
OWNERS_IMPORT = {
    "commands/registry.py",
    "interp/builtin_table.py",
    "vfs/__init__.py",
    # the lazy packages: a name of their own table loads its submodule on first use
    "__init__.py",
    "commands/grep/__init__.py",
    "commands/shellutils/__init__.py",
    "commands/textbasic/__init__.py",
    "regex/__init__.py",  # (the engine, when a name of it is first read)
}
# the package's own modules loaded from their cached bytecode (pycache.py): it reads files under the
# package's directories only, for module names of the package's own imports, and runs those bytes
OWNERS_BYTECODE = {"pycache.py"}
# the C modules under os, io, socket, subprocess and the import system reach the same host: each
# only in the modules that own what it reaches (an import of one elsewhere is a way around the rules above)
LOW_LEVEL: dict[str, set[str]] = {
    "posix": OWNERS_OS | OWNERS_WORKER | OWNERS_BYTECODE,
    "nt": OWNERS_OS | OWNERS_WORKER,
    "_io": OWNERS_BYTECODE,
    "marshal": OWNERS_BYTECODE,
    "_imp": OWNERS_BYTECODE,
    "_frozen_importlib": OWNERS_BYTECODE,
    "_frozen_importlib_external": OWNERS_BYTECODE | {"cli/app.py"},
    "_socket": OWNERS_NET,
    "_posixsubprocess": OWNERS_SUBPROCESS,
}


def _files() -> list[Path]:
    return sorted(PKG.rglob("*.py"))


def _rel(p: Path) -> str:
    return p.relative_to(PKG).as_posix()


def test_no_banned_imports_or_calls() -> None:
    problems: list[str] = []
    for path in _files():
        rel = _rel(path)
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    top = name.split(".")[0]
                    if top == "os" and rel not in OWNERS_OS | OWNERS_WORKER:
                        problems.append(f"{rel}:{node.lineno}: imports os")
                    absolute = isinstance(node, ast.Import) or not node.level  # (not sandbash.posix)
                    if absolute and top in LOW_LEVEL and rel not in LOW_LEVEL[top]:
                        problems.append(f"{rel}:{node.lineno}: imports {name}")
                    if (
                        top in BANNED_MODULES
                        and not (top in {"socket", "http", "urllib"} and rel in OWNERS_NET)
                        # urllib.parse is string functions only (quote, urlparse): no I/O of any kind
                        and name != "urllib.parse"
                        and not (top == "signal" and rel in OWNERS_SIGNAL)
                        and not (top == "subprocess" and rel in OWNERS_SUBPROCESS)
                        and not (top == "resource" and rel in OWNERS_RESOURCE | OWNERS_POOL)
                        and not (top == "multiprocessing" and rel in OWNERS_POOL)
                        and not (top == "sqlite3" and rel in OWNERS_SQLITE)
                    ):
                        problems.append(f"{rel}:{node.lineno}: imports {name}")
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name) and func.id == "open" and rel not in OWNERS_OPEN:
                    problems.append(f"{rel}:{node.lineno}: calls open()")
                if (
                    isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "os"
                ):
                    if func.attr in BANNED_OS_CALLS and not (
                        func.attr == "kill" and rel in OWNERS_WORKER | OWNERS_KILL
                    ):
                        problems.append(f"{rel}:{node.lineno}: calls os.{func.attr}")
                if (
                    isinstance(func, ast.Name)
                    and func.id == "function_of"
                    and not rel.startswith(OWNERS_CODEGEN)
                ):
                    problems.append(f"{rel}:{node.lineno}: runs generated text through function_of()")
                if isinstance(func, ast.Name) and func.id in {"eval", "exec", "compile", "__import__"}:
                    if (
                        not (func.id in {"exec", "compile"} and rel.startswith(OWNERS_CODEGEN))
                        and not (func.id == "exec" and rel in OWNERS_BYTECODE)
                        and not (func.id == "__import__" and rel in OWNERS_IMPORT and _own_package_name(node))
                    ):
                        problems.append(f"{rel}:{node.lineno}: calls {func.id}()")
    assert not problems, "\n".join(problems)


def _own_package_name(call: ast.Call) -> bool:
    """`__import__`'s module name starts with the package's own name: an f-string or a `+` whose
    first part is `sandbash.` text, `__name__` or `X.__name__` (never a name from elsewhere)."""
    if not call.args:
        return False
    arg = call.args[0]
    first = arg.values[0] if isinstance(arg, ast.JoinedStr) and arg.values else arg
    while isinstance(first, ast.BinOp):
        first = first.left
    if isinstance(first, ast.FormattedValue):
        first = first.value
    if isinstance(first, ast.Constant):
        return isinstance(first.value, str) and first.value.startswith("sandbash.")
    if isinstance(first, ast.Name):
        return first.id == "__name__"
    return isinstance(first, ast.Attribute) and first.attr == "__name__"


def test_the_walk_sees_the_package() -> None:
    rels = {_rel(p) for p in _files()}
    assert "interp/shell.py" in rels and "api.py" in rels
