"""Session snapshots: every piece of state survives a round trip, and bad bytes change nothing."""

from __future__ import annotations

import json
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbash import Bash, Limits, Policy
from sandbash.sessions import SnapshotError
from sandbash.sessions.snapshot import MAGIC, VERSION
from sandbash.vfs import MemoryFs, MountFs

# what a second call can observe of the session's state
OBSERVE = (
    "declare -p | grep -v -e '^declare -[-a-zA-Z]* \\(BASHPID\\|SECONDS\\|EPOCH\\|SRANDOM\\|RANDOM\\|_=\\)';"
    ' declare -f; alias; set -o; shopt; pwd; dirs; umask; echo "$# $*"; hash 2>&1; trap;'
    " ls -laR /w 2>&1 | grep -v total; find /w -type f -exec cat {} +; echo r=$RANDOM $RANDOM"
)

STATE_PIECES = [
    ("variables", "x=1; y='two words'; z=$'tab\\there'"),
    ("arrays", "a=(p 'q r' s); a[10]=t; declare -A m=([k]=v ['sp ace']=w)"),
    (
        "attributes",
        "declare -i n=3+4; declare -l lo=ABC; declare -u up=abc; export E=1; readonly R=ro; declare -x X",
    ),
    ("unset-declared", "declare -a empty; local_like=; declare nothing"),
    ("functions", 'f() { echo "f:$1"; }; function g { local v=1; echo g$v; } >/dev/null; h() ( echo sub )'),
    ("exported-function", "k() { echo k; }; export -f k; readonly -f k"),
    ("aliases", "alias ll='ls -l' q='echo \"quoted\"'"),
    ("options", "set -o pipefail -o noclobber -u; shopt -s extglob nullglob globstar"),
    ("traps", "trap 'echo bye' EXIT; trap '' USR1; trap 'echo int' INT"),
    ("cwd-and-dirstack", "mkdir -p /w/a/b; cd /w/a; pushd /w/a/b >/dev/null; pushd /tmp >/dev/null"),
    ("umask", "umask 027"),
    ("positional", "set -- one 'two three' '' four"),
    ("hash", "hash -p /usr/bin/ls myls"),
    ("random", "RANDOM=1234; : $RANDOM"),
    (
        "files",
        "mkdir -p /w/d; printf 'a\\0b\\xff' > /w/d/bin; echo t > /w/t; chmod 640 /w/t; ln -s t /w/l; "
        "ln /w/t /w/hard; touch -d '2020-01-02 03:04:05' /w/t; mkdir -m 700 /w/private",
    ),
    ("status", "false"),
    ("extglob-function", "shopt -s extglob; e() { case $1 in @(a|b)) echo ab;; esac; }"),
]


def _session(**kw: object) -> object:
    return Bash(seed=7, **kw).session()  # type: ignore[arg-type]


@pytest.mark.parametrize("name,script", STATE_PIECES, ids=[p[0] for p in STATE_PIECES])
def test_each_piece_of_state_survives(name: str, script: str) -> None:
    one = _session()
    one.exec("mkdir -p /w; " + script)  # type: ignore[attr-defined]
    restored = Bash(seed=99).restore(one.snapshot())  # type: ignore[attr-defined]
    a = one.exec(OBSERVE)  # type: ignore[attr-defined]
    b = restored.exec(OBSERVE)
    assert (b.stdout, b.stderr, b.exit_code) == (a.stdout, a.stderr, a.exit_code)


ATOMS = st.sampled_from(
    [
        "x=$RANDOM",
        "x+=a",
        "unset x",
        "a+=(v$RANDOM)",
        "declare -A m; m[$RANDOM]=1",
        "declare -i n; n+=5",
        "f() { echo f$1; }",
        "unset -f f",
        "alias al='echo al'",
        "unalias -a",
        "mkdir -p /w/d$RANDOM",
        "cd /w",
        "cd /w/d* 2>/dev/null || cd /",
        "echo line >> /w/log",
        "rm -f /w/log",
        "set -o pipefail",
        "set +o pipefail",
        "shopt -s nullglob",
        "umask 077",
        "export V=$RANDOM",
        "set -- p q",
        "shift",
        "pushd /tmp >/dev/null",
        "popd >/dev/null 2>&1",
        "ln -sf log /w/link",
        "chmod 600 /w/log 2>/dev/null",
        "trap 'echo t' USR2",
        "trap - USR2",
        "hash -p /usr/bin/cat kitty",
        "false",
        "readonly RO$RANDOM=1",
    ]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ATOMS, min_size=1, max_size=8), st.lists(ATOMS, max_size=4))
