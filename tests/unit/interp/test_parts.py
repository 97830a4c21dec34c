"""The interpreter's parts (interp/shell.py composes them): wiring, forks, the evaluator run over
a fake executor, the run's composed gates, and the one seam through which the interpreter reaches
its builtins."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.audit import Audit, Recorder
from sandbash.interp import builtin_table
from sandbash.interp.shell import Shell
from sandbash.limits import Limits
from sandbash.stdio.streams import BufferWriter
from sandbash.syntax import ast as A
from sandbash.syntax.parser import parse

INTERP = Path(__file__).resolve().parents[3] / "src" / "sandbash" / "interp"


def new_shell() -> Shell:
    sh, _ = Bash()._new_shell(Limits(), None, {}, "/home/user", b"", BufferWriter(), BufferWriter(), "c")
    return sh


def test_parts_are_wired_to_one_shell_and_state() -> None:
    sh = new_shell()
    parts = (sh.va, sh.rd, sh.ex, sh.pr, sh.ev)
    assert all(p.sh is sh and p.state is sh.state for p in parts)
    assert sh.ev.ex is sh.ex and sh.ex.ev is sh.ev and sh.rd.ev is sh.ev and sh.pr.ev is sh.ev
    assert sh.ev.pr is sh.ex.pr is sh.pr and sh.pr.ex is sh.ex
    assert sh.ev.va is sh.ex.va is sh.rd.va is sh.va and sh.ev.rd is sh.ex.rd is sh.rd
    assert sh.ev.expander is sh.ex.expander is sh.rd.expander is sh.expander
    # the shell's facade is the parts' own methods, not wrappers
    assert sh.set_var == sh.va.set_var and sh.execute == sh.ev.execute
    assert sh.xtrace_line == sh.ex.xtrace_line


def test_a_fork_has_parts_of_its_own() -> None:
    sh = new_shell()
    sh.set_var("x", "parent")
    child = sh.fork()
    assert child.ev is not sh.ev and child.ex.sh is child and child.va.state is child.state
    child.set_var("x", "child")
    assert sh.get_str("x") == "parent" and child.get_str("x") == "child"


class FakeExecutor:
    """Runs no command: each simple command's first word picks its status (`false`: 1, `st3`: 3)."""

    def __init__(self, sh: Shell) -> None:
        self.sh = sh
        self.ran: list[str] = []

    def exec_pipeline(self, node: A.Pipeline) -> int:  # `!` and single stages only
        status = self.sh.ev.execute(node.cmds[0])
        return int(not status) if node.negate else status

    def exec_simple(self, cmd: A.SimpleCommand) -> int:
        name = cmd.words[0].text
        self.ran.append(name)
        status = 1 if name == "false" else int(name[2:]) if name.startswith("st") else 0
        self.sh.state.last_status = status
        return status


@pytest.mark.parametrize(
    ("script", "ran", "status"),
    [
        ("a; b; c", ["a", "b", "c"], 0),
        ("false && a || b", ["false", "b"], 0),
        ("true || a; st3", ["true", "st3"], 3),
        ("if false; then a; elif st2; then b; else c; fi", ["false", "st2", "c"], 0),
        ("if true; then st4; fi", ["true", "st4"], 4),
        ("! false && a", ["false", "a"], 0),
        ("case x in y) a;; x) b;& z) c;; *) d;; esac", ["b", "c"], 0),
        ("{ a; st5; }", ["a", "st5"], 5),
        ("f() { st6; }; a", ["a"], 0),  # a definition runs nothing
    ],
)
def test_evaluator_decides_what_runs(script: str, ran: list[str], status: int) -> None:
    sh = new_shell()
    fake = FakeExecutor(sh)
    sh.ev.ex = fake  # type: ignore[assignment]
    assert sh.ev.run_list(parse(script)) == status
    assert fake.ran == ran


def test_runtime_gates_are_composed_once_per_run_and_follow_each_setting() -> None:
    sh = new_shell()
    rt = sh.rt
    assert rt.gates is None  # no policy, no embedder gate, no audit: the short path
    rec = Recorder(None)
    rt.audit = rec
    assert rt.gates is None  # a recorder without command events changes nothing
    rt.audit_commands = True
    assert rt.gates is not None and rt.gates.recorder is rec
    rt.bind_run(None, None, False)
    assert rt.gates is None
    assert rt.with_budget(rt.budget).gates is rt.gates


def test_a_run_records_refused_and_run_commands_through_its_gates() -> None:
    bash = Bash(command_gate=lambda argv: "no" if argv[0] == "cat" else None, audit=Audit())
    result = bash.exec("echo hi; cat /dev/null; echo $?")
    assert (result.stdout, result.stderr) == ("hi\n126\n", "bash: line 1: cat: no\n")
    commands = [
        (e["kind"], e.get("argv"), e.get("status")) for e in result.events if e["kind"] != "run.start"
    ]
    assert commands[:6] == [
        ("command.start", ["echo", "hi"], None),
        ("command.end", None, 0),
        ("command.start", ["cat", "/dev/null"], None),
        ("command.end", None, 126),  # refused, recorded
        ("command.start", ["echo", "126"], None),
        ("command.end", None, 0),
    ]


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names += [base] + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return names


def test_the_interpreter_reaches_its_builtins_through_one_seam_only() -> None:
    reaching = sorted(
        p.name
        for p in INTERP.glob("*.py")
        if any(
            n.startswith("..builtins")
            or n in ("...builtins", "sandbash.builtins")
            or n == "...builtins"
            or n.endswith("..builtins")
            for n in _imports(p)
        )
    )
    assert reaching == ["builtin_table.py"]


def test_the_seam_fills_the_table() -> None:
    builtin_table.load()
    assert {"cd", "echo", "declare", "wait", "kill"} <= set(builtin_table.BUILTINS)
    assert set(builtin_table.BUILTINS) | {"source"} >= builtin_table.SPECIAL
