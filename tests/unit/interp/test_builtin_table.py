"""The lazy builtin table (interp/builtin_table.py): `HOME` names the module of every builtin, the
executor imports only the modules a script's builtins need, and any whole-table read sees all."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from sandbash import Bash

# runs in a fresh interpreter: which builtin-defining modules a script's run imports
_PROBE = textwrap.dedent("""
    import json, sys
    from sandbash import Bash
    from sandbash.interp.builtin_table import HOME
    Bash().exec(sys.argv[1])
    homes = {"sandbash.builtins." + m for m in HOME.values()}
    print(json.dumps(sorted(m.rsplit(".", 1)[1] for m in sys.modules if m in homes)))
""")

# runs in a fresh interpreter: every registration (name, module), before the table dedups them
_REGISTRATIONS = textwrap.dedent("""
    import json, pkgutil, importlib
    import sandbash.interp.builtin_table as t
    seen = []
    real = t.builtin
    def recording(*names):
        deco = real(*names)
        def wrap(fn):
            seen.extend((n, fn.__module__.rsplit(".", 1)[1]) for n in names)
            return deco(fn)
        return wrap
    t.builtin = recording
    import sandbash.builtins as pkg
    pkg.builtin = recording
    for info in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module("sandbash.builtins." + info.name)
    print(json.dumps(seen))
""")


def _run(code: str, *args: str) -> object:
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_home_names_the_module_of_every_builtin_and_nothing_else() -> None:
    seen = _run(_REGISTRATIONS)
    assert isinstance(seen, list)
    registered: dict[str, str] = {}
    for name, module in seen:
        assert name not in registered, f"{name} registered by {registered[name]} and {module}"
        registered[name] = module
    from sandbash.interp.builtin_table import HOME

    assert registered == HOME


@pytest.mark.parametrize(
    ("script", "loaded"),
    [
        ("echo hi", ["echo"]),
        ("x=1; echo $x; printf '%s' y", ["echo", "io"]),
        ("printf '%s' y", ["echo", "io"]),  # (io.py writes through echo.py's write_out)
        ("read -r x <<< a; echo $x", ["echo", "io"]),
        (": ; true", ["truefalse"]),
        ("false || : x; while false; do :; done; true --help", ["truefalse"]),
        (": ; true; exit 0", ["core", "truefalse"]),
        ("local x 2>/dev/null; echo", ["echo", "varcmds"]),
        ("cd /; pwd", ["dirs"]),
        ("[ -n x ] && test -z ''", ["testcmd"]),
        ("f() { return 0; }; f", ["core"]),
        ("ls / >/dev/null", []),
        ("nosuchcommand 2>/dev/null", []),
    ],
)
def test_a_run_imports_only_the_modules_of_the_builtins_it_runs(script: str, loaded: list[str]) -> None:
    assert _run(_PROBE, script) == loaded


@pytest.mark.parametrize(
    "script",
    [
        "type cd",
        "compgen -b | wc -l",
        "enable | wc -l",
        "help cd | head -1",
        "command -v popd",
        "builtin pushd /",
    ],
)
def test_whole_table_readers_see_every_builtin(script: str) -> None:
    assert _run(_PROBE, script) == [
        "compgen",
        "complete",
        "core",
        "dirs",
        "echo",
        "editing",
        "history",
        "io",
        "jobs",
        "misc",
        "testcmd",
        "truefalse",
        "ulimit",
        "varcmds",
    ]


@pytest.mark.parametrize(
    ("script", "out"),
    [
        (
            "type cd history ulimit",
            "cd is a shell builtin\nhistory is a shell builtin\nulimit is a shell builtin\n",
        ),
        ("compgen -b | wc -l", "61\n"),  # as bash 5.2
        ("command -v compopt; command -V wait", "compopt\nwait is a shell builtin\n"),
        ("enable -n echo; enable -a | grep -c 'enable -n echo'", "1\n"),
        ("echo() { printf 'f:%s\\n' \"$1\"; }; echo a; builtin echo b", "f:a\nb\n"),
    ],
)
def test_lookups_in_one_session_agree(script: str, out: str) -> None:
    r = Bash().exec(script)
    assert (r.stdout, r.exit_code) == (out, 0)
