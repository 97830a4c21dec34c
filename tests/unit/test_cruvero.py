"""`BashTool.cruvero()`: Cruvero's bash_exec contract (defaults, allow-list,
network switch, timeout ceiling, SANDBASH_* overrides, one audit record per call)."""

from __future__ import annotations

from typing import Any

import pytest

from sandbash.agent.adapters.cruvero import CRUVERO_COMMANDS, CruveroSettings, cruvero_tool
from sandbash.agent.tool import TOOL_CALL, BashTool, ToolInputError
from sandbash.audit import Audit, ListSink


def _tool(**env: str) -> BashTool:
    return BashTool.cruvero(environ=env, audit=Audit(sinks=[ListSink()]))


def test_defaults() -> None:
    tool = _tool()
    assert tool.name == "bash_exec" and tool.bash.limits.timeout == 2
    assert tool.max_output_chars == 64 * 1024 and tool.max_file_bytes == 256 * 1024 and tool.max_timeout == 30
    assert tool.network is None and not tool.network_by_default
    names = set(tool.available_commands())
    assert set(CRUVERO_COMMANDS) <= names and not {"rm", "cp", "mv", "curl", "wget", "xargs", "tee"} & names
    desc = tool.description()
    assert "jq" in desc and "sed" in desc and "curl" not in desc.split("Commands:")[1].split(". Not")[0]


@pytest.mark.parametrize(
    "script, status",
    [
        ("echo a,b | cut -d, -f2 | tr b B | wc -c", 0),
        ("printf '%s\\n' 3 1 2 | sort | uniq | head -1 | tail -1", 0),
        ("ls / | grep -c tmp; basename /a/b; dirname /a/b; date -u +%Y >/dev/null; pwd", 0),
        ("echo '{\"a\": 1}' | jq .a; echo x | sed s/x/y/; echo q | awk '{print $1}'", 0),
        ("find / -maxdepth 1 -name tmp; env >/dev/null; echo ab | rg b; cat /dev/null", 0),
        ("rm -f /tmp/x", 126),
        ("cp /dev/null /tmp/x", 126),
        ("xargs echo < /dev/null", 126),
        ("bash -c 'echo hi'", 126),
        ("curl http://example.com/", 126),
        ("seq 3", 126),
    ],
)
def test_the_allow_list(script: str, status: int) -> None:
    out = _tool().run({"command": script})
    assert out.exit_code == status, out.text()
    if status == 126:
        assert "policy" in out.stderr


def test_result_json_and_output_caps() -> None:
    tool = _tool()
    out = tool.run({"command": 'echo \'__RESULT__:{"status":"ok","count":3}\''})
    assert out.result_json == {"status": "ok", "count": 3}
    # the ceiling (30 s), not the 2 s default: on a loaded host the loop must end by itself, not by the clock
    out = tool.run({"command": "for ((i = 0; i < 20000; i++)); do echo line$i; done", "timeout_ms": 30_000})
    assert out.limit is None and out.stdout_truncated and len(out.stdout) <= 64 * 1024 + 100
    out = tool.run(
        {
            "command": "for ((i = 0; i < 2000; i++)); do echo line$i; done",
            "max_output_kb": 1,
            "timeout_ms": 30_000,
        }
    )
    assert out.stdout_truncated and len(out.stdout) <= 1024 + 100


def test_files_cap() -> None:
    tool = _tool()
    ok = "x" * (256 * 1024)
    assert tool.run({"command": "wc -c < f", "files": [{"path": "f", "content": ok}]}).stdout == "262144\n"
    with pytest.raises(ToolInputError, match="larger than max_file_kb"):
        tool.run({"command": "true", "files": [{"path": "f", "content": ok + "x"}]})


def test_timeout_ms_raises_up_to_the_ceiling() -> None:
    tool = _tool(SANDBASH_TIMEOUT_MS="200", SANDBASH_MAX_TIMEOUT_MS="1500", SANDBASH_ALLOWED_COMMANDS="sleep")
    assert tool.run({"command": "sleep 1; echo late"}).limit == "timeout"
    assert tool.run({"command": "sleep 1; echo late", "timeout_ms": 1400}).stdout == "late\n"
    out = tool.run({"command": "sleep 5; echo never", "timeout_ms": 3_600_000})
    assert out.limit == "timeout" and out.stdout == ""


