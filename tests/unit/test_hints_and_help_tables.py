"""The not-found hints name the embedded runtimes where they run, and `help` lists what the policy
denies from this sandbox's own command table (custom commands included)."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.commands.shellutils import hints
from sandbash.custom import command
from sandbash.policy import Policy


@pytest.mark.parametrize(
    ("name", "suggested", "note"),
    [
        ("pip", "python3", "nothing can be installed"),
        ("uv", "python3", "nothing can be installed"),
        ("ipython", "python3", ""),
        ("python2", "python3", ""),
        ("npm", "node", "nothing can be installed"),
        ("deno", "node", ""),
        ("nodejs", "node", ""),
        ("perl", "lua", ""),
        ("ruby", "python3", ""),
        ("psql", "sqlite3", ""),
        ("mysql", "sqlite3", ""),
    ],
)
def test_hint_suggests_the_runtime_that_runs_here(name: str, suggested: str, note: str) -> None:
    r = Bash().exec(f"{name} --version")
    assert r.exit_code == 127
    first, hint = r.stderr.splitlines()
    assert first == f"bash: line 1: {name}: command not found"
    assert hint.startswith(f"sandbash: {name} is not available in this sandbox (no host programs run here)")
    assert suggested in hint.split("; use ")[1].replace(",", "").split()
    assert note in hint


def test_a_denied_runtime_is_not_suggested() -> None:
    r = Bash(policy=Policy(deny=["python3", "node"], mode="remediation")).exec("pip; npm")
    lines = r.stderr.splitlines()
    assert "python3" not in lines[1] and "awk" in lines[1]
    assert "node" not in lines[3].split("; use ")[1] and "jq" in lines[3]


def test_a_runtime_without_its_package_is_not_suggested(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hints, "runtime_notes", lambda names: [])
    hint = hints.not_found_hint("pip", lambda alt: True)
    assert hint is not None and "python3" not in hint and "awk" in hint


def test_a_missing_runtime_says_it_is_not_enabled() -> None:
    # a sandbox whose table lacks the runtime (or hides it): no claim that no such program can run
    hint = hints.not_found_hint("python3", lambda alt: alt != "python3")
    assert hint is not None
    assert hint.startswith(
        "sandbash: python3 is not available in this sandbox (its runtime is not enabled here)"
    )
    assert "use awk" in hint and "python3," not in hint
    hint = hints.not_found_hint("lua", lambda alt: alt != "lua")
    assert hint is not None and "not enabled" in hint and "lua or" not in hint and "python3" in hint


def test_help_lists_denied_custom_commands() -> None:
    tool = command("acme-tool")(lambda args, ctx: "ran\n")
    other = command("acme-ok")(lambda args, ctx: "ok\n")
    bash = Bash(commands=[tool, other], policy=Policy(deny=["acme-tool", "rm"], mode="remediation"))
    r = bash.exec("help")
    denied = [line for line in r.stdout.splitlines() if line.startswith("Commands denied by policy: ")]
    assert denied == ["Commands denied by policy: acme-tool rm"]
    assert "acme-ok" in r.stdout and "acme-tool" not in r.stdout.replace(denied[0], "")
    # another sandbox's custom commands never appear in this one's listing
    assert "acme-tool" not in Bash(policy=Policy(deny=["rm"], mode="remediation")).exec("help").stdout