def test_snapshot_between_calls_is_invisible(first: list[str], second: list[str]) -> None:
    """Running A, snapshot, restore elsewhere, B: the same as running A then B in one session."""
    a_text = "mkdir -p /w; " + "; ".join(first)
    b_text = "; ".join(second + [OBSERVE])
    one = _session()
    one.exec(a_text)  # type: ignore[attr-defined]
    data = one.snapshot()  # type: ignore[attr-defined]
    want = one.exec(b_text)  # type: ignore[attr-defined]
    got = Bash(seed=123).restore(data).exec(b_text)
    assert (got.stdout, got.stderr, got.exit_code) == (want.stdout, want.stderr, want.exit_code)


def test_fork_is_independent() -> None:
    s = _session()
    s.exec("mkdir -p /w; echo one > /w/f; x=1")  # type: ignore[attr-defined]
    child = s.fork()  # type: ignore[attr-defined]
    child.exec("echo two > /w/f; x=2; g() { :; }")
    assert s.exec("cat /w/f; echo $x; type -t g").stdout == "one\n1\n"  # type: ignore[attr-defined]
    assert child.exec("cat /w/f; echo $x; type -t g").stdout == "two\n2\nfunction\n"


def test_snapshot_is_compact_and_versioned() -> None:
    s = _session()
    empty = len(s.snapshot())  # type: ignore[attr-defined]
    s.exec("for i in {1..200}; do echo 'the same line of text' >> /tmp/log; done")  # type: ignore[attr-defined]
    data = s.snapshot()  # type: ignore[attr-defined]
    assert data[: len(MAGIC)] == MAGIC and data[len(MAGIC)] == VERSION
    assert empty < 8000  # a fresh shell: its variables and the random generator's state
    assert len(data) - empty < 600  # 4.4 KB of repeated log compresses


def test_limits_and_policy_come_from_the_restoring_host() -> None:
    s = Bash(limits="generous").session()
    s.exec("mkdir -p /w; echo secret > /w/key")
    data = s.snapshot()
    strict = Bash(policy=Policy(["echo"], paths=["/tmp:rw"]), limits=Limits().with_overrides(timeout=2))
    r = strict.restore(data).exec("cat /w/key")
    assert r.exit_code == 126 and "secret" not in r.stdout
    assert strict.limits.timeout == 2


# ---------------------------------------------------------------- hostile snapshots


def _pack(doc: object) -> bytes:
    return MAGIC + bytes([VERSION]) + zlib.compress(json.dumps(doc).encode())


def _doc() -> dict:
    s = _session()
    s.exec("mkdir -p /w; echo ok > /w/f; v=1; f() { :; }")  # type: ignore[attr-defined]
    data = s.snapshot()  # type: ignore[attr-defined]
    return json.loads(zlib.decompress(data[len(MAGIC) + 1 :]))


def _mutated(change: str) -> bytes:
    doc = _doc()
    sh = doc["shell"]
    root = next(m for m in doc["mounts"] if m["path"] == "/")
    nodes = root["image"]["nodes"]
    if change == "function-injection":
        sh["functions"][0]["text"] = "f() { :; }; rm -rf /"
    elif change == "function-not-parsing":
        sh["functions"][0]["text"] = "f() { "
    elif change == "function-renamed":
        sh["functions"][0]["name"] = "other"
    elif change == "var-bad-attrs":
        sh["vars"]["v"][0] = "rw"
    elif change == "var-bad-kind":
        sh["vars"]["v"][1] = "?"
    elif change == "var-array-negative-index":
        sh["vars"]["v"] = [0, "a", [[-1, "x"]]]
    elif change == "path-traversal":
        nodes.append(
            {"path": "/w/../../etc/x", "kind": "f", "mode": 420, "uid": 0, "gid": 0, "mtime": 0, "data": ""}
        )
    elif change == "path-with-nul":
        nodes.append(
            {"path": "/w/a\0b", "kind": "f", "mode": 420, "uid": 0, "gid": 0, "mtime": 0, "data": ""}
        )
    elif change == "child-before-parent":
        nodes.insert(
            0, {"path": "/nowhere/x", "kind": "f", "mode": 420, "uid": 0, "gid": 0, "mtime": 0, "data": ""}
        )
    elif change == "duplicate-path":
        nodes.append(dict(nodes[-1]))
    elif change == "bad-base64":
        next(n for n in nodes if n["kind"] == "f")["data"] = "***"
    elif change == "hardlink-to-nothing":
        nodes.append({"path": "/w/h", "kind": "h", "of": "/w/missing"})
    elif change == "mode-too-big":
        nodes[0]["mode"] = 1 << 40
    elif change == "time-not-finite":
        nodes[0]["mtime"] = 1e308
    elif change == "time-ns-not-whole":
        nodes[0]["mtime_ns"] = 1.5
    elif change == "time-ns-too-big":
        nodes[0]["atime_ns"] = 10**30
    elif change == "unknown-mount":
        doc["mounts"].append({"path": "/data", "fstype": "hostfs"})
    elif change == "rng-garbage":
        sh["rng"] = [3, [1, 2], None]
    elif change == "cwd-missing":
        sh["cwd"] = "/not/there"
    elif change == "format-field":
        doc["format"] = "other"
    elif change == "not-an-object":
        return _pack([1, 2, 3])
    elif change == "too-many-files":
        nodes.extend(
            {"path": f"/w/f{i}", "kind": "f", "mode": 420, "uid": 0, "gid": 0, "mtime": 0, "data": ""}
            for i in range(20_000)
        )
    elif change == "too-many-bytes":
        nodes.append(
            {
                "path": "/w/big",
                "kind": "f",
                "mode": 420,
                "uid": 0,
                "gid": 0,
                "mtime": 0,
                "data": "QUFB" * (30 << 20),
            }
        )
    return _pack(doc)


