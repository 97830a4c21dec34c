"""Attack round 14: a path the policy refuses is reported as refused, with its rule, by every
command that opens one (docs/errors.md: "a refused file action fails ... EACCES, with the rule").

Some commands tested a name first (`try_stat(...) is None`, `exists()`) and then said "No such
file or directory" (env -C, getconf, more, rg, sqlite3 - which also opened a `decide`-hidden file
as a new empty database, and took `file:` URIs as plain names), or had a fixed wording without the error (strings: "'x': No such file"),
or named a refused script as a missing module (node), or had the shell's fixed wording (sqlite3's
`.read`/`.import`: 'cannot open "x"'). Nothing leaked - the answer was the same for
an existing and a missing name - but the message hid the rule. The one seam is
`FsView.stat_error(path)`: the FsError a stat gives, refusal and rule included; `Inputs` takes a
wording per errno (`open_errors`), so a tool whose ENOENT wording has no `{err}` still names a
refusal.

The table is generated: each command that opens a path x {a path no grant covers (present and
absent), a directory no grant covers, a file and a directory `decide` hides}; writers x {a file
under a `:ro` grant, a new name there}.
"""

from __future__ import annotations

import pytest

from sandbash import Bash, Limits
from sandbash.policy import Action, Policy
from sandbash.vfs.facade import Vfs


def _decide(action: Action) -> bool | None:
    return False if "hidden" in (action.path or "") else None


def sandbox() -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/workspace/hidden.d", "/secret/dir"):
        view.mkdir(d, parents=True)
    for p in ("/secret/key", "/data/a", "/workspace/hidden", "/workspace/ok", "/workspace/hidden.d/f"):
        view.write_bytes(p, b"line 1\nline 2\n")
    policy = Policy(None, paths=["/data:ro", "/workspace:rw"], mode="remediation", decide=_decide)
    return Bash(fs=vfs, cwd="/workspace", policy=policy, limits=Limits(timeout=20))


READ_PATHS = {
    "no-grant": "/secret/key",
    "no-grant-missing": "/secret/nope",
    "no-grant-dir": "/secret/dir",
    "decide": "hidden",
    "decide-dir": "hidden.d",
}
WRITE_PATHS = {"read-only": "/data/a", "read-only-new": "/data/new", "decide": "hidden"}

# commands that open {P} to read it (or change into it)
READERS = """cat {P}|tac {P}|head {P}|tail {P}|wc {P}|nl {P}|rev {P}|od {P}|xxd {P}|hexdump {P}
|strings {P}|strings -f {P}|sort {P}|uniq {P}|cut -c1 {P}|paste {P}|fold {P}|fmt {P}|expand {P}
|unexpand {P}|tr a b < {P}|grep x {P}|egrep x {P}|rg x {P}|sed p {P}|awk 1 {P}|jq . {P}|yq . {P}
|base64 {P}|base32 {P}|basenc --base64 {P}|md5sum {P}|sha256sum {P}|b2sum {P}|cksum {P}|sum {P}
|comm {P} ok|join ok {P}|diff {P} ok|cmp ok {P}|sdiff {P} ok|column {P}|csplit {P} 1
|split {P} /tmp/sp|shuf {P}|tsort {P}|pr {P}|stat {P}|du {P}|ls {P}|ls -l {P}|find {P}
|gzip -c {P}|zcat {P}|bzip2 -c {P}|xz -c {P}|tar cf /tmp/t.tar {P}|tar xf {P}|iconv -f utf-8 -t latin1 {P}
|envsubst < {P}|more {P}|dd if={P}|lua {P}|node {P}|python3 {P}|sqlite3 {P} .tables
|source {P}|bash {P}|mapfile a < {P}|read x < {P}|xargs -a {P} echo|cp {P} /tmp/c|mv {P} /tmp/m
|env -C {P} pwd|cd {P}|pushd {P}|timeout 5 cat {P}|getconf PATH_MAX {P}|date -r {P}|sed -f {P} ok
|awk -f {P} ok|grep -f {P} ok|jq --rawfile x {P} -n 1|wc --files0-from={P}|exec 3< {P}|cat < {P}
|lua -e "print(select(2, io.open('{P}')))"|node -e "require('fs').readFileSync('{P}')"
|python3 -c "open('{P}')"|sqlite3 'file:{P}' .tables|sqlite3 'file:{P}?mode=ro' .tables
|sqlite3 "file://localhost$(realpath -m {P})" .tables|sqlite3 :memory: '.import {P} t'|sqlite3 :memory: '.read {P}'
"""
SAID_ON_STDOUT = ("lua -e",)  # (io.open's message is printed by the script)

