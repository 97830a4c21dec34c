"""A code-reading attacker's pass over the newer surfaces (sec-attack10): session snapshots.

`Bash.restore` takes bytes that may come from anywhere (a store other processes write, an agent's
saved state); restoring them must be as safe as running an untrusted script (sessions/snapshot.py).
- Memory: a snapshot within max_snapshot_bytes is JSON, and each decoded value costs Python ~64
  bytes whatever its text: 180 KB of compressed `[],[],...` decoded to past 1 GB (a MemoryError out of
  the API, or the embedder swapped). decode now bounds the values first (max_snapshot_values, derived
  from what restoring charges); counted without the strings' own characters, so a real session whose
  variables hold many commas still restores.
- Policy: a restored hash-table entry of a kind the shell never makes (`cat` -> `builtin:/usr/bin/rm`)
  made the gate decide on `cat` while run_external ran the path's base, rm: an allow-list of cat, echo
  and ls ran rm. The restore refuses such entries; the executor searches PATH again for any it finds in
  its table, and the gate's `_runs` names the path's base for every kind run_external runs that way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zlib
from typing import Any

import pytest

from sandbash import Bash
from sandbash.interp import evaluator as evaluator_module
from sandbash.policy import Policy
from sandbash.sessions.errors import SnapshotError
from sandbash.sessions.snapshot import MAGIC, VERSION

ALLOW = Policy(["cat", "echo", "ls"], paths=["/tmp:rw"], mode="remediation", name="allow-list")
DENY = Policy(deny=["rm", "bash"], paths=["/tmp:rw"], mode="remediation", name="deny-rm-bash")


@pytest.fixture(params=[False, True], ids=["compiled", "walked"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", request.param)
    return bool(request.param)


def _doc(session: Any) -> dict[str, Any]:
    data: bytes = session.snapshot()
    doc: dict[str, Any] = json.loads(zlib.decompress(data[len(MAGIC) + 1 :]))
    return doc


def _pack(doc: dict[str, Any]) -> bytes:
    return MAGIC + bytes([VERSION]) + zlib.compress(json.dumps(doc).encode("utf-8", "surrogatepass"))


# A child process under an address-space limit builds the hostile snapshot as a stream (it never
# holds the text whole) and restores it: it must be refused by name, soon, in bounded memory.
_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time, zlib
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    from sandbash import Bash
    from sandbash.sessions.errors import SnapshotError
    from sandbash.sessions.snapshot import MAGIC, VERSION
    bash = Bash()
    session = bash.session()
    session.exec("x=1")
    text = zlib.decompress(session.snapshot()[len(MAGIC) + 1 :])
    unit, count = sys.argv[1].encode(), int(sys.argv[2])
    z = zlib.compressobj(9)
    parts = [z.compress(text[:-1] + b',"pad":[')]
    block = unit * 100_000
    for _ in range(count // 100_000):
        parts.append(z.compress(block))
    parts.append(z.compress(b'0]}') + z.flush())
    data = MAGIC + bytes([VERSION]) + b"".join(parts)
    del text, block, parts
    start = time.monotonic()
    try:
        bash.restore(data)
        outcome = "restored"
    except SnapshotError as e:
        outcome = "refused: " + str(e)
    except MemoryError:
        outcome = "MemoryError"
    # (VmHWM: this process's own peak; ru_maxrss keeps the forking parent's across exec)
    with open("/proc/self/status") as f:
        peak = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
    print(json.dumps({"outcome": outcome, "seconds": time.monotonic() - start, "peak": peak}))
    """
)


def _restore_in_child(unit: str, count: int) -> dict[str, Any]:
    # the child imports the sandbash this process runs (whatever the working directory is now)
    import sandbash

    src = os.path.dirname(os.path.dirname(os.path.abspath(sandbash.__file__)))
    path = os.pathsep.join([src, *filter(None, [os.environ.get("PYTHONPATH")])])
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=path)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, unit, str(count)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    ("unit", "count"),
    [
        ("[],", 20_000_000),  # 60 MB of empty lists: ~1.3 GB decoded
        ("{},", 20_000_000),  # empty objects
        ('"ab",', 12_000_000),  # short strings (the recount without strings keeps their commas)
        ("1000,", 12_000_000),  # integers past the small-int cache
    ],
    ids=["lists", "objects", "strings", "ints"],
)
def test_snapshot_of_many_small_values_is_refused_in_bounded_memory(unit: str, count: int) -> None:
    got = _restore_in_child(unit, count)
    assert got["outcome"].startswith("refused: snapshot holds more values"), got
    assert got["seconds"] < 30, got
    assert got["peak"] < 700 << 20, got


def test_snapshot_of_unterminated_strings_is_counted_in_one_pass() -> None:
    # a damaged text full of quotes that never close: a string pattern that could fail would be
    # tried again at each quote (quadratic); it is refused (by count or as damaged) at once
    got = _restore_in_child('"\\\\",\\"', 8_000_000)
    assert got["outcome"].startswith("refused: "), got
    assert got["seconds"] < 30, got