MUTATIONS = [
    "function-injection",
    "function-not-parsing",
    "function-renamed",
    "var-bad-attrs",
    "var-bad-kind",
    "var-array-negative-index",
    "path-traversal",
    "path-with-nul",
    "child-before-parent",
    "duplicate-path",
    "bad-base64",
    "hardlink-to-nothing",
    "mode-too-big",
    "time-not-finite",
    "time-ns-not-whole",
    "time-ns-too-big",
    "unknown-mount",
    "rng-garbage",
    "cwd-missing",
    "format-field",
    "not-an-object",
    "too-many-files",
    "too-many-bytes",
]


def test_file_times_survive_to_the_nanosecond() -> None:
    s = _session()
    s.exec("mkdir -p /w; touch -d '2024-01-02 03:04:05.123456789' /w/f; touch -d @1.000000001 /w")  # type: ignore[attr-defined]
    restored = Bash(seed=1).restore(s.snapshot())  # type: ignore[attr-defined]
    r = restored.exec("stat -c '%n %.9Y %.9X' /w/f /w")
    assert r.stdout == "/w/f 1704164645.123456789 1704164645.123456789\n/w 1.000000001 1.000000001\n"


def test_an_image_with_float_seconds_still_loads() -> None:
    """Images written before times were nanoseconds hold `mtime`/`atime` as float seconds."""
    doc = _doc()
    root = next(m for m in doc["mounts"] if m["path"] == "/")
    for node in root["image"]["nodes"]:
        node.pop("mtime_ns", None)
        node.pop("atime_ns", None)
        node["mtime"] = 1704164645.5
        if node["path"] == "/w/f":
            node["atime"] = 12.25
    r = Bash(seed=1).restore(_pack(doc)).exec("stat -c '%.9Y %.9X' /w/f; stat -c %.3Y /w")
    assert r.stdout == "1704164645.500000000 12.250000000\n1704164645.500\n"


@pytest.mark.parametrize("change", MUTATIONS)
def test_a_bad_snapshot_is_refused_and_changes_nothing(change: str) -> None:
    data = _mutated(change)
    target = Bash(limits=Limits().with_overrides(max_filesystem_bytes=16 << 20))
    target.write_file("/keep", "mine\n")
    with pytest.raises(SnapshotError) as e:
        target.restore(data)
    assert str(e.value) and "Traceback" not in str(e.value)
    assert target.read_file("/keep") == b"mine\n" and not target.fs.exists("/w")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"garbage",
        MAGIC,
        MAGIC + bytes([VERSION + 1]) + b"x",
        MAGIC + bytes([VERSION]) + b"not zlib",
        MAGIC + bytes([VERSION]) + zlib.compress(b"{")[:-3],
        MAGIC + bytes([VERSION]) + zlib.compress(b"\xff\xfe"),
        MAGIC + bytes([VERSION]) + zlib.compress(b"[" * 100_000 + b"]" * 100_000),
    ],
    ids=[
        "empty",
        "garbage",
        "magic-only",
        "future-version",
        "not-zlib",
        "truncated",
        "not-utf8",
        "deep-json",
    ],
)
def test_damaged_bytes_are_refused(data: bytes) -> None:
    with pytest.raises(SnapshotError):
        Bash().restore(data)


