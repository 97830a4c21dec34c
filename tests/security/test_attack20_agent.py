"""Attack round 20 on the agent tool's input and the MCP server's file tools.

Fell and fixed: JSON carries lone surrogates (`"\\ud800"`), which no UTF-8 encode takes. A
`files` entry of the bash tool, or MCP `write_file`, whose path or content held one raised
UnicodeEncodeError out of `BashTool.run` (MCP: "Error executing tool ...", a traceback in the
server's log); a `session_id` holding one did the same in store mode (sqlite://). Tool input is
now cleaned as `Bash.exec` cleans a script (`agent.tool.clean_input`), and a session id no store
can keep is a one-line input error.

Fell and fixed: writing a device that refuses the bytes (`/dev/full`) through MCP `write_file` or
a call's `files` let the stream's error escape the tool; `Vfs.write_bytes` now answers it as the
file's error (`No space left on device`), as `read_bytes` already did for reads.

Held, kept as guards: the file tools on every device and on NUL, long and deep paths answer one
line naming the path.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sandbash.agent.tool import BashTool, ToolInputError

SURROGATE_INPUTS: list[dict[str, Any]] = [
    {"command": "cat x | od -An -tx1", "files": [{"path": "x", "content": "a\ud800b"}]},
    {"command": "ls | od -An -tx1", "files": [{"path": "\ud800", "content": "y"}]},
    {"command": "ls | od -An -tx1", "files": [{"path": "\udcff\ud800", "content": "\udfff"}]},
    {"command": 'printf %s "$A" | od -An -tx1', "env": {"A": "\ud800"}},
    {"command": "echo \ud800 | od -An -tx1"},
    {"command": "echo hi", "session_id": "\ud800"},
    {"command": "echo hi", "session_id": "s\udcff"},
    {"command": "echo $A", "session_id": "s", "env": {"A": "\udbff\udfff"}},
    {"command": "echo $A", "session_id": "s", "env": {"\ud800": "x"}},
]


@pytest.mark.parametrize("store", [None, "memory://", "sqlite"])
@pytest.mark.parametrize("request_", SURROGATE_INPUTS, ids=range(len(SURROGATE_INPUTS)))
def test_lone_surrogates_in_tool_input(store: str | None, request_: dict[str, Any], tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/s.db" if store == "sqlite" else store
    tool = BashTool(store=url)
    try:
        out = tool.run(request_)
    except ToolInputError as e:  # a one-line refusal is an answer too
        assert "\n" not in str(e)
        return
    assert out.limit is None, out.text()
    if "od" in request_["command"]:
        # the lone surrogate became the bytes it would encode to, as Bash.exec makes a script's
        assert "ed a0 80" in out.stdout or "ed bf bf" in out.stdout, out.text()


def test_surrogate_file_lands_as_its_bytes() -> None:
    tool = BashTool()
    tool.run({"command": ":", "files": [{"path": "/tmp/\ud800", "content": "x\ud800"}]})
    assert tool.bash.read_file("/tmp/\udced\udca0\udc80") == b"x\xed\xa0\x80"


def _mcp_calls(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str]]:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'sandbash[mcp]')")
    from mcp import Client

    from sandbash.agent.mcp_server import build_server

    async def main() -> list[tuple[bool, str]]:
        async with Client(build_server(BashTool())) as client:
            answers = []
            for name, args in calls:
                r = await client.call_tool(name, args)
                answers.append((bool(r.is_error), "".join(getattr(b, "text", "") for b in r.content)))
            return answers

    return asyncio.run(asyncio.wait_for(main(), 120))


# (tool, arguments, the line it answers); None: any answer of one line that is not the SDK's own
FILE_TOOL_CASES: list[tuple[str, dict[str, Any], str | None]] = [
    ("write_file", {"path": "/dev/full", "content": "x"}, "/dev/full: No space left on device"),
    (
        "write_file",
        {"path": "/dev/full", "content": "x", "append": True},
        "/dev/full: No space left on device",
    ),
    (
        "bash",
        {"command": "echo hi", "files": [{"path": "/dev/full", "content": "x"}]},
        "files: cannot write /dev/full: No space left on device",
    ),
    ("write_file", {"path": "\ud800", "content": "x"}, None),
    ("write_file", {"path": "/tmp/f", "content": "\ud800"}, None),
    ("bash", {"command": "echo hi", "files": [{"path": "\ud800", "content": "\udfff"}]}, None),
    ("read_file", {"path": "/dev/zero"}, "/dev/zero: Cannot allocate memory"),
    ("read_file", {"path": "/dev/urandom"}, "/dev/urandom: Cannot allocate memory"),
    ("read_file", {"path": "/dev/stdin"}, "/dev/stdin: No such device or address"),
    ("read_file", {"path": "/dev/fd/0"}, "/dev/fd/0: No such device or address"),
    ("read_file", {"path": "a\x00b"}, "a\x00b: Invalid argument"),
    ("list_dir", {"path": "/dev/zero"}, "/dev/zero: Not a directory"),
    ("write_file", {"path": "/tmp/" + "a" * 5000, "content": "x"}, None),
    ("list_dir", {"path": "/tmp/" + "a/" * 20000}, None),
    ("read_file", {"path": "\ud800", "session_id": "\ud800"}, None),
]


def test_file_tools_answer_one_line() -> None:
    answers = _mcp_calls([(name, args) for name, args, _ in FILE_TOOL_CASES])
    for (name, args, want), (is_error, text) in zip(FILE_TOOL_CASES, answers, strict=True):
        if want is not None:
            assert text == want, (name, args, text)
        assert not text.startswith("Error executing tool"), (name, args, text)
        assert "Traceback" not in text and (name == "bash" or "\n" not in text), (name, args, text)
        assert is_error or want is None, (name, args, text)
