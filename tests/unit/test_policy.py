"""Policy: rule matching, loading, the decide callback and the gate hooks."""

from __future__ import annotations

import errno

import pytest

from sandbash.audit import Audit, ListSink, Recorder
from sandbash.net.config import NetworkConfig
from sandbash.policy import (
    READ_ONLY,
    REMEDIATION,
    Action,
    Decision,
    Gate,
    PathGrant,
    Policy,
    PolicyError,
    normpath,
    refusal_message,
)
from sandbash.vfs.errors import FsError

# ------------------------------------------------------------ commands


@pytest.mark.parametrize(
    ("policy", "name", "kind", "allowed", "rule"),
    [
        (Policy(), "rm", "command", True, "commands.all"),
        (Policy(deny=["rm"]), "rm", "command", False, "commands.deny"),
        (Policy(deny=["rm"]), "/bin/rm", "command", False, "commands.deny"),
        (Policy(["cat"]), "cat", "command", True, "commands.allow"),
        (Policy(["cat"]), "/usr/bin/cat", "command", True, "commands.allow"),
        (Policy(["cat"]), "grep", "command", False, "commands.allow"),
        (Policy(["cat"]), "echo", "builtin", True, "commands.builtin"),
        (Policy(["cat"]), "cd", "", True, "commands.builtin"),
        (Policy(["cat"], implicit_builtins=False), "echo", "builtin", False, "commands.allow"),
        (Policy(["cat"]), "myfunc", "function", True, "commands.function"),
        (Policy(["cat"]), "myfunc", "", False, "commands.allow"),
        (Policy(["cat"], deny=["myfunc"]), "myfunc", "function", False, "commands.deny"),
        (Policy({"allow": ["cat", "rm"], "deny": ["rm"]}), "rm", "command", False, "commands.deny"),
        (Policy(["*"], deny=["curl"]), "ls", "command", True, "commands.all"),
        (Policy(["*"], deny=["curl"]), "curl", "command", False, "commands.deny"),
        (Policy(["cat"], deny=["eval"]), "eval", "builtin", False, "commands.deny"),
        (Policy(["cat"]), "./script.sh", "script", False, "commands.allow"),
        (Policy(["script.sh"]), "./script.sh", "script", True, "commands.allow"),
    ],
)
def test_command_decision(policy: Policy, name: str, kind: str, allowed: bool, rule: str) -> None:
    d = policy.command_decision(name, kind)
    assert (d.allowed, d.rule) == (allowed, rule)


def test_commands_as_string_and_mapping() -> None:
    assert Policy("cat, grep  ls").allow == frozenset({"cat", "grep", "ls"})
    with pytest.raises(PolicyError):
        Policy({"allow": ["x"], "permit": ["y"]})
    with pytest.raises(PolicyError):
        Policy(mode="sometimes")


# ------------------------------------------------------------ paths


def test_grant_parsing() -> None:
    assert PathGrant.parse("/data:ro") == PathGrant("/data", False)
    assert PathGrant.parse("/work//space/:rw") == PathGrant("/work/space", True)
    assert PathGrant.parse("/odd:name:rw") == PathGrant("/odd:name", True)  # the last :rw is the mode
    assert PathGrant.parse("/plain") == PathGrant("/plain", False)  # no suffix: read-only
    assert PathGrant.parse("/a/../b:rw").path == "/b"
    with pytest.raises(PolicyError):
        PathGrant.parse("relative:ro")
    assert normpath("/a/./b//../c/") == "/a/c"


GRANTS = Policy(paths=["/data:ro", "/workspace:rw", "/workspace/keep:ro", "/data/out:rw"], mode=REMEDIATION)


