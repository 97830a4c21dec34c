"""sqlite3 over the sandbox filesystem: what the spec table (tests/spec/cases/runtime_sqlite.txt,
checked against the real sqlite3 CLI) cannot show: policy, quota, limits and the helpers."""

from __future__ import annotations

import sqlite3

import pytest

from sandbash import Bash, ExecutionLimitError
from sandbash.commands.runtimes.sqlite import split_sql
from sandbash.commands.runtimes.sqlite_format import csv_field, real_text, sql_literal
from sandbash.policy import Policy


def run(script: str, **kw: object) -> tuple[str, str, int]:
    bash = Bash(files=kw.pop("files", None), policy=kw.pop("policy", None))  # type: ignore[arg-type]
    r = bash.exec(script, **kw)  # type: ignore[arg-type]
    return r.stdout, r.stderr, r.exit_code


@pytest.mark.parametrize(
    ("sql", "parts"),
    [
        ("select 1; select 2;", ["select 1;", " select 2;"]),
        ("select 1", ["select 1"]),
        ("select ';'; select 2", ["select ';';", " select 2"]),
        ('select "a;b"; -- c;\nselect 3;', ['select "a;b";', " -- c;\nselect 3;"]),
        ("/* ; */ select 4;", ["/* ; */ select 4;"]),
        (
            "create trigger t after insert on a begin select 1; select 2; end; select 5;",
            ["create trigger t after insert on a begin select 1; select 2; end;", " select 5;"],
        ),
        ("select [x;y] from z;", ["select [x;y] from z;"]),
        ("  \n", []),
    ],
)
def test_split_sql(sql: str, parts: list[str]) -> None:
    assert split_sql(sql, sqlite3.complete_statement) == parts


@pytest.mark.parametrize(
    ("value", "text15", "text20"),
    [
        (1.0, "1.0", "1.0"),
        (0.1, "0.1", "0.10000000000000000555"),
        (1e20, "1.0e+20", "1.0e+20"),
        (2.5e-7, "2.5e-07", "2.4999999999999998868e-07"),
        (-0.0, "0.0", "0.0"),
        (float("inf"), "Inf", "Inf"),
        (100.0 / 3, "33.3333333333333", "33.333333333333335702"),
    ],
)
def test_real_text(value: float, text15: str, text20: str) -> None:
    assert real_text(value) == text15
    conn = sqlite3.connect(":memory:")
    # 20 digits are SQLite's own printf (glibc differs in the last digit of 2.5e-07)
    assert (
        sql_literal(
            value, False, lambda v: str(conn.execute("SELECT printf('%!.20g', ?)", (v,)).fetchone()[0])
        )
        == text20
    )
    out = run(f"sqlite3 -quote :memory: 'select {value!r}'".replace("inf", "1e999"))[0]
    assert out == text20 + "\n"


@pytest.mark.parametrize(
    ("field", "quoted"),
    [
        ("plain", "plain"),
        ("a b", '"a b"'),
        ("", '""'),
        ("a,b", '"a,b"'),
        ('q"', '"q"""'),
        ("é", '"é"'),
        ("a;b", "a;b"),
        ("tab\t", '"tab\t"'),
    ],
)
def test_csv_field(field: str, quoted: str) -> None:
    assert csv_field(field, ",", False) == quoted


def test_database_lives_in_the_sandbox() -> None:
    bash = Bash()
    bash.exec("sqlite3 /tmp/x.db 'create table t(a); insert into t values (7)'")
    data = bash.fs.read_bytes("/tmp/x.db")
    assert data.startswith(b"SQLite format 3\x00")
    assert bash.exec("sqlite3 /tmp/x.db 'select a * 6 from t'").stdout == "42\n"


def test_reading_leaves_the_file_unchanged() -> None:
    bash = Bash()
    bash.exec("sqlite3 a.db 'create table t(a)'")
    before = bash.fs.stat("/home/user/a.db").mtime
    bash.exec("sleep 0.05; sqlite3 a.db 'select count(*) from t'")
    assert bash.fs.stat("/home/user/a.db").mtime == before


def test_a_query_alone_creates_no_file() -> None:
    assert run("sqlite3 none.db 'select 1'; test -e none.db; echo $?")[0] == "1\n1\n"


def test_read_only_grant_keeps_the_file() -> None:
    policy = Policy(paths=["/data:ro", "/home/user:rw", "/tmp:rw"])
    bash = Bash(policy=policy)
    bash.fs.write_bytes("/tmp/seed.db", b"")
    seed = Bash()
    seed.exec("sqlite3 /tmp/s.db 'create table t(a); insert into t values (1)'")
    bash2 = Bash(files={"/data/s.db": seed.fs.read_bytes("/tmp/s.db")}, policy=policy)
    r = bash2.exec(
        "sqlite3 /data/s.db 'select count(*) from t'; sqlite3 /data/s.db 'insert into t values (2)'; "
        "echo status=$?; sqlite3 /data/s.db 'select count(*) from t'"
    )
    assert r.stdout == "1\nstatus=1\n1\n"
    assert 'unable to write database "/data/s.db"' in r.stderr


def test_missing_directory_is_an_open_error() -> None:
    _, err, status = run("sqlite3 no/such/dir.db 'select 1'")
    assert status == 1
    assert err == 'Error: unable to open database "no/such/dir.db": unable to open database file\n'


def test_not_a_database() -> None:
    _, err, status = run("echo hello > f.db; sqlite3 f.db 'select 1 from sqlite_schema'")
    assert status != 0 and "file is not a database" in err


def test_attach_is_refused_with_a_reason() -> None:
    _, err, status = run("sqlite3 :memory: \"attach 'x.db' as x\"")
    assert status == 1
    assert err == (
        "Error: in prepare, not authorized (ATTACH, DETACH and VACUUM INTO are not available in sandbash)\n"
    )


def test_shell_dot_command_is_refused() -> None:
    _, err, status = run("sqlite3 :memory: '.shell id'")
    assert status == 1 and ".shell is not supported in sandbash" in err


def test_endless_cte_ends_at_the_deadline() -> None:
    with pytest.raises(ExecutionLimitError) as info:
        Bash().exec(
            "sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c) "
            "select count(*) from c'",
            limits={"timeout": 1.0},
        )
    assert info.value.limit == "timeout"


def test_database_growth_ends_at_max_memory() -> None:
    with pytest.raises(ExecutionLimitError) as info:
        Bash().exec(
            "sqlite3 :memory: 'create table t(b); with recursive c(x) as (select 1 union all "
            "select x+1 from c) insert into t select zeroblob(100000) from c'",
            limits={"max_memory": 32 << 20, "timeout": 60},
        )
    assert info.value.limit == "max_memory"


def test_output_file_goes_through_the_facade() -> None:
    _, err, status = run(
        "sqlite3 :memory: '.output /etc/x' 'select 1'", policy=Policy(paths=["/home/user:rw", "/tmp:rw"])
    )
    assert status == 1 and "cannot open" in err
