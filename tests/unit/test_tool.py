"""The agent tool contract: input schema, output shaping, sessions, description."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sandbash import Bash, Limits
from sandbash.agent.tool import (
    INPUT_SCHEMA,
    BashTool,
    ToolInputError,
    ToolOutput,
    find_result_json,
    is_binary,
    truncate_middle,
)


@pytest.fixture(scope="module")
def tool() -> BashTool:
    return BashTool()


# ------------------------------------------------------------------ input


@pytest.mark.parametrize(
    "bad, message",
    [
        ({}, "missing required property 'command'"),
        ({"command": 1}, "input.command: expected string"),
        ({"command": "x", "extra": 1}, "unknown property 'extra'"),
        ({"command": "x", "timeout_ms": "5"}, "input.timeout_ms: expected integer"),
        ({"command": "x", "timeout_ms": True}, "input.timeout_ms: expected integer"),
        ({"command": "x", "timeout_ms": 0}, "must be at least 1"),
        ({"command": "x", "env": {"A": 1}}, "input.env.A: expected string"),
        ({"command": "x", "files": [{"path": "a"}]}, "input.files[0]: missing required property 'content'"),
        ({"command": "x", "files": [{"path": "a", "content": "", "mode": 1}]}, "unknown property 'mode'"),
        ({"command": "x", "allow_network": "yes"}, "expected boolean"),
    ],
)
def test_schema_violations_are_reported(tool: BashTool, bad: dict[str, object], message: str) -> None:
    with pytest.raises(ToolInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        tool.run(bad)


def test_schema_shape() -> None:
    assert INPUT_SCHEMA["required"] == ["command"]
    assert INPUT_SCHEMA["additionalProperties"] is False
    assert {
        "command",
        "timeout_ms",
        "env",
        "files",
        "max_output_kb",
        "max_file_kb",
        "allow_network",
        "session_id",
    } <= set(INPUT_SCHEMA["properties"])


def test_nulls_count_as_absent(tool: BashTool) -> None:
    out = tool.run({"command": "echo ok", "timeout_ms": None, "session_id": None, "env": None})
    assert out.stdout == "ok\n"


# ------------------------------------------------------------------ output


def test_output_contract(tool: BashTool) -> None:
    out = tool.run({"command": "echo hi; echo oops >&2; exit 3"})
    assert out.to_dict() == {
        "stdout": "hi\n",
        "stderr": "oops\n",
        "exit_code": 3,
        "result_json": None,
        "stdout_truncated": False,
        "stderr_truncated": False,
        "limit": None,
    }
    assert out.is_error
    assert out.text() == "hi\nSTDERR:\noops\n[exit code: 3]"


def test_no_output_rendering(tool: BashTool) -> None:
    assert tool.run({"command": "true"}).text() == "(no output)\n[exit code: 0]"


def test_result_json_last_line_wins(tool: BashTool) -> None:
    script = """echo '__RESULT__:{"n": 1}'; echo 'x __RESULT__:{"n": 9}'; echo '__RESULT__:{"n": [2, 3]}'; echo done"""
    out = tool.run({"command": script})
    assert out.result_json == {"n": [2, 3]}
    assert "result_json_error" not in out.to_dict()


def test_result_json_invalid_is_reported_not_raised(tool: BashTool) -> None:
    out = tool.run({"command": "echo '__RESULT__:{nope'"})
    assert out.result_json is None
    assert out.result_json_error is not None and "invalid JSON" in out.result_json_error
    assert out.exit_code == 0
    assert "[invalid JSON after __RESULT__:" in out.text()


def test_find_result_json_edge_cases() -> None:
    assert find_result_json("") == (None, None)
    assert find_result_json("__RESULT__:1") == (1, None)
    assert find_result_json("a__RESULT__:1\n") == (None, None)
    assert find_result_json('__RESULT__:"a"\nmore\n') == ("a", None)
    # what is handed back must be JSON a strict client parses: no NaN/Infinity
    for text in ("NaN", "Infinity", "-Infinity", "[1e999999]", '{"x": -1e400}'):
        value, error = find_result_json(f"__RESULT__:{text}")
        assert value is None and error is not None and error.startswith("invalid JSON after __RESULT__:"), (
            text
        )
    assert find_result_json("__RESULT__:[1e308, -2.5e-300]") == ([1e308, -2.5e-300], None)


def test_truncation_keeps_head_and_tail_with_marker(tool: BashTool) -> None:
    out = tool.run({"command": "seq 100000"})
    assert out.stdout_truncated and not out.stderr_truncated
    assert out.stdout.startswith("1\n2\n3\n") and out.stdout.endswith("99999\n100000\n")
    head, marker_and_tail = out.stdout.split("[… ", 1)
    omitted = int(marker_and_tail.split(" characters omitted …]\n", 1)[0].replace(",", ""))
    tail = marker_and_tail.split("…]\n", 1)[1]
    full = "".join(f"{i}\n" for i in range(1, 100001))
    assert len(head) + omitted + len(tail) == len(full)
    assert head.endswith("\n")  # cut at a line end
    assert len(out.stdout) < 30_100


def test_truncate_middle_unit() -> None:
    assert truncate_middle("abc", 5) == ("abc", False)
    text, cut = truncate_middle("x" * 100, 20)
    assert cut and text == "x" * 10 + "\n[… 80 characters omitted …]\n" + "x" * 10
    assert "12,345 characters omitted" in truncate_middle("y" * 12_365, 20)[0]


def test_max_output_kb_tightens_the_cap(tool: BashTool) -> None:
    out = tool.run({"command": "seq 5000", "max_output_kb": 1})
    assert out.stdout_truncated and len(out.stdout) < 1100


def test_stderr_is_capped_separately() -> None:
    out = BashTool(max_output_chars=100).run({"command": "seq 1000 >&2; echo fine"})
    assert out.stderr_truncated and not out.stdout_truncated and out.stdout == "fine\n"


def test_binary_output_becomes_a_notice(tool: BashTool) -> None:
    out = tool.run({"command": "printf 'a\\0b\\377\\376'; head -c 4000 /dev/urandom"})
    assert out.stdout.startswith("[binary output: 4,005 bytes, not shown")
    assert out.result_json is None
    assert is_binary(b"\x00") and not is_binary("héllo wörld".encode()) and not is_binary(b"ab\xffcd")


def test_limit_is_reported_with_partial_output() -> None:
    tool = BashTool(limits=Limits(max_loop_iterations=50))
    out = tool.run({"command": "echo start; while :; do :; done"})
    assert out.limit == "max_loop_iterations"
    assert out.exit_code == 126 and out.stdout == "start\n"
    assert "sandbash limit exceeded: max_loop_iterations" in out.stderr
    assert out.text().endswith("[limit exceeded: max_loop_iterations]\n[exit code: 126]")


def test_timeout_ms_is_capped_by_the_sandbox() -> None:
    tool = BashTool(limits=Limits(timeout=0.3, max_loop_iterations=10**9, max_command_count=10**9))
    out = tool.run({"command": "while :; do :; done", "timeout_ms": 60_000})
    assert out.limit == "timeout" and out.exit_code == 124
    out = tool.run({"command": "sleep 5", "timeout_ms": 100})
    assert out.limit == "timeout"


# ------------------------------------------------------------------ files, env, sessions


def test_files_are_written_before_the_run(tool: BashTool) -> None:
    out = tool.run(
        {
            "command": "cat notes/a.txt /data/b.txt",
            "files": [
                {"path": "notes/a.txt", "content": "one\n"},
                {"path": "/data/b.txt", "content": "two\n"},
            ],
        }
    )
    assert out.stdout == "one\ntwo\n"
    assert tool.run({"command": "cat /data/b.txt"}).stdout == "two\n"  # files persist


def test_max_file_kb(tool: BashTool) -> None:
    with pytest.raises(ToolInputError, match="larger than max_file_kb"):
        tool.run({"command": "true", "max_file_kb": 1, "files": [{"path": "big", "content": "x" * 2000}]})


def test_file_write_error_is_an_input_error(tool: BashTool) -> None:
    tool.run({"command": "echo x > /tmp/plain"})
    with pytest.raises(ToolInputError, match="cannot write /tmp/plain/x"):
        tool.run({"command": "true", "files": [{"path": "/tmp/plain/x", "content": ""}]})


def test_env_for_one_call(tool: BashTool) -> None:
    assert tool.run({"command": "echo $GREETING", "env": {"GREETING": "hey"}}).stdout == "hey\n"
    assert tool.run({"command": 'echo "[$GREETING]"'}).stdout == "[]\n"


def test_sessions_persist_and_restart() -> None:
    tool = BashTool()
    tool.run({"command": "cd /tmp; x=1; f() { echo in-f; }", "session_id": "a"})
    assert tool.run({"command": "echo $PWD $x; f", "session_id": "a"}).stdout == "/tmp 1\nin-f\n"
    assert tool.run({"command": "echo $PWD [$x]", "session_id": "b"}).stdout == "/home/user []\n"
    tool.run({"command": "echo kept > keep.txt", "session_id": "a"})
    out = tool.run({"command": "echo $PWD [$x]; cat /tmp/keep.txt", "session_id": "a", "restart": True})
    assert out.stdout == "/home/user []\nkept\n"
    assert set(tool.sessions()) == {"a", "b"}


def test_session_env_and_relative_files() -> None:
    tool = BashTool()
    tool.run({"command": "mkdir -p /w; cd /w", "session_id": "s"})
    out = tool.run(
        {
            "command": 'echo "$V"; cat f.txt',
            "session_id": "s",
            "env": {"V": "it's"},
            "files": [{"path": "f.txt", "content": "in w\n"}],
        }
    )
    assert out.stdout == "it's\nin w\n"
    with pytest.raises(ToolInputError, match="invalid variable name"):
        tool.run({"command": "true", "session_id": "s", "env": {"A-B": "1"}})


def test_sessions_are_bounded() -> None:
    tool = BashTool(max_sessions=2)
    for sid in ("a", "b", "c"):
        tool.run({"command": "true", "session_id": sid})
    assert tool.sessions() == ["b", "c"]


def test_allow_network_without_a_grant_changes_nothing(tool: BashTool) -> None:
    out = tool.run({"command": "curl http://example.com/", "allow_network": True})
    assert out.exit_code == 127


def test_allow_network_false_hides_curl_for_that_call_only() -> None:
    from sandbash.net import NetworkConfig

    tool = BashTool(network=NetworkConfig(allowed_url_prefixes=["https://api.example.com/"]))
    assert "api.example.com" in tool.description() and "curl" in tool.available_commands()
    assert tool.run({"command": "type -t curl"}).stdout == "file\n"
    assert tool.run({"command": "curl -s https://x.invalid/", "allow_network": False}).exit_code == 127
    assert tool.run({"command": "type -t curl", "session_id": "s", "allow_network": False}).exit_code == 1
    assert tool.run({"command": "type -t curl", "session_id": "s"}).stdout == "file\n"


def test_policy_shapes_the_description() -> None:
    from sandbash.policy import Policy

    tool = BashTool(
        policy=Policy(commands={"deny": ["rm", "sed"]}, paths=["/data:ro", "/tmp:rw"], mode="read-only")
    )
    assert "sed" not in tool.available_commands() and "grep" in tool.available_commands()
    desc = tool.description()
    assert "read-only" in desc and "/data:ro" in desc and "denied commands: rm, sed" in desc
    assert "Policy:" in tool.system_prompt()
    assert tool.run({"command": "sed --version"}).exit_code == 126


def test_an_existing_bash_can_be_wrapped() -> None:
    bash = Bash(files={"/data/x": "1\n"})
    tool = BashTool(bash, files={"/data/y": "2\n"})
    assert tool.run({"command": "cat /data/x /data/y"}).stdout == "1\n2\n"


# ------------------------------------------------------------------ text for models


def test_description_and_system_prompt_follow_the_configuration() -> None:
    tool = BashTool(limits=Limits(timeout=7, max_output_size=2 * 1024 * 1024))
    desc = tool.description()
    assert "jq" in desc and "awk" in desc and "curl" not in desc.split("Commands:")[1].split(". Not")[0]
    assert "no network" in desc and "7 s wall clock" in desc and "2 MiB of output" in desc
    assert "__RESULT__:" in desc and len(desc) < 3000
    prompt = tool.system_prompt()
    assert "session_id" in prompt and "status 127" in prompt and "7 s" in prompt


def test_policy_gate_filters_the_listed_commands() -> None:
    bash = Bash(command_gate=lambda argv: "denied" if argv[0] == "sed" else None)
    names = BashTool(bash).available_commands()
    assert "sed" not in names and "grep" in names


def test_tool_output_from_cancelled_run() -> None:
    from sandbash import CancelToken

    token = CancelToken()
    token.cancel()
    out = BashTool().run({"command": "sleep 1"}, cancel=token)
    assert out.exit_code == 130 and "cancelled" in out.stderr


# ------------------------------------------------------------------ CLI --json


def test_cli_json() -> None:
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "sandbash",
            "--json",
            "-c",
            "echo hi; echo __RESULT__:'{\"a\": 1}'; echo e >&2; exit 4",
        ],
        capture_output=True,
        timeout=60,
    )
    data = json.loads(p.stdout)
    assert p.returncode == 4
    assert data == {
        "stdout": 'hi\n__RESULT__:{"a": 1}\n',
        "stderr": "e\n",
        "exit_code": 4,
        "result_json": {"a": 1},
        "stdout_truncated": False,
        "stderr_truncated": False,
        "limit": None,
    }


def test_cli_json_limit() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "sandbash", "--json", "--limits", "hardened", "-c", "while :; do :; done"],
        capture_output=True,
        timeout=60,
    )
    data = json.loads(p.stdout)
    assert data["limit"] is not None and data["exit_code"] == 126 == p.returncode


def test_tool_output_from_result_defaults() -> None:
    from sandbash import ExecResult

    out = ToolOutput.from_result(ExecResult(b"", b"", 0))
    assert not out.is_error and out.text() == "(no output)\n[exit code: 0]"
