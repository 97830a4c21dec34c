"""`$( )`'s subshell: a lazy fork (ShellState.fork(lazy=True)) copies its parent's containers on
first read, a body of one reading echo/printf runs in place (cmdsub.py), and an ended substitution
that started no process is freed by reference counting (Shell.release)."""

from __future__ import annotations

import gc

import pytest

from sandbash import Bash
from sandbash.audit import Audit, ListSink
from sandbash.errors import ExecutionLimitError
from sandbash.interp.shell import Shell
from sandbash.interp.state import _FORK_COPIES, ShellState
from sandbash.limits import Limits
from sandbash.policy import Policy
from sandbash.shvars.vars import Var
from sandbash.stdio.streams import BufferWriter


def new_shell() -> Shell:
    sh, _ = Bash()._new_shell(Limits(), None, {}, "/home/user", b"", BufferWriter(), BufferWriter(), "c")
    return sh


def test_a_lazy_fork_copies_nothing_it_does_not_read() -> None:
    parent = new_shell().state
    child = parent.fork(lazy=True)
    assert child.fork_parent is parent
    assert child.vars.source is parent.vars  # the scopes are not copied yet
    assert not any(name in child.__dict__ for name in _FORK_COPIES)
    child.vars.scopes[0]["NEW"] = Var("x")  # the first read copies
    assert child.vars.source is None and "NEW" not in parent.vars.globals


# (container, how a subshell changes it in place, how to read it back)
CHANGES = [
    ("aliases", lambda d: d.__setitem__("ll", "ls -l"), lambda d: d.get("ll")),
    ("exported_funcs", lambda s: s.add("f"), lambda s: "f" in s),
    ("readonly_funcs", lambda s: s.add("f"), lambda s: "f" in s),
    ("traced_funcs", lambda s: s.add("f"), lambda s: "f" in s),
    ("parent_traps", lambda d: d.__setitem__("INT", "x"), lambda d: d.get("INT")),
    ("pipestatus", lambda lst: lst.append(9), lambda lst: 9 in lst),
    ("dirstack", lambda lst: lst.append("/d"), lambda lst: "/d" in lst),
    ("sources", lambda lst: lst.append("f.sh"), lambda lst: "f.sh" in lst),
    ("source_lines", lambda lst: lst.append((1, 0)), lambda lst: (1, 0) in lst),
    ("hashed", lambda d: d.__setitem__("ls", "command:/bin/ls"), lambda d: d.get("ls")),
    ("unspecial", lambda s: s.add("RANDOM"), lambda s: "RANDOM" in s),
    ("ulimits", lambda d: d.__setitem__("n", (1, 1)), lambda d: d.get("n")),
    ("completions", lambda d: d.__setitem__("git", {"-W": ["x"]}), lambda d: d.get("git")),
    ("history", lambda lst: lst.append("ls"), lambda lst: "ls" in lst),
]


def test_every_container_a_fork_copies_is_in_the_table() -> None:
    assert {name for name, _, _ in CHANGES} == set(_FORK_COPIES) - {"rng"}


@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize(("name", "change", "read"), CHANGES, ids=[c[0] for c in CHANGES])
def test_a_subshell_changes_its_own_copy(name: str, change, read, lazy: bool) -> None:  # type: ignore[no-untyped-def]
    parent = new_shell().state
    child = parent.fork(lazy=lazy)
    change(getattr(child, name))
    assert read(getattr(child, name))
    assert not read(getattr(parent, name))
    # a fork of the lazy fork (a job started inside `$( )`) copies the child's, not the parent's
    # (parent_traps: a fork's are its parent's traps, not the parent's parent_traps)
    grandchild = child.fork()
    assert grandchild.fork_parent is None
    assert name == "parent_traps" or read(getattr(grandchild, name))


def test_an_eager_fork_of_a_lazy_fork_reads_through_to_the_grandparent() -> None:
    sh = new_shell()
    sh.state.aliases["a"] = "b"
    sh.set_var("V", "1")
    child = sh.state.fork(lazy=True)
    grandchild = child.fork()  # materializes the child's containers from the parent on the way
    assert grandchild.aliases == {"a": "b"} and grandchild.vars.find("V").value == "1"  # type: ignore[union-attr]
    grandchild.vars.find("V").value = "2"  # type: ignore[union-attr]
    assert child.vars.find("V").value == "1" and sh.state.vars.find("V").value == "1"  # type: ignore[union-attr]


