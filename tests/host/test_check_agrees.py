"""check, check_remote and execution agree on host-mode policy cases: what the check denies the
run refuses, what it allows the run does not refuse; check_remote denies exactly what check
denies (same grants, another host) and never calls a file operation allowed outright."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.check import ALLOWED, DENIED
from sandbash.check.remote import RemotePolicy, check_remote
from sandbash.host import ElevationRequest, ElevationResult, HostAccess, ServiceGrant, TestServiceBackend
from sandbash.policy import Policy

COMMANDS = ["cat", "systemctl", "sudo", "ls", "echo", "grep", "wc"]
SERVICES = [ServiceGrant("nginx.service", ["status", "restart"])]

# (script with {t} for the tree, denied in read-only mode, denied in remediation mode)
CASES: list[tuple[str, bool, bool]] = [
    ("systemctl status nginx", False, False),
    ("systemctl restart nginx", True, False),
    ("systemctl stop nginx", True, True),
    ("systemctl status sshd", True, True),
    ("sudo cat {t}/logs/app.log", False, False),
    ("sudo ls {t}", True, True),
    ("sudo cat /etc/hostname", True, True),
    ("X={t}/logs/app.log; cat $X", False, False),
    ("X=/etc/hostname; cat $X", True, True),
    ('X=/etc/hostname; wc -l "$X"', True, True),
    ("cat {t}/secret", True, True),
    ("rm {t}/app/conf", True, True),
    ("echo hi > {t}/app/new", True, False),
    ("echo hi > {t}/logs/new", True, True),
    ("grep -c ERROR {t}/logs/app.log", False, False),
    ("cat {t}/logs/app.log | wc -l", False, False),
    ("Y={t}/app; echo x >> $Y/conf", True, False),
]


def _elevate(req: ElevationRequest) -> ElevationResult:
    return ElevationResult(0, b"ok\n")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "app.log").write_text("ERROR a\nok\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "conf").write_text("a=1\n")
    (tmp_path / "secret").write_text("s\n")
    return tmp_path


def _refused(stderr: str) -> bool:
    return "[policy:" in stderr or "policy denied" in stderr


@pytest.mark.parametrize("mode", ["read-only", "remediation"])
@pytest.mark.parametrize("script,deny_ro,deny_rem", CASES, ids=[c[0] for c in CASES])
def test_check_remote_and_run_agree(
    tree: Path, mode: str, script: str, deny_ro: bool, deny_rem: bool
) -> None:
    text = script.format(t=tree)
    grants = (f"{tree}/logs:ro", f"{tree}/app:rw")
    policy = Policy(commands=COMMANDS, paths=[], mode=mode, services=SERVICES, elevatable_commands=["cat"])
    host = HostAccess(
        paths=grants, service_backend=TestServiceBackend.with_units("nginx.service"), elevate=_elevate
    )
    bash = Bash(host=host, policy=policy)
    expected_denied = deny_ro if mode == "read-only" else deny_rem
    report = bash.check(text)
    assert (report.status == DENIED) == expected_denied, report.to_text()
    remote = check_remote(
        text,
        RemotePolicy(
            commands=COMMANDS,
            paths=grants,
            mode=mode,
            services=["nginx.service:status+restart"],
            elevatable_commands=["cat"],
        ),
    )
    assert (remote.status == DENIED) == expected_denied, remote.to_text()
    result = bash.exec(text)
    assert _refused(result.stderr) == expected_denied, (result.stderr, report.to_text())
    if report.status == ALLOWED:
        assert not _refused(result.stderr)
    touches_files = "{t}" in script
    if touches_files and not expected_denied:
        assert remote.status != ALLOWED  # the remote host's links are known only there


def test_path_issues_name_the_path(tree: Path) -> None:
    bash = Bash(host=HostAccess(paths=(f"{tree}/logs:ro",)), policy=Policy(commands=COMMANDS, paths=[]))
    report = bash.check(f"X=/etc/hostname; cat $X; cat {tree}/logs/app.log")
    [issue] = report.issues
    assert (issue.code, issue.path) == ("path_not_allowed", "/etc/hostname")
    assert report.to_dict()["sites"][1]["issues"][0]["path"] == "/etc/hostname"


def test_the_report_carries_configuration_warnings(tree: Path) -> None:
    report = Policy(paths=[f"{tree}/app:rw"], mode="read-only")
    from sandbash.check import check

    r = check("true", report)
    assert r.warnings == [
        f'policy: grant {tree}/app:rw allows no writes: mode is "read-only"; '
        'set mode = "remediation" to write there'
    ]
    assert r.to_dict()["warnings"] == r.warnings
    assert r.to_text().startswith("warning: policy: grant")


RESOLVE: list[tuple[str, str]] = [
    # (script, status against paths=["/data:ro"] with HOME=/data)
    ("X=/etc/passwd; cat $X", DENIED),
    ("X=/data/a; cat $X", ALLOWED),
    ("cat $X; X=/data/a", "indeterminate"),  # used before it is set
    ("X=/data/a; unset X; cat $X", "indeterminate"),
    ("if true; then X=/data/a; fi; cat $X", "indeterminate"),  # not a plain top-level statement
    ("X=/etc/passwd; eval true; cat $X", "indeterminate"),  # eval may set anything
    ("X=/etc/passwd; read -r X < /dev/null; cat $X", "indeterminate"),
    ("X=/etc/passwd; : ${X:=/data/a}; cat $X", "indeterminate"),
    ("X=/etc/passwd; ((X++)); cat $X", "indeterminate"),
    ('X="/data/a b"; cat $X', "indeterminate"),  # unquoted: splits
    ('X="/data/a b"; cat "$X"', ALLOWED),
    ("X=/data/*; cat $X", "indeterminate"),  # a glob pattern in the value
    ("X=/etc/passwd; f() { cat $X; }; f", DENIED),
    ("cat $HOME/x", ALLOWED),
    ("HOME=/etc; cat $HOME/passwd", DENIED),
    ("cat $PWD/x", "indeterminate"),  # the shell changes PWD
    ('X=/etc/passwd; n=X; declare "$n"=/data/a; cat $X', "indeterminate"),
]


@pytest.mark.parametrize("script,status", RESOLVE, ids=[r[0] for r in RESOLVE])
def test_resolved_variables(script: str, status: str) -> None:
    from sandbash.check import check

    r = check(
        script,
        Policy(commands=["cat", "echo", "unset", "read", ":", "declare"], paths=["/data:ro"]),
        env={"HOME": "/data"},
    )
    assert r.status == status, r.to_text()


@pytest.mark.parametrize(
    "toml,message",
    [
        ("bogus = 1", "remote policy: unknown key(s) bogus"),
        ('dir = "relative"', "dir: expected an absolute path, not 'relative'"),
        ("timeout = 0", "timeout: expected a positive number of seconds, not 0.0"),
        ('commands = ["x:cat"]', 'commands: "x:cat" has unknown namespace "x" (only "rshell" is supported)'),
        ('services = ["nginx"]', "service grant 'nginx': expected UNIT:ACTION[+ACTION...]"),
        ("env = { A = 1 }", "env: expected a table of strings"),
        ('paths = "/x"', "paths: expected a list of strings"),
    ],
)
def test_bad_remote_policies(toml: str, message: str) -> None:
    from sandbash.policy import PolicyError

    with pytest.raises(PolicyError) as e:
        RemotePolicy.from_toml(toml)
    assert str(e.value).startswith(message)


def test_check_remote_reads_nothing_local(tmp_path: Path) -> None:
    # a local link would make the path resolve elsewhere; the remote check never looks
    remote = RemotePolicy(commands=["cat"], paths=["/srv:ro"], dir="/srv", env={"F": "/srv/x"}, timeout=2)
    r = check_remote("cat $F; cat ../etc/passwd; cat y", remote)
    assert [(i.code, i.path) for i in r.issues] == [
        ("requires_execution", "/srv/x"),
        ("path_not_allowed", "/etc/passwd"),
        ("requires_execution", "/srv/y"),
    ]
    assert r.status == DENIED and r.exit_code == 1