@pytest.mark.parametrize(
    ("policy", "action", "path", "allowed", "rule"),
    [
        (GRANTS, "read", "/data/x", True, "paths.grant"),
        (GRANTS, "write", "/data/x", False, "paths.read-only"),
        (GRANTS, "create", "/data/out/x", True, "paths.grant"),  # the more specific grant wins
        (GRANTS, "delete", "/workspace/x", True, "paths.grant"),
        (GRANTS, "delete", "/workspace/keep/x", False, "paths.read-only"),
        (GRANTS, "read", "/workspace/keep/x", True, "paths.grant"),
        (GRANTS, "read", "/etc/passwd", False, "paths.no-grant"),
        (GRANTS, "list", "/", False, "paths.no-grant"),
        (GRANTS, "stat", "/", True, "paths.implicit"),  # above a grant: cd and [ -d ] work
        (GRANTS, "stat", "/usr/bin", True, "paths.implicit"),  # command lookup
        (GRANTS, "read", "/datafile", False, "paths.no-grant"),  # whole components only
        (GRANTS, "write", "/dev/null", True, "paths.implicit"),
        (GRANTS, "rename", "/workspace/a", True, "paths.grant"),
        (GRANTS, "chmod", "/data/x", False, "paths.read-only"),
        (GRANTS.replace(mode=READ_ONLY), "create", "/workspace/x", False, "mode.read-only"),
        (GRANTS.replace(mode=READ_ONLY), "write", "/dev/null", True, "paths.implicit"),
        (GRANTS.replace(mode=READ_ONLY), "read", "/workspace/x", True, "paths.grant"),
        (Policy(), "write", "/anything", True, "paths.unrestricted"),
        (Policy(mode=READ_ONLY), "delete", "/anything", False, "mode.read-only"),
        (Policy(paths=[]), "read", "/anything", False, "paths.no-grant"),
        (Policy(paths=["/d:rw", "/d:ro"], mode=REMEDIATION), "write", "/d/x", False, "paths.read-only"),
    ],
)
def test_path_decision(policy: Policy, action: str, path: str, allowed: bool, rule: str) -> None:
    d = policy.path_decision(action, path)
    assert (d.allowed, d.rule) == (allowed, rule), d


def test_effective_mode() -> None:
    from sandbash.vfs.facade import Vfs

    assert Policy().effective(Vfs()).mode == REMEDIATION
    assert Policy(mode=READ_ONLY).effective(Vfs()).mode == READ_ONLY
    assert Policy().effective(None).mode == REMEDIATION


def test_effective_mode_with_host_mount(tmp_path: object) -> None:
    from sandbash.vfs.facade import Vfs
    from sandbash.vfs.overlay import OverlayFs

    assert Policy().effective(Vfs(OverlayFs(str(tmp_path)))).mode == READ_ONLY


# ------------------------------------------------------------ decide


@pytest.mark.parametrize(
    ("answer", "allowed", "rule", "reason"),
    [
        (None, True, "commands.all", ""),
        (True, True, "commands.all", ""),
        (False, False, "decide", ""),
        ((False, "not now"), False, "decide", "not now"),
        ("deny", False, "decide", ""),
        (Decision.deny("custom", "why"), False, "custom", "why"),
        (42, False, "decide.error", "decide returned 42"),
    ],
)
def test_decide_answers(answer: object, allowed: bool, rule: str, reason: str) -> None:
    p = Policy(decide=lambda a: answer)  # type: ignore[arg-type,return-value]
    d = p.ask(Action("shell:exec", "ls", ("ls",)), Decision.allow("commands.all"))
    assert (d.allowed, d.rule, d.reason) == (allowed, rule, reason)


def test_decide_fails_closed_and_never_overrides_a_static_denial() -> None:
    def boom(a: Action) -> bool:
        raise RuntimeError("down")

    d = Policy(decide=boom).ask(Action("fs:read", "/x"), Decision.allow("paths.unrestricted"))
    assert not d.allowed and d.rule == "decide.error" and "down" in d.reason
    seen: list[Action] = []
    p = Policy(deny=["rm"], decide=lambda a: seen.append(a) or True)  # type: ignore[func-returns-value]
    assert Gate(p).command(["rm", "x"]) is not None
    assert seen == []  # a static denial is final


# ------------------------------------------------------------ loading


def test_toml() -> None:
    p = Policy.from_toml(
        'name = "agent"\nmode = "read-only"\npaths = ["/data:ro"]\n[commands]\nallow = ["cat"]\ndeny = ["rm"]\n'
    )
    assert (p.name, p.mode, p.allow, p.deny, p.path_specs()) == (
        "agent",
        READ_ONLY,
        frozenset({"cat"}),
        frozenset({"rm"}),
        ["/data:ro"],
    )
    p = Policy.from_toml(b'commands = ["ls"]\n[paths]\nro = ["/a"]\nrw = ["/b"]\n')
    assert p.allow == frozenset({"ls"}) and p.path_specs() == ["/a:ro", "/b:rw"]
    for bad in ('mode = "x"', "commands = 3", "unknown = 1", "paths = [1]", "[[["):
        with pytest.raises(PolicyError):
            Policy.from_toml(bad)


def test_env() -> None:
    assert Policy.from_env({}) is None
    p = Policy.from_env(
        {
            "SANDBASH_ALLOWED_COMMANDS": "cat,grep ls",
            "SANDBASH_ALLOWED_PATHS": "/data:ro,/w:rw",
            "SANDBASH_MODE": "remediation",
            "SANDBASH_DENIED_COMMANDS": "rm",
        }
    )
    assert p is not None
    assert p.allow == frozenset({"cat", "grep", "ls"}) and p.deny == frozenset({"rm"})
    assert p.path_specs() == ["/data:ro", "/w:rw"] and p.mode == REMEDIATION
    base = Policy(["cat"], paths=["/x:rw"], mode=READ_ONLY)
    p = Policy.from_env({"SANDBASH_MODE": "remediation"}, base)
    assert (
        p is not None
        and p.allow == frozenset({"cat"})
        and p.path_specs() == ["/x:rw"]
        and p.mode == REMEDIATION
    )