def test_snapshot_whose_strings_hold_many_separators_still_restores() -> None:
    # 600,000 of `,:[{` inside a value: over the quick count's bound for these limits, under it
    # once strings are left out
    from sandbash import Limits

    bash = Bash(limits=Limits(max_session_memory=8 << 20, max_array_elements=10_000))
    session = bash.session()
    session.exec("x=$(yes ',:[{' | head -c 600000 | tr -d '\\n'); a=(1 2 3)")
    restored = bash.restore(session.snapshot())
    assert restored.exec("echo ${#x} ${a[2]}").stdout == "480000 3\n"


BAD_ENTRIES = [
    f"{kind}:{where}"
    for kind in ("builtin", "function", "custom", "alias", "X", "", "shell", "command")
    for where in ("/usr/bin/rm", "rm", "/bin/bash", "")
    if not (kind == "shell" and where == "/bin/bash") and not (kind == "command" and where)
]
VICTIM_SCRIPT = (
    "echo hi > /tmp/victim; cat /tmp/victim; for i in 1 2 3; do cat /tmp/victim; done; "
    "f() { cat /tmp/victim; }; f; f; x=$(cat /tmp/victim); command cat /tmp/victim; "
    "(cat /tmp/victim); cat /tmp/victim | cat; cat -c 'rm /tmp/victim'; ls /tmp"
)


@pytest.mark.parametrize("entry", BAD_ENTRIES)
def test_restore_refuses_a_hash_entry_the_shell_never_makes(entry: str) -> None:
    bash = Bash(policy=ALLOW)
    doc = _doc(bash.session())
    doc["shell"]["hashed"] = {"cat": entry}
    with pytest.raises(SnapshotError, match="hash table entry"):
        bash.restore(_pack(doc))


@pytest.mark.parametrize("policy", [ALLOW, DENY], ids=["allow-list", "deny-rm-bash"])
@pytest.mark.parametrize("entry", BAD_ENTRIES + ["shell:/usr/bin/cat"])
def test_a_foreign_hash_entry_never_runs_what_the_gate_did_not_decide(
    entry: str, policy: Policy, walker: bool
) -> None:
    # (an entry put in the table by other means than the restore: the executor's own check)
    session = Bash(policy=policy).session()
    session.shell.state.hashed["cat"] = entry
    r = session.exec(VICTIM_SCRIPT)
    assert r.stdout.count("hi\n") >= 7 and r.stdout.endswith("victim\n"), (r.stdout, r.stderr)
    assert "internal error" not in r.stderr


@pytest.mark.parametrize("policy", [ALLOW, DENY], ids=["allow-list", "deny-rm-bash"])
def test_hash_p_still_decides_on_the_path_run(policy: Policy, walker: bool) -> None:
    # the entries the shell does make keep their meaning: `hash -p /usr/bin/rm cat` runs rm, and the
    # gate refuses it as rm
    r = Bash(policy=policy).exec("echo hi > /tmp/victim; hash -p /usr/bin/rm cat; cat /tmp/victim; ls /tmp")
    assert r.stdout == "victim\n", (r.stdout, r.stderr)
    assert "cat" in r.stderr


# ---------------------------------------------------------------- the static check (check/)
#
# history, fc and bind were the only builtins with neither a model nor a place among the plain
# ones, so the check passed them as touching nothing: `history -r /secret/s`, `history -w` into a
# read-only grant, `fc -s` re-running a refused command from the history were "allowed" and then
# refused by the run (check-vs-run: an allowed script must run without a refusal).

CHECK_POLICY = Policy(
    ["echo", "cat", "history", "fc", "bind", "ls"],
    paths=["/data:ro", "/workspace:rw", "/tmp:rw"],
    mode="remediation",
    name="check-allow",
)


def _check_sandbox() -> tuple[Bash, Any]:
    from sandbash.vfs.facade import Vfs

    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/workspace", "/secret", "/tmp"):
        view.mkdir(d, parents=True)
    view.write_bytes("/data/a.txt", b"alpha\n")
    view.write_bytes("/secret/s.txt", b"SECRET\n")
    view.write_bytes("/workspace/victim", b"v\n")
    return Bash(fs=vfs, policy=CHECK_POLICY, cwd="/workspace"), vfs