# commands that write {P}, a new name or an existing file
WRITERS = """tee {P} < /dev/null|sort -o {P} ok|cp ok {P}|install ok {P}|ln -s ok {P}|ln ok {P}
|mktemp {P}.XXX|truncate -s0 {P}|touch {P}|dd if=ok of={P}|gzip -c ok > {P}|tar cf {P} ok
|awk '{print > "{P}"}' ok|split ok {P}|echo > {P}|echo >> {P}|exec 3> {P}|: <> {P}|mv ok {P}
|mkdir {P}/x|lua -e "assert(io.open('{P}', 'w'))"|node -e "require('fs').writeFileSync('{P}', 'x')"
|sqlite3 :memory: '.output {P}' 'select 1'
"""
# commands that change an existing file: a missing name under a `:ro` grant is missing there
CHANGERS = """rm {P}|unlink {P}|chmod 600 {P}|shred -n1 {P}|sed -i p {P}"""
EXISTING = {k: v for k, v in WRITE_PATHS.items() if k != "read-only-new"}


def _rows(templates: str, paths: dict[str, str]) -> list[tuple[str, str]]:
    return [
        (kind, t.strip().replace("{P}", p))
        for t in templates.split("|")
        for kind, p in paths.items()
        if t.strip()
    ]


def _said(script: str, template_on_stdout: bool) -> str:
    r = sandbox().exec(script)
    return (r.stdout if template_on_stdout else "") + r.stderr


@pytest.mark.parametrize(("kind", "script"), _rows(READERS, READ_PATHS))
def test_refused_read_names_the_refusal(kind: str, script: str) -> None:
    said = _said(script, script.startswith(SAID_ON_STDOUT))
    rule = "decide" if kind.startswith("decide") else "paths.no-grant"
    assert f"[policy: {rule}]" in said, said
    assert "No such file" not in said and "not found" not in said.lower(), said


@pytest.mark.parametrize(("kind", "script"), _rows(WRITERS, WRITE_PATHS) + _rows(CHANGERS, EXISTING))
def test_refused_write_names_the_refusal(kind: str, script: str) -> None:
    said = _said(script, False)
    assert "[policy: " in said, said
    assert "No such file" not in said, said
    if kind.startswith("read-only"):
        assert "[policy: paths.read-only]" in said, said


def test_sqlite3_does_not_open_a_hidden_file_as_a_new_database() -> None:
    r = sandbox().exec("sqlite3 hidden .tables; echo rc=$?")
    assert r.stdout == "rc=1\n"
    assert r.stderr == 'Error: unable to open database "hidden": Permission denied [policy: decide]\n'


def test_missing_names_keep_their_own_wording() -> None:
    """The refusal wording is for refusals: a name that does not exist under a grant still gets
    each tool's ENOENT words."""
    r = sandbox().exec(
        "strings nope; env -C nope pwd; getconf PATH_MAX nope; more nope; rg x nope; node nope; true"
    )
    assert r.stderr.splitlines() == [
        "strings: 'nope': No such file",
        "env: cannot change directory to 'nope': No such file or directory",
        "getconf: nope: No such file or directory",
        "more: cannot open nope: No such file or directory",
        "rg: nope: IO error for operation on nope: No such file or directory (os error 2)",
        "Error: Cannot find module '/workspace/nope'",
        "  code: 'MODULE_NOT_FOUND'",
        "",
        "Node.js v20.0.0",
    ]


def test_sqlite3_on_a_file_that_is_not_a_database_fails_as_sqlite_does() -> None:
    """It was "bash: sqlite3: internal error (DatabaseError: file is not a database)": the
    worker read the page size of the image at setup, and dot-commands let SQLite's error out."""
    r = sandbox().exec(
        "sqlite3 ok .tables; echo rc=$?; sqlite3 ok 'create table t(a)'; echo rc=$?; sqlite3 ok 'select 1'"
    )
    assert r.stdout == "rc=1\nrc=26\n1\n"
    assert r.stderr == "Error: file is not a database\nError: in prepare, file is not a database (26)\n"
