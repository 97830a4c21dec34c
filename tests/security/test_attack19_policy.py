"""Attack round 19 on the hash and alias tables, and on what export/readonly do through a nameref.

Fell and fixed: `readonly BASH_CMDS` / `readonly BASH_ALIASES` were ignored (the tables are no
variables of a scope, and the attribute went nowhere): an element, a list, `read`, `printf -v`,
`unset`, `(( ))` and `for` kept writing the table. bash refuses every one of them
("BASH_CMDS: readonly variable") while `hash -p`, `hash -r`, `alias` and `unalias` still work;
the table's -r and -x now live in ShellState.table_attrs, travel with a fork and a snapshot, and a
snapshot's forged attributes are refused. A scalar `BASH_CMDS=/bin/x` made an ordinary variable;
bash writes the entry of key 0, which the gate then decides on like any other entry.

Fell and fixed: node's child_process.execSync dropped the command's standard error (node writes
it on its own unless `stdio` is given), so a refusal inside it left no trace.

Held, kept as guards: whatever writes an entry (readonly or not), the gate decides on the program
the name then runs; each runtime's own file, process and library APIs (sqlite, lua, node, python3)
stay inside the policy; a forged snapshot (paths with `..`, relative or NUL, a path twice, a mount
of another type or one this sandbox lacks) is refused whole and no host file changes.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

from sandbash import Bash
from sandbash.policy import Policy
from sandbash.sessions import SnapshotError
from sandbash.vfs.facade import Vfs

VICTIM = "/workspace/victim"


def sandbox(policy: Policy | None = None) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    view.mkdir("/workspace", parents=True)
    view.write_bytes(VICTIM, b"precious\n")
    return Bash(fs=vfs, cwd="/workspace", policy=policy or Policy({"deny": ["rm"]}))


# every write route into a readonly table: refused, the line's rest as bash runs it (fell)
READONLY_ROUTES = {
    "element": "BASH_CMDS[cat]=/bin/rm",
    "append-list": "BASH_CMDS+=([cat]=/bin/rm)",
    "list": "BASH_CMDS=([cat]=/bin/rm)",
    "scalar": "BASH_CMDS=/bin/rm",
    "declare-element": "declare 'BASH_CMDS[cat]=/bin/rm'",
    "declare-list": "declare -A BASH_CMDS='([cat]=/bin/rm)'",
    "read": "read 'BASH_CMDS[cat]' <<< /bin/rm",
    "printf-v": "printf -v 'BASH_CMDS[cat]' /bin/rm",
    "nameref": "declare -n r=BASH_CMDS; r[cat]=/bin/rm",
    "function-global": "f() { declare -g 'BASH_CMDS[cat]=/bin/rm'; }; f",
    "subshell": "(BASH_CMDS[cat]=/bin/rm; cat victim)",
}


@pytest.mark.parametrize("route", sorted(READONLY_ROUTES))
def test_a_readonly_command_table_refuses_every_write(route: str) -> None:
    r = sandbox().exec(f"readonly BASH_CMDS\n{READONLY_ROUTES[route]}\ncat victim; echo ${{BASH_CMDS[cat]}}")
    assert "BASH_CMDS: readonly variable" in r.stderr, r.stderr
    assert "runs rm" not in r.stderr, r.stderr
    assert r.stdout == "precious\n/usr/bin/cat\n", (r.stdout, r.stderr)


@pytest.mark.parametrize("route", ["BASH_ALIASES[cat]=rm", "BASH_ALIASES=([cat]=rm)", "unset BASH_ALIASES"])
def test_a_readonly_alias_table_refuses_writes_alias_still_works(route: str) -> None:
    r = sandbox().exec(f"shopt -s expand_aliases; readonly BASH_ALIASES\n{route}\nalias c=cat\nc victim")
    assert "BASH_ALIASES: " in r.stderr and "readonly variable" in r.stderr, r.stderr
    assert r.stdout == "precious\n", (r.stdout, r.stderr)


# the routes bash leaves open on a readonly table, and the new scalar route: the gate decides (held)
RETARGETS = [
    "readonly BASH_CMDS; hash -p /bin/rm cat; cat victim",
    "readonly BASH_CMDS; hash -r; hash -p /usr/bin/rm cat; cat victim",
    "BASH_CMDS=/bin/rm; 0 victim",
    "declare BASH_CMDS=/bin/rm; 0 victim",
    "export BASH_CMDS=/bin/rm; readonly BASH_CMDS; 0 victim",
]


@pytest.mark.parametrize("script", RETARGETS)
def test_an_entry_written_any_way_is_decided_on_what_it_runs(script: str) -> None:
    b = sandbox()
    r = b.exec(script)
    assert "runs rm" in r.stderr, (r.stdout, r.stderr)
    assert (r.stdout, r.exit_code) == ("", 126), (r.stdout, r.stderr)
    assert b.exec("while read -r l; do echo $l; done < victim").stdout == "precious\n"


def test_the_table_attributes_travel_with_a_snapshot_and_a_fork() -> None:
    session = sandbox().session()
    session.exec("readonly BASH_CMDS; export BASH_ALIASES")
    for copy in (sandbox().restore(session.snapshot()), session.fork()):
        r = copy.exec("declare -p BASH_CMDS BASH_ALIASES; BASH_CMDS[cat]=/bin/rm")
        assert r.stdout == "declare -Ar BASH_CMDS=()\ndeclare -Ax BASH_ALIASES=()\n", r.stdout
        assert "BASH_CMDS: readonly variable" in r.stderr


def _forged(data: bytes, attrs: object) -> bytes:
    doc = json.loads(zlib.decompress(data[7:]))
    doc["shell"]["table_attrs"] = attrs
    return data[:7] + zlib.compress(json.dumps(doc).encode())


@pytest.mark.parametrize(
    "attrs", [{"PATH": "r"}, {"BASH_CMDS": "n"}, {"BASH_CMDS": "rrr"}, {"BASH_CMDS": 1}, ["BASH_CMDS"]]
)
def test_a_snapshot_with_forged_table_attributes_is_refused(attrs: object) -> None:
    data = sandbox().session().snapshot()
    with pytest.raises(SnapshotError):
        sandbox().restore(_forged(data, attrs))


# -------------------------------------------------------------- runtimes: their own file and process APIs

RUNTIME_VICTIM = "/secret/key"


def runtime_sandbox() -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/workspace", "/secret"):
        view.mkdir(d, parents=True)
    view.write_bytes(RUNTIME_VICTIM, b"SECRET-19\n")
    view.write_bytes("/data/a", b"data\n")
    policy = Policy(None, paths=["/data:ro", "/workspace:rw"], deny=["rm"])
    return Bash(fs=vfs, cwd="/workspace", policy=policy)


def test_node_execsync_shows_the_commands_refusal() -> None:
    """Fell, fixed: execSync dropped the command's standard error (node writes it on its own
    unless `stdio` is given), so a refused `rm` inside it left no trace on the script's stderr."""
    r = runtime_sandbox().exec("""node -e 'require("child_process").execSync("rm /data/a; echo ran")'""")
    assert "rm: policy denied this command" in r.stderr, (r.stdout, r.stderr)


