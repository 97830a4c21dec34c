"""Attack round 21: last round's leftovers (T-MCP-6, T-TEN-7).

Fell and fixed: MCP `list_dir` returned every entry of a directory however many (10,000 entries:
~39,000 characters under `max_output_chars=1000`); it now stops at `max_output_chars` and says how
many entries it left out, without a stat for each of them.

Fell and fixed: `clean_text` re-encoded a string holding a lone surrogate whole with
`surrogatepass`, so an escaped byte in the same string (U+DCFF, the byte FF) became three bytes
(ED B3 BF). Each surrogate is now taken on its own.

Fell and fixed: a session snapshot saved `complete` specifications but restore dropped them; they
are now restored, checked (an action name `complete -p` does not know is refused, not a
traceback later) and charged (to the account, and within `max_session_memory`).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from sandbash import Bash, Limits
from sandbash.api import clean_text
from sandbash.sessions.errors import SnapshotError
from sandbash.sessions.snapshot import MAGIC, VERSION


def test_list_dir_is_cut_to_max_output_chars() -> None:
    from sandbash.agent.mcp_server import ServerConfig, _Calls, build_tool

    tool = build_tool(ServerConfig(max_output_chars=1000))
    tool.bash.exec("mkdir -p /tmp/d && cd /tmp/d && for ((i=0;i<5000;i++)); do : > f$i; done")
    out = _Calls(tool).list_dir({"path": "/tmp/d"}, "local")
    lines = out.splitlines()
    assert len(out) < 1100, len(out)
    assert (
        lines[0] == "f0\t0"
        and lines[-1].startswith("[… ")
        and lines[-1].endswith(" more entries not shown …]")
    )
    shown = len(lines) - 1
    assert lines[-1] == f"[… {5000 - shown:,} more entries not shown …]"
    small = _Calls(tool).list_dir({"path": "/tmp"}, "local")
    assert small == "d/"


# Fell and fixed: list_dir printed names as they are, so a file named "x\t0\nsecrets.txt" showed
# as two entries (one forged). A name holding a character `ls` escapes is quoted as `ls` quotes it.
def test_list_dir_names_cannot_forge_entries() -> None:
    from sandbash.agent.mcp_server import ServerConfig, _Calls, build_tool

    tool = build_tool(ServerConfig())
    tool.bash.exec(
        "mkdir -p /tmp/e/$'dir\nfake' && cd /tmp/e && printf ab > $'x\t0\nsecrets.txt' && : > 'a b'"
    )
    out = _Calls(tool).list_dir({"path": "/tmp/e"}, "local")
    assert out.splitlines() == ["a b\t0", "'dir'$'\\n''fake'/", "'x'$'\\t''0'$'\\n''secrets.txt'\t2"]


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("\ud800\udcff", b"\xed\xa0\x80\xff"),
        ("\udcff\udfff", b"\xff\xed\xbf\xbf"),
        ("a\udc80b\ud83d\ude00", b"a\x80b\xed\xa0\xbd\xed\xb8\x80"),
        ("\udcffonly escaped", b"\xffonly escaped"),
    ],
)
def test_clean_text_keeps_escaped_bytes_next_to_lone_surrogates(text: str, raw: bytes) -> None:
    assert clean_text(text).encode("utf-8", "surrogateescape") == raw
    got = Bash().exec('printf %s "$1" | od -An -tx1', args=[text]).stdout.split()
    assert bytes(int(h, 16) for h in got) == raw


def _doc(data: bytes) -> dict:
    return json.loads(zlib.decompress(data[len(MAGIC) + 1 :]))


def _pack(doc: dict) -> bytes:
    return MAGIC + bytes([VERSION]) + zlib.compress(json.dumps(doc).encode())


def test_snapshot_restores_completions() -> None:
    bash = Bash()
    one = bash.session()
    one.exec("complete -W 'alpha beta' -o nospace git; complete -F _f -A function x; complete -E -d")
    want = one.exec("complete -p").stdout
    assert want.count("\n") == 3
    two = bash.restore(one.snapshot())  # type: ignore[attr-defined]
    assert two.exec("complete -p").stdout == want
    assert two.exec("complete -r git; complete -p git").exit_code == 1


@pytest.mark.parametrize(
    "spec",
    [
        {"A": ["nosuchaction"], "o": []},
        {"A": [], "o": ["nosuchoption"]},
        {"A": [], "o": [], "W": ["a", "b"]},
        {"A": [], "o": [], "Z": ["x"]},
        {"A": "file", "o": []},
        {"o": []},
        ["A"],
    ],
)
def test_snapshot_completion_not_made_by_complete_is_refused(spec: object) -> None:
    bash = Bash()
    one = bash.session()
    one.exec("complete -W w c")
    doc = _doc(one.snapshot())  # type: ignore[attr-defined]
    doc["shell"]["completions"]["c"] = spec
    with pytest.raises(SnapshotError, match="completion 'c': not one complete makes"):
        bash.restore(_pack(doc))  # type: ignore[attr-defined]


def test_snapshot_completions_count_towards_max_session_memory() -> None:
    bash = Bash(limits=Limits(max_session_memory=1 << 20))
    one = bash.session()
    doc = _doc(one.snapshot())  # type: ignore[attr-defined]
    word = "w" * 200_000
    doc["shell"]["completions"] = {f"c{i}": {"A": [], "o": [], "W": [word]} for i in range(8)}
    with pytest.raises(SnapshotError, match="max_session_memory"):
        bash.restore(_pack(doc))  # type: ignore[attr-defined]
    doc["shell"]["completions"] = {"c0": {"A": [], "o": [], "W": [word]}}
    two = bash.restore(_pack(doc))  # type: ignore[attr-defined]
    assert two.shell.state.vars.acct.held >= 200_000


# Fell and fixed: restore checked only variables and functions against max_session_memory; aliases
# and hash-table entries (charged to the same account) were not, so a snapshot holding 1.6 MB of
# aliases restored under a 1 MiB cap and the session's next call ended on max_session_memory.
@pytest.mark.parametrize("table", ["aliases", "hashed"])
def test_snapshot_tables_count_towards_max_session_memory(table: str) -> None:
    bash = Bash(limits=Limits(max_session_memory=1 << 20))
    doc = _doc(bash.session().snapshot())  # type: ignore[attr-defined]
    value = "x" * 200_000 if table == "aliases" else "script:/usr/bin/" + "x" * 4000
    count = 8 if table == "aliases" else 400
    doc["shell"][table] = {f"a{i}": value for i in range(count)}
    with pytest.raises(SnapshotError, match="max_session_memory"):
        bash.restore(_pack(doc))  # type: ignore[attr-defined]
    doc["shell"][table] = {f"a{i}": value for i in range(count // 4)}
    two = bash.restore(_pack(doc))  # type: ignore[attr-defined]
    assert two.exec("echo ok").stdout == "ok\n"


# Fell and fixed (T-FS-10): host mode's `df PATH` took statvfs of the host path as given, so a host
# link inside a grant leading out of it (`root -> /`, `up -> ../..`), which every file command
# refuses (EACCES), told whether any host file exists (`df g/root/etc/shadow`: a table, or `No
# such file or directory`) and which directories are procfs (0 blocks). df now resolves the path
# in the sandbox first and measures its canonical path.
def test_host_df_does_not_follow_a_link_out_of_its_grant(tmp_path: Path) -> None:
    from sandbash.host import HostAccess

    grant, outside = tmp_path / "g", tmp_path / "outside"
    (grant / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "there").write_text("x")
    (grant / "f").write_text("f")
    (grant / "root").symlink_to("/")
    (grant / "up").symlink_to("../..")
    (grant / "out").symlink_to(outside)
    bash = Bash(host=HostAccess(paths=[str(grant)]))
    g = str(grant)
    for tail in ("root/proc/1", "root/etc", "up", "out/there", "out/missing", "root/no/such"):
        r = bash.exec(f"df {g}/{tail}")
        assert (r.exit_code, r.stderr) == (1, f"df: {g}/{tail}: Permission denied\n"), tail
        assert r.stdout.count("\n") == 1, tail  # the heading only
    for tail in ("", "/f", "/sub"):
        r = bash.exec(f"df {g}{tail}")
        assert r.exit_code == 0 and r.stdout.splitlines()[1].endswith(f" {g}"), (tail, r)
    r = bash.exec(f"df {g}/missing /etc")
    assert r.stderr == f"df: {g}/missing: No such file or directory\ndf: /etc: not under a granted path\n"


# Fell and fixed (T-CMD-7): `sudo` handed the embedder's elevation callback the run's whole
# environment, and the static check judged the words under it. `PATH=/grant:$PATH sudo cat f`,
# after the run wrote an executable `cat` into a `:rw` host grant, was allowed as `cat` and gave
# the privileged helper a PATH leading to that script (also LD_PRELOAD, BASH_ENV). The elevated
# command now gets sudo's reset environment (secure PATH, terminal and locale variables only).
def test_sudo_hands_over_a_reset_environment(tmp_path: Path) -> None:
    from sandbash.host import ElevationRequest, ElevationResult, HostAccess
    from sandbash.host.elevation import SECURE_PATH
    from sandbash.policy import Policy

    grant = tmp_path / "rw"
    grant.mkdir()
    calls: list[ElevationRequest] = []

    def elevate(req: ElevationRequest) -> ElevationResult:
        calls.append(req)
        return ElevationResult(0, b"done\n")

    bash = Bash(
        host=HostAccess(paths=[f"{grant}:rw"], elevatable_commands=["cat"], elevate=elevate),
        policy=Policy(mode="remediation"),
    )
    r = bash.exec(
        f"printf '#!/bin/sh\\nid\\n' > {grant}/cat; chmod +x {grant}/cat; export PATH={grant}:$PATH "
        f"LD_PRELOAD={grant}/x.so BASH_ENV={grant}/env SECRET=s TERM=xterm LC_ALL=../../x; "
        "LANG=C.UTF-8 sudo cat /etc/hostname"
    )
    assert (r.exit_code, r.stdout) == (0, "done\n"), r
    assert [(c.argv, dict(c.env)) for c in calls] == [
        (("cat", "/etc/hostname"), {"PATH": SECURE_PATH, "TERM": "xterm", "LANG": "C.UTF-8"})
    ]
