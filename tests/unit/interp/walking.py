"""A script run compiled or walked: the tree walker switch set for the test, whatever
SANDBASH_TREE_WALKER says (the tests that compare the two paths share this)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import sandbash.interp.evaluator as evaluator_module
from memheld import vars_held
from sandbash import Bash
from sandbash.audit import Audit, AuditEvent

# what a loop's generated store of `x` does not cover, turned on in its middle (a test runs each
# and compares with the walker; a test adds the changes of its own kind)
LATE_CHANGES = (
    "declare -i x",
    "readonly x",
    "set -a",
    "declare -n x=z",
    "declare -u x",
    "x=(a b)",
    "unset x",
    "trap 'echo T' DEBUG",
    "set -x",
    "local x",
)


@contextmanager
def walking(walker: bool) -> Iterator[None]:
    """The tree walker on (True) or the compiling evaluator on (False) inside the block."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluator_module, "TREE_WALKER", walker)
        yield


def run_walked(script: str, walker: bool, **kw: object) -> tuple[str, str, int]:
    """stdout, stderr and status of `script` in a fresh Bash(**kw), walked (True) or compiled."""
    with walking(walker):
        r = Bash(**kw).exec(script)  # type: ignore[arg-type]
    return r.stdout, r.stderr, r.exit_code


def compiled_and_walked(script: str, **kw: object) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """run_walked's (stdout, stderr, status) of `script` compiled, then walked."""
    return run_walked(script, False, **kw), run_walked(script, True, **kw)


def started_argvs(script: str, **kw: object) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The argv of each command.start the audit records for `script` in a fresh Bash(**kw),
    compiled, then walked (a fast path must audit each command as the walker does)."""
    seen: list[list[tuple[str, ...]]] = []
    for walker in (False, True):
        got: list[AuditEvent] = []
        with walking(walker):
            Bash(audit=Audit([got.append]), **kw).exec(script)  # type: ignore[arg-type]
        seen.append([tuple(e.fields["argv"]) for e in got if e.kind == "command.start"])
    return seen[0], seen[1]


def held_change(setup: str, script: str, walker: bool) -> tuple[str, int]:
    """stdout of `script` run after `setup` in one session, walked (True) or compiled, and how
    much more the shell's variables hold (max_memory's account) after it than before it."""
    with walking(walker):
        session = Bash().session()
        session.exec(setup)
        vars_ = session.shell.state.vars
        before = vars_held(vars_)
        out = session.exec(script).stdout
        return out, vars_held(vars_) - before
