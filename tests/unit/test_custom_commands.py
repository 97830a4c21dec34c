"""Custom commands (Command base, @command, entry points) and the Sandbox conveniences."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sandbash import Bash, ExecResult
from sandbash.agent.sandbox import ExecOptions, Sandbox, new_bash
from sandbash.commands.context import Ctx
from sandbash.custom import Command, Effects, command, load_entry_points


class Greet(Command):
    name = "test-greet"
    summary = "say hello"
    effects = Effects.NONE

    def execute(self, args: list[str], ctx: Ctx) -> ExecResult:
        who = " ".join(args) or ctx.env.get("USER", "?")
        return ExecResult(f"hello {who}\n".encode(), b"greeted\n" if args else b"", 0 if args else 3)


@command("test-upper", effects=Effects.READS)
def upper(args: list[str], ctx: Ctx) -> int:
    """Upper-case stdin, file by file through ctx.fs."""
    for path in args or ["-"]:
        ctx.out(ctx.read_input(path).upper())
    return 0


@command("test-runs", effects=Effects.NONE)
def runs(args: list[str], ctx: Ctx) -> int:
    """Run a sub-command through the interpreter."""
    return ctx.run(["echo", "sub", *args])


def test_subclass_command_in_a_script() -> None:
    bash = Bash(commands=[Greet()])
    r = bash.exec("test-greet world | tr a-z A-Z; test-greet; echo $?")
    assert r.stdout == "HELLO WORLD\nhello user\n3\n"
    assert r.stderr == "greeted\n"
    assert bash.commands.summaries()["test-greet"] == "say hello"


def test_decorated_commands_get_the_same_context() -> None:
    bash = Bash(files={"/d/a.txt": "abc\n"}, commands=[upper, runs])
    r = bash.exec("echo xyz | test-upper; test-upper /d/a.txt; test-runs 1 2 > /tmp/o; cat /tmp/o")
    assert r.stdout == "XYZ\nABC\nsub 1 2\n"
    assert "test-upper" in bash.commands.names()


def test_other_return_values() -> None:
    bash = Bash(
        commands=[
            command("test-text")(lambda args, ctx: "text\n"),
            command("test-none")(lambda args, ctx: None),
            command("test-false")(lambda args, ctx: False),
        ]
    )
    r = bash.exec("test-text; test-none; echo $?; test-false; echo $?")
    assert r.stdout == "text\n0\n1\n"


def test_policy_gate_applies_to_custom_commands() -> None:
    bash = Bash(
        command_gate=lambda argv: "not allowed" if argv[0] == "test-greet" else None, commands=[Greet]
    )
    r = bash.exec("test-greet x; echo $?")
    assert r.stdout == "126\n" and "not allowed" in r.stderr


def test_invalid_commands() -> None:
    with pytest.raises(ValueError):
        command("bad name")(lambda args, ctx: 0)
    with pytest.raises(TypeError):
        Bash(commands=[object()])  # type: ignore[list-item]


def test_entry_point_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sb_plugin_mod.py").write_text(
        "from sandbash.custom import command\n"
        "@command('test-plugin')\n"
        "def plugin(args, ctx):\n"
        "    return 'from plugin\\n'\n"
        "broken = 1\n"
    )
    dist = tmp_path / "sb_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sb-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[sandbash.commands]\ntest-plugin = sb_plugin_mod:plugin\nbroken = sb_plugin_mod:broken\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        records = load_entry_points(force=True)
        assert [r.name for r in records] == ["test-plugin"]  # the broken entry is logged and skipped
        assert new_bash().exec("test-plugin").stdout == "from plugin\n"  # what Sandbox, the tool, the CLI use
        assert Bash().exec("test-plugin").exit_code == 127  # a plain Bash gets only what it is given
    finally:
        sys.modules.pop("sb_plugin_mod", None)
        load_entry_points(force=True)


def test_sandbox_conveniences() -> None:
    sb = Sandbox.create(files={"/data/a.csv": "x,1\ny,2\n"}, env={"HOME": "/home/user", "SEP": ","})
    sb.write_files({"/data/b.csv": "z,3\n", "rel.txt": "relative\n"})
    r = sb.run_command('cat /data/*.csv | cut -d"$SEP" -f2 | paste -sd+ | bc')
    assert r.stdout == "6\n"
    assert sb.read_text("/home/user/rel.txt") == "relative\n"
    assert sb.read_file("/home/user/rel.txt") == sb.bash.read_file("rel.txt") == b"relative\n"
    assert sb.read_bytes("rel.txt") == b"relative\n"
    r = sb.run_command("pwd; echo $SEP$1; cat", ExecOptions(cwd="/data", stdin="in\n"), env={"SEP": ";"})
    assert r.stdout == "/data\n;\nin\n"
    r = sb.run_command('echo "[$SEP]"', env={}, replace_env=True)
    assert r.stdout == "[]\n"
    with pytest.raises(TypeError):
        sb.run_command("true", bogus=1)


def test_sandbox_async_and_session() -> None:
    import asyncio

    sb = Sandbox.create()
    assert asyncio.run(sb.arun_command("echo hi")).stdout == "hi\n"
    s = sb.session()
    s.exec("cd /tmp")
    assert s.exec("pwd").stdout == "/tmp\n"