def test_inflation_bomb_is_refused_without_inflating_it() -> None:
    bomb = MAGIC + bytes([VERSION]) + zlib.compress(b" " * (400 << 20), 9)  # 400 MB of spaces, ~400 KB packed
    with pytest.raises(SnapshotError, match="inflates past"):
        Bash().restore(bomb)


_FLIP_BASE: list[bytes] = []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(1, 255)), min_size=1, max_size=4))
def test_flipped_bytes_never_escape_as_other_errors(flips: list[tuple[int, int]]) -> None:
    if not _FLIP_BASE:
        s = _session()
        s.exec("mkdir -p /w; echo x > /w/f; a=(1 2); f() { echo; }")  # type: ignore[attr-defined]
        _FLIP_BASE.append(s.snapshot())  # type: ignore[attr-defined]
    raw = bytearray(_FLIP_BASE[0])
    for at, bits in flips:
        raw[at % len(raw)] ^= bits
    try:
        Bash().restore(bytes(raw))
    except SnapshotError:
        pass


def test_host_backed_mount_is_recorded_not_copied(tmp_path: object) -> None:
    from sandbash.vfs import ReadWriteFs

    host = tmp_path / "data"  # type: ignore[operator]
    host.mkdir()
    (host / "big").write_bytes(b"h" * 100_000)
    tree = MountFs(MemoryFs())
    tree.mount("/data", ReadWriteFs(str(host)))
    s = Bash(fs=tree).session()
    s.exec("cd /data; x=1")
    data = s.snapshot()
    assert len(data) < 20_000  # the host file is not in it
    with pytest.raises(SnapshotError, match="/data"):
        Bash().restore(data)  # no such mount here
    again = MountFs(MemoryFs())
    again.mount("/data", ReadWriteFs(str(host)))
    r = Bash(fs=again).restore(data).exec("pwd; echo $x; wc -c < big")
    assert r.stdout == "/data\n1\n100000\n"


def test_hash_marks_past_dot_survive() -> None:
    """A name a PATH search found past `.` (HashTable.dotted): after a restore, an executable
    ./NAME made later runs instead of the hashed file, as in the session that made the entry."""
    setup = (
        "mkdir -p /w/bin; cd /w; printf '#!/bin/sh\\necho bin\\n' > bin/tool; chmod +x bin/tool; "
        "PATH=.:/w/bin:$PATH; tool; hash -t tool"
    )
    later = "printf '#!/bin/sh\\necho dot\\n' > tool; chmod +x tool; tool; type tool; hash -t tool"
    one = _session()
    first = one.exec(setup)  # type: ignore[attr-defined]
    assert first.stdout == "bin\n/w/bin/tool\n"
    restored = Bash(seed=99).restore(one.snapshot())  # type: ignore[attr-defined]
    want = one.exec(later)  # type: ignore[attr-defined]
    got = restored.exec(later)
    assert want.stdout.startswith("dot\n")
    assert (got.stdout, got.stderr, got.exit_code) == (want.stdout, want.stderr, want.exit_code)


def test_restored_tables_are_charged_once() -> None:
    """The alias, hash and completion tables a snapshot brings are charged to the session's account
    once each (the shell's own empty tables give theirs back as they are replaced)."""
    from sandbash.interp.state import AliasTable, CompletionTable, HashTable

    doc = _doc()
    doc["shell"].update(aliases={}, hashed={}, hash_hits={}, completions={})  # (mkdir was hashed)
    bare = Bash(seed=123).restore(_pack(doc)).shell.state.vars.acct.held  # type: ignore[attr-defined]
    aliases = {f"a{i}": "echo " + "x" * 1000 for i in range(20)}
    hashed = {f"h{i}": "script:/usr/bin/" + "y" * 500 for i in range(20)}
    spec = {"A": [], "o": [], "W": ["w" * 700]}
    doc["shell"].update(
        aliases=aliases, hashed=hashed, hash_hits={"h1": 3}, completions={f"c{i}": spec for i in range(5)}
    )
    session = Bash(seed=123).restore(_pack(doc))
    tables = AliasTable(aliases).total() + HashTable(hashed).total()
    tables += CompletionTable({f"c{i}": spec for i in range(5)}).total()
    assert session.shell.state.vars.acct.held - bare == tables  # type: ignore[attr-defined]
    assert "   3\t/usr/bin/" in session.exec("hash").stdout