@pytest.mark.parametrize(
    "env, check",
    [
        (
            {"SANDBASH_ALLOWED_COMMANDS": "echo, cat"},
            lambda t: {"echo", "cat"} <= set(t.available_commands()) and "grep" not in t.available_commands(),
        ),
        (
            {"SANDBASH_ALLOWED_COMMANDS": "jq sed"},
            lambda t: {"jq", "sed"} <= set(t.available_commands()) and "cat" not in t.available_commands(),
        ),
        ({"SANDBASH_MAX_OUTPUT_KB": "8"}, lambda t: t.max_output_chars == 8192),
        ({"SANDBASH_MAX_FILE_KB": "1"}, lambda t: t.max_file_bytes == 1024),
        ({"SANDBASH_TIMEOUT_MS": "750"}, lambda t: t.bash.limits.timeout == 0.75),
        ({"SANDBASH_MAX_TIMEOUT_MS": "90000"}, lambda t: t.max_timeout == 90),
        ({"SANDBASH_ALLOW_NETWORK": "1"}, lambda t: t.network is None),  # no allow-list: nothing to reach
        ({"SANDBASH_DENIED_COMMANDS": "sed"}, lambda t: "sed" not in t.available_commands()),
        ({"SANDBASH_MODE": "read-only"}, lambda t: t.run({"command": "echo x > /tmp/f"}).exit_code == 1),
    ],
)
def test_environment_overrides(env: dict[str, str], check: Any) -> None:
    assert check(_tool(**env))


@pytest.mark.parametrize(
    "env, message",
    [
        (
            {"SANDBASH_MAX_OUTPUT_KB": "lots"},
            "SANDBASH_MAX_OUTPUT_KB: expected a positive integer, got 'lots'",
        ),
        ({"SANDBASH_MAX_FILE_KB": "0"}, "SANDBASH_MAX_FILE_KB: expected a positive integer"),
        ({"SANDBASH_TIMEOUT_MS": "-5"}, "SANDBASH_TIMEOUT_MS: expected a positive integer"),
        (
            {"SANDBASH_ALLOW_NETWORK": "maybe"},
            "SANDBASH_ALLOW_NETWORK: expected 1/true/yes/on or 0/false/no/off",
        ),
        (
            {"SANDBASH_TIMEOUT_MS": "5000", "SANDBASH_MAX_TIMEOUT_MS": "1000"},
            "must not exceed max_timeout_ms",
        ),
    ],
)
def test_bad_overrides_are_clear_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _tool(**env)


@pytest.mark.parametrize(
    "text, value",
    [
        ("1", True),
        ("TRUE", True),
        (" yes ", True),
        ("on", True),
        ("0", False),
        ("false", False),
        ("No", False),
        ("", False),
    ],
)
def test_network_switch_spellings(text: str, value: bool) -> None:
    assert CruveroSettings.from_env({"SANDBASH_ALLOW_NETWORK": text}).allow_network is value


def test_one_audit_record_per_call() -> None:
    sink = ListSink()
    tool = cruvero_tool(audit=Audit(sinks=[sink]))
    tool.run({"command": "echo hi; rm x"})
    tool.run({"command": "while :; do :; done", "timeout_ms": 100})
    calls = [e.to_dict() for e in sink.events]
    assert [c["kind"] for c in calls] == [TOOL_CALL, TOOL_CALL]
    assert calls[0]["command"] == "echo hi; rm x" and calls[0]["exit_code"] == 126
    assert calls[0]["stdout_bytes"] == 3 and calls[0]["stderr_bytes"] > 0 and calls[0]["tool"] == "bash_exec"
    assert calls[1]["limit"] in ("timeout", "max_loop_iterations") and calls[1]["timeout_ms"] == 100


def test_default_audit_goes_to_the_log(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="sandbash.audit"):
        BashTool.cruvero().run({"command": "echo hi"})
    assert any("tool.call" in r.getMessage() and "echo hi" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "network, switch, says",
    [
        (
            True,
            "1",
            "curl and wget can reach only URLs under: http://127.0.0.1:9/ (methods GET, HEAD) "
            "when the call sets allow_network: true",
        ),
        (True, "0", "no network (curl and wget are not available)"),
        (False, "1", "no network (curl and wget are not available)"),
    ],
)
def test_the_model_is_told_how_to_get_the_network(network: bool, switch: str, says: str) -> None:
    from sandbash.net import NetworkConfig

    cfg = NetworkConfig(allowed_url_prefixes=["http://127.0.0.1:9/"]) if network else None
    tool = cruvero_tool(network=cfg, environ={"SANDBASH_ALLOW_NETWORK": switch}, audit=Audit())
    assert f"Network: {says}." in tool.description()
    assert f"- Network: {says}." in tool.system_prompt()


def test_the_system_prompt_has_no_empty_line_items() -> None:
    for env in ({}, {"SANDBASH_MODE": "read-only"}, {"SANDBASH_DENIED_COMMANDS": "sed"}):
        lines = _tool(**env).system_prompt().splitlines()
        assert all(line.strip() not in ("", "-") for line in lines), lines
    assert any(
        line.startswith("- Policy: the filesystem is read-only")
        for line in _tool(SANDBASH_MODE="read-only").system_prompt().splitlines()
    )
