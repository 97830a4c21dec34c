"""Property: every program a run executes was decided by the gate under its real identity.

Random scripts mix the grammar's shapes (pipelines, subshells, functions, loops, `$(...)`,
`eval`, `bash -c`) with the ways a name can be retargeted (hash table, PATH scripts, shebang
interpreters, aliases, wrappers, other spellings). The registry, the shell and the builtin
entry points are instrumented to record what really runs; the audit log must hold an `allow`
decision naming each one (its implementation: `command_identity`) before it runs, and nothing the
policy denies may run at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbash.interp import executor
from sandbash.interp.executor import Executor
from sandbash.interp.processes import Processes
from sandbash.interp.shell import Shell
from sandbash.policy import Policy, command_identity

from .test_policy_table import sandbox

NAMES = [
    "cat",
    "head",
    "rm",
    "grep",
    "ls",
    "awk",
    "gzip",
    "wc",
    "sort",
    "env",
    "xargs",
    "bash",
    "chmod",
    "printf",
    "source",
    "declare",
    "test",
    "find",
    "timeout",
]
FILES = ["/data/a.txt", "/workspace/notes", "/data/b.txt"]

atoms = st.one_of(
    st.builds(
        lambda n, p: f"{n} {p}",
        st.sampled_from(
            [
                "cat",
                "head -1",
                "wc -l",
                "sort",
                "egrep -c a",
                "fgrep -c a",
                "rg -c a",
                "gawk 1",
                "zcat",
                "dir",
            ]
        ),
        st.sampled_from(FILES),
    ),
    st.builds(
        lambda t, n, p: f"hash -p /bin/{t} {n}; {n} {p}",
        st.sampled_from(["rm", "head", "wc", "cat"]),
        st.sampled_from(["cat", "ls", "sort"]),
        st.sampled_from(FILES),
    ),
    st.builds(
        lambda t, p: f"printf '#!/bin/{t}\\n' > /workspace/s; chmod +x /workspace/s; /workspace/s {p}",
        st.sampled_from(["rm -f", "cat", "head -1", "bash"]),
        st.sampled_from(FILES),
    ),
    st.builds(
        lambda t, p: (
            f"printf '#!/usr/bin/env {t}\\n' > /workspace/s; chmod +x /workspace/s; /workspace/s {p}"
        ),
        st.sampled_from(["rm", "cat", "wc"]),
        st.sampled_from(FILES),
    ),
    # an interpreter that is a script itself; env -S splitting the one shebang argument
    st.builds(
        lambda t, p: (
            f"printf '#!/bin/{t}\\n' > /workspace/s; printf '#!/workspace/s\\n' > /workspace/t; "
            f"chmod +x /workspace/s /workspace/t; /workspace/t {p}"
        ),
        st.sampled_from(["rm -f", "cat", "wc -l"]),
        st.sampled_from(FILES),
    ),
    st.builds(
        lambda t, p: (
            f"printf '#!/usr/bin/env -S {t}\\n' > /workspace/s; chmod +x /workspace/s; /workspace/s {p}"
        ),
        st.sampled_from(["rm -f", "head -n 1", "timeout 5 cat", "egrep -c a"]),
        st.sampled_from(FILES),
    ),
    st.builds(
        lambda w, p: f"{w} cat {p}",
        st.sampled_from(["env", "timeout 5", "command", "nice", "nohup"]),
        st.sampled_from(FILES),
    ),
    st.builds(lambda p: f"echo {p} | xargs egrep -c a", st.sampled_from(FILES)),
    st.builds(
        lambda p: f"find {p.rsplit('/', 1)[0]} -name a.txt -exec wc -l {{}} \\;", st.sampled_from(FILES)
    ),
    st.sampled_from(
        [
            "shopt -s expand_aliases\nalias c=rm\nc /workspace/notes",
            ". /data/lib.sh",
            "typeset t=1; readarray r < /data/a.txt",
            "[ -f /data/a.txt ] && test -d /data",
            "mkdir -p /workspace/bin; printf '#!/bin/rm -f\\n' > /workspace/bin/cat; "
            "chmod +x /workspace/bin/cat; PATH=/workspace/bin:$PATH cat /workspace/notes",
        ]
    ),
)


def wrap(atom: str, how: int) -> str:
    if "'" in atom or "\n" in atom:
        return atom
    forms = [
        atom,
        f"( {atom} )",
        f"{{ {atom}; }}",
        f"x=$({atom})",
        f"echo y | {atom}",
        f"bash -c '{atom}'",
        f"eval '{atom}'",
        f"f{how}() {{ {atom}; }}; f{how}",
        f"for i in 1; do {atom}; done",
    ]
    return forms[how % len(forms)]


@st.composite
def generated(draw: st.DrawFn) -> tuple[Policy, str]:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=len(NAMES)))
    if draw(st.booleans()):
        policy = Policy(names + ["bash"], paths=["/data:ro", "/workspace:rw"], mode="remediation")
    else:
        policy = Policy(deny=names[:4], paths=["/data:ro", "/workspace:rw"], mode="remediation")
    parts = draw(st.lists(st.tuples(atoms, st.integers(0, 20)), min_size=1, max_size=4))
    return policy, "\n".join(wrap(a, h) for a, h in parts)


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The identities of what really runs, in order (registry commands, shells, builtins)."""
    record: list[str] = []
    run_registry = Executor.run_registry
    run_shell = Processes.run_shell_command
    run_builtin = executor._run_builtin

    def registry_spy(self: Executor, name: str, argv: list[str], env: object) -> int:
        record.append(command_identity(name))
        return run_registry(self, name, argv, env)  # type: ignore[arg-type]

    def shell_spy(self: Processes, argv: list[str], env: dict[str, str]) -> int:
        record.append(command_identity(argv[0]))
        return run_shell(self, argv, env)

    def builtin_spy(self: Shell, builtin: object, name: str, argv: list[str]) -> int:
        record.append(command_identity(name))
        return run_builtin(self, builtin, name, argv)  # type: ignore[arg-type]

    monkeypatch.setattr(Executor, "run_registry", registry_spy)
    monkeypatch.setattr(Processes, "run_shell_command", shell_spy)
    monkeypatch.setattr(executor, "_run_builtin", builtin_spy)
    yield record


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(generated())
def test_everything_that_runs_was_decided_under_its_identity(ran: list[str], gen: tuple[Policy, str]) -> None:
    policy, script = gen
    ran.clear()
    result = sandbox(policy).exec(script)
    allowed = Counter(
        str(e["target"])
        for e in result.events
        if e["kind"] == "decision" and e["action"] == "shell:exec" and e["decision"] == "allow"
    )
    executed = Counter(ran)
    where = f"\nscript:\n{script}\nran: {ran}\nallowed: {allowed}\nstderr: {result.stderr}"
    for identity, count in executed.items():
        assert allowed[identity] >= count, where
        assert policy.command_decision(identity).allowed, where