# Held (guards): each runtime's own way to a file outside the grants, a write into a read-only
# grant, a process or a host library; the secret never shows, /data keeps its one file.
RUNTIME_ATTEMPTS = {
    "sqlite-attach": "sqlite3 :memory: \"ATTACH DATABASE '/secret/key' AS s; select * from s.sqlite_master;\"",
    "sqlite-vacuum-into": "sqlite3 :memory: \"create table t(x); vacuum into '/data/v.db';\"",
    "sqlite-readfile": "sqlite3 :memory: \"select readfile('/secret/key');\"",
    "sqlite-load-extension": "sqlite3 :memory: \"select load_extension('/lib/x.so');\"",
    "sqlite-dot-read": "sqlite3 :memory: '.read /secret/key'",
    "sqlite-dot-output": "sqlite3 :memory: '.output /data/x' 'select 1;'",
    "sqlite-dot-shell": "sqlite3 :memory: '.shell cat /secret/key'",
    "sqlite-temp-dir": "sqlite3 :memory: 'pragma temp_store_directory=\"/secret\";'",
    "sqlite-open-ro": "sqlite3 /data/db 'create table t(x)'",
    "lua-io-open": 'lua -e \'local f = io.open("/secret/key"); print(f and f:read("a"))\'',
    "lua-io-output": 'lua -e \'io.output("/data/o"); io.write("x")\'',
    "lua-dofile": "lua -e 'dofile(\"/secret/key\")'",
    "lua-loadfile": "lua -e 'print(loadfile(\"/secret/key\"))'",
    "lua-require-path": 'lua -e \'package.path = "/secret/?"; require("key")\'',
    "lua-loadlib": "lua -e 'print(package.loadlib)'",
    "lua-os-execute": "lua -e 'os.execute(\"rm /data/a\")'",
    "lua-io-popen": 'lua -e \'print(io.popen("cat /secret/key"):read("a"))\'',
    "lua-os-remove": "lua -e 'print(os.remove(\"/data/a\"))'",
    "lua-os-rename": 'lua -e \'print(os.rename("/data/a", "/workspace/a"))\'',
    "node-read": 'node -e \'console.log(require("fs").readFileSync("/secret/key", "utf8"))\'',
    "node-write": 'node -e \'require("fs").writeFileSync("/data/n", "x")\'',
    "node-execsync-cat": 'node -e \'console.log(String(require("child_process").execSync("cat /secret/key")))\'',
    "node-spawnsync-rm": 'node -e \'require("child_process").spawnSync("rm", ["/data/a"])\'',
    "node-process-binding": "node -e 'process.binding(\"fs\")'",
}


