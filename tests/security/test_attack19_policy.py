"""Attack round 19 on the hash and alias tables, and on what export/readonly do through a nameref.

Fell and fixed: `readonly BASH_CMDS` / `readonly BASH_ALIASES` were ignored (the tables are no
variables of a scope, and the attribute went nowhere): an element, a list, `read`, `printf -v`,
`unset`, `(( ))` and `for` kept writing the table. bash refuses every one of them
("BASH_CMDS: readonly variable") while `hash -p`, `hash -r`, `alias` and `unalias` still work;
the table's -r and -x now live in ShellState.table_attrs, travel with a fork and a snapshot, and a
snapshot's forged attributes are refused. A scalar `BASH_CMDS=/bin/x` made an ordinary variable;
bash writes the entry of key 0, which the gate then decides on like any other entry.

Held, kept as guards: whatever writes an entry (readonly or not), the gate decides on the program
the name then runs.
"""

from __future__ import annotations

import json
import zlib

import pytest

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