def test_the_subshell_rng_is_seeded_at_the_fork() -> None:
    # the parent's sequence is the same whether the subshell ever uses its generator or not
    a, b = new_shell().state, new_shell().state
    a.rng.seed(7)
    b.rng.seed(7)
    used = a.fork(lazy=True)
    used.rng.random()
    b.fork(lazy=True)  # never reads its rng
    assert a.rng.random() == b.rng.random()


def test_an_unknown_attribute_is_still_an_attribute_error() -> None:
    child = new_shell().state.fork(lazy=True)
    with pytest.raises(AttributeError):
        child.no_such_thing  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError):
        child.vars.no_such_thing  # type: ignore[attr-defined]  # noqa: B018
    assert isinstance(child, ShellState)


def _cyclic_garbage(bash: Bash, body: str, times: int) -> int:
    script = f"f() {{ echo ok; }}; for ((i = 0; i < {times}; i++)); do r=$({body}); done; echo $r"
    gc.collect()
    gc.disable()
    try:
        assert bash.exec(script).stdout == "ok\n"
        return gc.collect()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    "body", ["echo ok", "printf '%s' ok", "f", ": $(echo in); echo ok", "v=ok; echo $v", "f; (( 1 ))"]
)
def test_substitutions_leave_no_cyclic_garbage(body: str) -> None:
    bash = Bash()
    _cyclic_garbage(bash, body, 2)  # (warm: parse caches, lazy imports)
    # what a run leaves to the collector does not grow with the number of substitutions it ran
    # (each left ~25 objects before Shell.release)
    few, many = _cyclic_garbage(bash, body, 4), _cyclic_garbage(bash, body, 24)
    assert many - few < 20, (few, many)


def test_a_substitution_that_started_a_job_is_not_released() -> None:
    result = Bash().exec("x=$(sleep 0.05 & echo started); wait; echo $x; y=$(cat <(echo ps)); echo $y")
    assert result.stdout == "started\nps\n" and result.exit_code == 0


def test_memory_a_lazy_fork_charges_comes_back() -> None:
    sh = new_shell()
    budget = sh.rt.budget
    for i in range(200):
        sh.set_var(f"V{i}", "x" * 100)
    before = budget.memory
    for _ in range(50):
        sh.run_text("r=$(echo $V1); s=$(f() { :; }; v=2; echo $V2)", None)
    gc.collect()
    assert budget.memory == before


def test_in_place_substitutions_in_a_session_run_under_each_run_s_limits() -> None:
    session = Bash().session()
    assert session.exec("f() { echo ok; }; x=$(f); y=$(echo hi); echo $x $y").stdout == "ok hi\n"
    script = "for i in 1 2 3 4 5 6 7 8 9 10; do x=$(f); y=$(echo $x); done; echo done"
    with pytest.raises(ExecutionLimitError) as e:
        session.exec(script, limits={"max_command_count": 15})
    assert e.value.limit == "max_command_count"
    assert session.exec(script).stdout == "done\n"


@pytest.mark.parametrize("body", ["echo ok", "printf '%s' ok", "f"])
def test_a_policy_and_an_audit_see_the_substitution_s_commands(body: str) -> None:
    # with command gates the body runs in its subshell, decided and recorded as it always was
    listed = ListSink()
    bash = Bash(policy=Policy(["cat"], mode="remediation"), audit=Audit([listed]))
    result = bash.exec(f"f() {{ echo ok; }}; x=$({body}); echo $x")
    assert result.stdout == "ok\n"
    decisions = [(e["action"], e["target"]) for e in result.events if e["kind"] == "decision"]
    name = body.split()[0]
    assert ("shell:exec", name) in decisions or name == "f"
    policy = Policy(["cat"], deny=["echo", "printf"], mode="remediation")
    denied = Bash(policy=policy).exec(f'f() {{ echo ok; }}; x=$({body}); cat <<<"[$x]"')
    assert denied.stdout == "[]\n" and "policy denied this command" in denied.stderr
