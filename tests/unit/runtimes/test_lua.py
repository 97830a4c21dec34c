"""lua / lua5.4 beyond what the spec table (tests/spec/cases/runtime_lua.txt, checked against the
real lua5.4) can show: the sandbox's policy and files, the missing-package message, what the
reduced standard library leaves out, the state freed with the run, limits that pcall cannot catch."""

from __future__ import annotations

import gc
import importlib
from typing import Any

import pytest

from sandbash import Bash, ExecutionLimitError, Limits, Policy

lupa = pytest.importorskip("lupa.lua54")


def run(script: str, **kw: Any) -> tuple[str, str, int]:
    r = Bash(**kw).exec(script)
    return r.stdout, r.stderr, r.exit_code


def lua(code: str, **kw: Any) -> tuple[str, str, int]:
    return run("lua -e '" + code.replace("'", "'\\''") + "'", **kw)


@pytest.mark.parametrize(
    ("code", "out"),
    [
        # what the prelude removes, and what stays of the base library
        ("print(debug, python, package.loadlib, package.searchers)", "nil\tnil\tnil\tnil\n"),
        (
            "print(type(string), type(table), type(math), type(utf8), type(coroutine))",
            "table\ttable\ttable\ttable\ttable\n",
        ),
        ("print(pcall(require, 'debug'))", None),
        ("print(load(string.dump(function() end)))", "nil\tattempt to load a binary chunk (mode is 't')\n"),
        ("print(load('return 1', 'x', 'b'))", "nil\tbinary chunks are not supported in sandbash\n"),
        (
            "print(require('string') == string, require('os') == os, package.loaded.io == io)",
            "true\ttrue\ttrue\n",
        ),
        ("for k, v in pairs(_G) do if type(v) == 'userdata' then print(k) end end", ""),
        ("print(os.setlocale(), os.setlocale('fr_FR'))", "C\tnil\n"),
    ],
)
def test_reduced_standard_library(code: str, out: str | None) -> None:
    stdout, stderr, status = lua(code)
    assert status == 0, stderr
    if out is not None:
        assert stdout == out
    else:
        assert stdout.startswith("false\tmodule 'debug' not found")


@pytest.mark.parametrize("probe", ["t.f.__class__", "t.f.__globals__", "t.f.__call__", "t.f.__self__"])
def test_python_attributes_are_refused(probe: str) -> None:
    # the host functions are out of reach; even a Python object handed to Lua gives no attribute
    from sandbash.commands.runtimes.lua import _no_attributes

    rt = lupa.LuaRuntime(
        encoding=None, attribute_filter=_no_attributes, register_eval=False, register_builtins=False
    )
    ok, err = rt.execute(
        f"local t = ... return pcall(function() return {probe} end)".encode(), rt.table_from({b"f": print})
    )
    assert ok is False and "not accessible" in str(err)


def test_files_follow_the_policy() -> None:
    policy = Policy(paths=["/data:ro", "/tmp:rw", "/home/user:rw"])
    out, err, status = lua(
        'print(io.open("/data/a.txt"):read("a")) print(io.open("/data/new.txt", "w")) '
        'print(os.remove("/data/a.txt")) print(io.open("/tmp/ok.txt", "w") ~= nil)',
        files={"/data/a.txt": "A\n"},
        policy=policy,
    )
    assert status == 0, err
    assert out == (
        "A\n\n"
        "nil\t/data/new.txt: Permission denied [policy: paths.read-only]\t13\n"
        "nil\t/data/a.txt: Permission denied [policy: paths.read-only]\t13\n"
        "true\n"
    )


def test_files_are_the_sandbox_files() -> None:
    bash = Bash(files={"/home/user/in.txt": "one\ntwo\n"})
    r = bash.exec(
        'lua -e \'local f = io.open("copy.txt", "w") for l in io.lines("in.txt") do f:write(l:upper(), "\\n") end f:close()\''
        ' && cat copy.txt && lua -e \'print(io.popen("wc -l < copy.txt"):read("n"))\''
    )
    assert r.stdout == "ONE\nTWO\n2\n", r.stderr


def test_popen_runs_through_the_sandbox_policy() -> None:
    policy = Policy(["lua", "echo"], paths=["/home/user:rw", "/tmp:rw"])
    out, _err, _status = lua(
        'print(io.popen("echo allowed"):read("a")) print(os.execute("cat /etc/passwd"))', policy=policy
    )
    assert out.startswith("allowed\n\n")
    assert out.endswith("nil\texit\t126\n"), out


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_lupa(name: str, *a: Any) -> Any:
        if name.startswith("lupa"):
            raise ImportError(name)
        return real(name, *a)

    monkeypatch.setattr(importlib, "import_module", no_lupa)
    out, err, status = lua("print(1)")
    assert status == 127 and out == ""
    assert err == "lua: runtime not installed (pip install 'sandbash[lua]')\n"


def test_interactive_mode_is_refused() -> None:
    _out, err, status = run("lua -i")
    assert status == 1 and "interactive mode is not supported" in err


def test_exit_stops_the_remaining_chunks() -> None:
    out, _err, _status = run("lua -e 'print(1) os.exit(0)' -e 'print(2)'; echo $?")
    assert out == "1\n0\n"


def test_exit_inside_coroutine_and_pcall() -> None:
    out, _, _ = run(
        'lua -e \'coroutine.wrap(function() pcall(os.exit, 5) print("no") end)() print("no")\'; echo $?'
    )
    assert out == "5\n"


@pytest.mark.parametrize(
    "code",
    [
        "while true do end",
        "while true do pcall(function() while true do end end) end",
        "local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) end",
        "while true do xpcall(function() while true do end end, function(e) return e end) end",
    ],
)
def test_deadline_cannot_be_caught(code: str) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec("lua -e '" + code + "'", limits=Limits(timeout=0.5))
    assert e.value.limit == "timeout"


def test_memory_limit_is_the_runs() -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(
            "lua -e 'local t = {} for i = 1, 1e8 do t[i] = tostring(i) end'",
            limits=Limits(max_memory=32 << 20, timeout=30),
        )
    assert e.value.limit == "max_memory"


def test_output_so_far_is_kept_when_a_limit_ends_the_run() -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(
            'lua -e \'io.write("partial") print(" line") while true do end\'', limits=Limits(timeout=0.5)
        )
    assert e.value.result is not None and e.value.result.stdout == "partial line\n"


def test_lua_state_is_freed_with_the_run() -> None:
    # a state kept alive by a reference cycle would be closed by the cycle collector later, running
    # Lua finalizers in the middle of another allocation (lupa crashed doing that)
    bash = Bash()
    scripts = [
        "lua -e 'print(1)'",
        "lua -e 'error(\"x\")'",
        "lua -e 'os.exit(2)'",
        "lua -e 'for i = 1, 1e6 do print(i) end' | head -1",
        "lua -e 'setmetatable({}, {__gc = print})'",
    ]
    for s in scripts:
        bash.exec(s)
    with pytest.raises(ExecutionLimitError):
        bash.exec("lua -e 'while true do end'", limits=Limits(timeout=0.3))
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, lupa.LuaRuntime)]


def test_timeout_command_stops_lua_with_124() -> None:
    out, _, _ = run("timeout 0.5 lua -e 'while true do pcall(function() while true do end end) end'; echo $?")
    assert out == "124\n"
