"""Attack round 20 on the agent tool's input and the MCP server's file tools (T-MCP-6).

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


# Fell and fixed: MCP read_file read the whole file into the server's memory, outside any run's
# budget, for every call at once: a large file under a host mount (`--mount`, `--root`, a [host]
# path) took the server down. It now reads the file's two ends (what it shows).
_READ_BIG = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from sandbash.agent.mcp_server import ServerConfig, _Calls, build_tool
tool = build_tool(ServerConfig(mounts=[sys.argv[1] + ":/data:ro"], max_output_chars=1000))
calls = _Calls(tool)
print(calls.read_file({"path": "/data/zeros"}, "local"))
print(calls.read_file({"path": "/data/text"}, "local"))
"""


def test_read_file_of_a_large_host_file_reads_its_ends(tmp_path: Path) -> None:
    import subprocess
    import sys

    data = tmp_path / "data"
    data.mkdir()
    with open(data / "zeros", "wb") as f:
        f.truncate(3 << 30)  # sparse: 3 GB that take no disk, over the child's address space
    with open(data / "text", "wb") as f:  # text at both ends (more than is read), holes between
        f.write(b"first line\n" + b"some text\n" * 1000)
        f.truncate(3 << 30)
        f.seek((3 << 30) - 10010)
        f.write(b"more text\n" * 1000 + b"last line\n")
    env = {"PYTHONPATH": str(Path(__file__).parents[2] / "src"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-c", _READ_BIG, str(data)], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("[binary output: 3,221,225,472 bytes, not shown"), proc.stdout[:300]
    lines = proc.stdout.rstrip("\n").splitlines()
    assert "first line" in lines and lines[-1] == "last line", proc.stdout[-300:]