NOT_ALLOWED = [
    "history -r /secret/s.txt; history",
    "history -n /secret/s.txt",
    "history -w /data/a.txt",
    "history -a /data/a.txt",
    "history -s x; history -w /data/a.txt",
    "HISTFILE=/data/a.txt; history -s x; history -w",
    "history -w",
    "history -s 'rm /workspace/victim'; fc -s",
    "history -s 'rm /workspace/victim'; fc -s -1",
    "history -s /workspace/victim; fc -e rm -1",
    "history -s /workspace/victim; FCEDIT=rm fc -1",
    "history -s x; fc -e 'rm /workspace/victim;' -1",
    "bind -f /secret/s.txt",
    "bind -f/secret/s.txt",
    "bind -x '\"\\C-x\": rm /workspace/victim'",
    "o=-w; history $o /data/a.txt",
]
STILL_ALLOWED = [
    "history",
    "history -s x; history",
    "history -c",
    "fc -l",
    "history -s x; fc -l -1",
    "history -s x; history -w /workspace/h; history -r /workspace/h; history",
    "bind -x '\"\\C-x\": echo hi'",
]


@pytest.mark.parametrize("script", NOT_ALLOWED)
def test_check_does_not_allow_history_fc_bind_that_the_run_refuses(script: str, walker: bool) -> None:
    from sandbash.check import check

    bash, vfs = _check_sandbox()
    report = check(script, CHECK_POLICY, fs=vfs, cwd="/workspace")
    assert report.status != "allowed", report.to_text()
    r = bash.exec(script)
    view = vfs.view("/")
    assert view.read_bytes("/data/a.txt") == b"alpha\n"
    assert view.read_bytes("/workspace/victim") == b"v\n"
    assert "SECRET" not in r.stdout


@pytest.mark.parametrize("script", STILL_ALLOWED)
def test_check_still_allows_history_fc_bind_inside_the_policy(script: str, walker: bool) -> None:
    from sandbash.check import check

    bash, vfs = _check_sandbox()
    report = check(script, CHECK_POLICY, fs=vfs, cwd="/workspace")
    assert report.status == "allowed", report.to_text()
    r = bash.exec(script)
    assert "policy" not in r.stderr, r.stderr


# ---------------------------------------------------------------- the agent tool's result line
#
# BashTool parses the last `__RESULT__:` line of a script's stdout with json.loads, in the
# embedder's process and outside the run's budget: `[[[[...` raised RecursionError out of
# BashTool.run (a traceback out of the API), and 3M `[],` (9 MB of output) built ~250 MB.


def _tool_run(command: str) -> Any:
    from sandbash.agent.tool import BashTool, ToolRequest

    return BashTool().run(ToolRequest.parse({"command": command}))


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("printf '__RESULT__:'; yes '[' | head -c 50000 | tr -d '\\n'; echo", "nested too deeply"),
        ("printf '__RESULT__:'; yes '{\"a\":' | head -c 60000 | tr -d '\\n'; echo", "invalid JSON after"),
        ("printf '__RESULT__:['; yes '[],' | head -n 3000000 | tr -d '\\n'; echo '0]'", "JSON values"),
        ("printf '__RESULT__:{'; seq -f '\"k%g\":1,' 200000 | tr -d '\\n'; echo '\"z\":0}'", "JSON values"),
    ],
    ids=["deep-lists", "deep-objects", "many-lists", "many-keys"],
)
def test_tool_result_line_is_bounded_and_never_raises(command: str, error: str, walker: bool) -> None:
    out = _tool_run(command)
    assert out.result_json is None
    assert error in (out.to_dict().get("result_json_error") or ""), out.to_dict().get("result_json_error")


@pytest.mark.parametrize(
    ("command", "expect"),
    [
        ("""echo '__RESULT__:{"a":[1,2,3],"s":"x,y:[{"}'""", {"a": [1, 2, 3], "s": "x,y:[{"}),
        # 200,000 commas inside a string: over the quick count, under it outside strings
        (
            """printf '__RESULT__:{"csv":"'; yes , | head -n 200000 | tr -d '\\n'; echo '"}'""",
            {"csv": "," * 200_000},
        ),
    ],
    ids=["small", "commas-in-a-string"],
)
def test_tool_result_line_within_bounds_still_parses(command: str, expect: Any) -> None:
    out = _tool_run(command)
    assert out.result_json == expect, out.to_dict().get("result_json_error")


def test_restoring_many_functions_ends_with_the_sandbox_timeout() -> None:
    # parsing functions was the restore's unbounded step: 20,000 of 540 words took over 2 minutes
    import time

    from sandbash import Limits

    bash = Bash(limits=Limits(timeout=1.0))
    doc = _doc(bash.session())
    body = "echo a b c d e f g h i j k l m n o p q r s t u v w x y z; " * 20
    doc["shell"]["functions"] = [
        {"name": f"f{i}", "text": f"f{i}() {{ {body}}}", "line": 1} for i in range(20_000)
    ]
    start = time.monotonic()
    with pytest.raises(SnapshotError, match="timeout"):
        bash.restore(_pack(doc))
    assert time.monotonic() - start < 15
    # a few functions still restore
    doc["shell"]["functions"] = doc["shell"]["functions"][:3]
    assert bash.restore(_pack(doc)).exec("f2 | wc -w").stdout.strip() == "520"