@pytest.mark.parametrize("name", sorted(RUNTIME_ATTEMPTS))
def test_a_runtime_reaches_no_file_or_process_past_the_policy(name: str) -> None:
    b = runtime_sandbox()
    r = b.exec(RUNTIME_ATTEMPTS[name])
    assert "SECRET-19" not in r.stdout + r.stderr, (r.stdout, r.stderr)
    assert b.exec("ls /data").stdout == "a\n"


# python3 (Monty) is not fork-safe: its rows run in a forked child each (secharness), the listing
# of /data after the attempt in the same script
PYTHON_ATTEMPTS = {
    "python-open": "python3 -c 'print(open(\"/secret/key\").read())'",
    "python-listdir": "python3 -c 'import os; print(os.listdir(\"/secret\"))'",
    "python-write": 'python3 -c \'open("/data/p", "w").write("x")\'',
    "python-subprocess": 'python3 -c \'import subprocess; print(subprocess.run(["cat", "/secret/key"]))\'',
    "python-os-system": "python3 -c 'import os; os.system(\"rm /data/a\")'",
    "python-ctypes": "python3 -c 'import ctypes'",
    "python-socket": "python3 -c 'import socket'",
    "python-proc-environ": "python3 -c 'print(open(\"/proc/self/environ\").read())'",
}
PYTHON_ROWS = [
    param(
        name,
        script + '; echo "[$(ls /data | tr "\\n" ,)]"',
        timeout=30,
        build=runtime_sandbox,
        contains="[a,]",
    )
    for name, script in sorted(PYTHON_ATTEMPTS.items())
]


@pytest.fixture(scope="module")
def python_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_python_reaches_no_file_or_process_past_the_policy")


@pytest.mark.parametrize("case", PYTHON_ROWS)
def test_python_reaches_no_file_or_process_past_the_policy(
    case: dict[str, Any], python_outcomes: dict[str, Outcome]
) -> None:
    out = python_outcomes[case["id"]]
    verify(case, out)
    assert "SECRET-19" not in out.text, out.describe()


# -------------------------------------------------------------- hostile snapshots (held: guards)

HOST_DIR_FILE = "h"


def overlay_sandbox(host_dir: str) -> Bash:
    from sandbash.vfs.mount import MountFs
    from sandbash.vfs.overlay import OverlayFs

    fs = MountFs()
    fs.mount("/host", OverlayFs(host_dir))
    return Bash(fs=Vfs(fs))


def _edit(data: bytes, change: Any) -> bytes:
    doc = json.loads(zlib.decompress(data[7:]))
    change(doc)
    return data[:7] + zlib.compress(json.dumps(doc).encode())


def _nodes(doc: dict[str, Any], at: str) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = next(m for m in doc["mounts"] if m["path"] == at)["image"]["nodes"]
    return nodes


def _with_path(at: str, path: str) -> Any:
    return lambda doc: _nodes(doc, at).append({**_nodes(doc, at)[-1], "path": path})


FORGED = {
    "dot-dot-path": _with_path("/", "/../../../escape"),
    "relative-path": _with_path("/", "escape"),
    "nul-in-path": _with_path("/", "/tmp/a\x00b"),
    "dot-dot-in-the-host-overlay": _with_path("/host", "/../escape"),
    "a-path-twice": lambda doc: _nodes(doc, "/").append(dict(_nodes(doc, "/")[-1])),
    "host-overlay-as-tmpfs": lambda doc: [
        m.__setitem__("fstype", "tmpfs") for m in doc["mounts"] if m["path"] == "/host"
    ],
    "a-host-mount-of-etc": lambda doc: doc["mounts"].append(
        {"path": "/etc", "fstype": "host", "image": None}
    ),
}


@pytest.mark.parametrize("forgery", sorted(FORGED))
def test_a_forged_snapshot_touches_no_host_file(forgery: str, tmp_path: Any) -> None:
    (tmp_path / HOST_DIR_FILE).write_text("host\n")
    session = overlay_sandbox(str(tmp_path)).session()
    session.exec("echo mine > /host/new; echo x > /tmp/f")
    data = _edit(session.snapshot(), FORGED[forgery])
    with pytest.raises(SnapshotError):
        overlay_sandbox(str(tmp_path)).restore(data)
    assert sorted(p.name for p in tmp_path.parent.iterdir() if p.name == "escape") == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [HOST_DIR_FILE]
    assert (tmp_path / HOST_DIR_FILE).read_text() == "host\n"