# ------------------------------------------------------------ the gate


def test_refusal_lists_what_is_allowed() -> None:
    p = Policy(["ls", "cat"])
    msg = refusal_message(p, p.command_decision("rm"))
    assert msg == (
        "policy denied this command [policy: commands.allow]\n"
        "allowed commands: cat, ls (and the shell builtins)"
    )
    p = Policy(deny=["rm", "curl"])
    assert refusal_message(p, p.command_decision("rm")).endswith(
        "denied commands: curl, rm (all other commands are allowed)"
    )
    p = Policy(decide=lambda a: (False, "after hours"))
    assert "[policy: decide] (after hours)" in refusal_message(
        p, p.ask(Action("shell:exec", "x"), Decision.allow("a"))
    )


def test_gate_records_decisions() -> None:
    sink = ListSink()
    rec = Recorder(Audit([sink]))
    gate = Gate(Policy(["cat"], paths=["/d:ro"], mode=REMEDIATION), rec)
    assert gate.command(["cat", "/d/x"]) is None
    assert gate.command(["rm", "x"]) is not None
    gate.fs("read", "/d/x")
    with pytest.raises(FsError) as e:
        gate.fs("write", "/d/x")
    assert e.value.code == errno.EACCES
    events = [
        (ev.fields["action"], ev.fields["target"], ev.fields["decision"], ev.fields["rule"])
        for ev in sink.events
    ]
    assert events == [
        ("shell:exec", "cat", "allow", "commands.allow"),
        ("shell:exec", "rm", "deny", "commands.allow"),
        ("fs:read", "/d/x", "allow", "paths.grant"),
        ("fs:write", "/d/x", "deny", "paths.read-only"),
    ]
    assert sink.events[0].fields["argv"] == ["cat", "/d/x"]


def test_gate_first_word_records_refusals_only() -> None:
    rec = Recorder(None)
    gate = Gate(Policy(["cat"]), rec)
    assert gate.command_name("cat") is None
    assert gate.command_name("rm") is not None
    assert [e.fields["target"] for e in rec.events] == ["rm"]


def test_decisions_deny_only_audit() -> None:
    rec = Recorder(Audit(decisions="deny"))
    gate = Gate(Policy(["cat"]), rec)
    gate.command(["cat"])
    gate.command(["rm"])
    assert [e.fields["target"] for e in rec.events] == ["rm"]


def test_network_gate_and_audit() -> None:
    asked: list[Action] = []

    def decide(a: Action) -> bool:
        asked.append(a)
        return "evil" not in a.url

    rec = Recorder(None)
    gate = Gate(Policy(decide=decide), rec)
    cfg = gate.attach_network(NetworkConfig(allowed_url_prefixes=["https://api.example.com/"]))
    assert cfg.gate is not None and cfg.audit is not None
    assert cfg.gate("http:GET", "https://api.example.com/x") is True
    assert cfg.gate("http:POST", "https://evil.example.com/") is False
    cfg.audit({"action": "http:GET", "url": "https://api.example.com/x", "status": 200})
    assert [(a.kind, a.method) for a in asked] == [("http:request", "GET"), ("http:request", "POST")]
    assert [e.kind for e in rec.events] == ["decision", "decision", "net"]
    # an existing hook is kept: both must allow
    cfg2 = gate.attach_network(NetworkConfig(gate=lambda action, url: False))
    assert cfg2.gate is not None and cfg2.gate("http:GET", "https://ok/") is False


def test_listing_and_help() -> None:
    gate = Gate(Policy(["cat", "rm", "ls"], deny=["rm"], mode=READ_ONLY))
    available, remediation, denied = gate.listing(["cat", "rm", "ls", "cp", "mkdir"])
    assert available == ["cat", "ls"] and remediation == [] and denied == ["cp", "mkdir", "rm"]
    gate = Gate(Policy(deny=["curl"], mode=READ_ONLY))
    available, remediation, denied = gate.listing(["cat", "rm", "curl", "mkdir"])
    assert available == ["cat"] and remediation == ["mkdir", "rm"] and denied == ["curl"]
    text = gate.help_text(["cat", "rm", "curl"])
    assert (
        "Commands available: cat" in text
        and "remediation mode: rm" in text
        and "denied by policy: curl" in text
    )
    assert gate.visible("cat") and not gate.visible("curl")
