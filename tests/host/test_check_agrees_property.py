"""Property: for generated host-mode scripts (services, elevation, variables, file actions) and
policies, a `denied` check means the run is refused, an `allowed` check means it is not, and
check_remote (the same grants) denies exactly what check denies."""

from __future__ import annotations

import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbash import Bash
from sandbash.check import ALLOWED, DENIED
from sandbash.check.remote import RemotePolicy, check_remote
from sandbash.host import ElevationRequest, ElevationResult, HostAccess, TestServiceBackend
from sandbash.policy import Policy

ROOT = tempfile.mkdtemp(prefix="sandbash-host-prop-")
for d in ("logs", "app"):
    os.makedirs(f"{ROOT}/{d}", exist_ok=True)
    with open(f"{ROOT}/{d}/f", "w") as fh:
        fh.write("ERROR x\n")
GRANTS = (f"{ROOT}/logs:ro", f"{ROOT}/app:rw")
PATHS = [f"{ROOT}/logs/f", f"{ROOT}/app/f", f"{ROOT}/app/new", "/etc/hostname", f"{ROOT}/other"]
UNITS = ["nginx", "cron.service", "sshd"]
ACTIONS = ["status", "restart", "stop", "is-active"]


def _piece() -> st.SearchStrategy[str]:
    path = st.sampled_from(PATHS)
    return st.one_of(
        st.builds(lambda a, u: f"systemctl {a} {u}", st.sampled_from(ACTIONS), st.sampled_from(UNITS)),
        st.builds(lambda c, p: f"sudo {c} {p}", st.sampled_from(["cat", "ls", "grep -c x"]), path),
        st.builds(lambda p: f"X={p}; cat $X", path),
        st.builds(lambda p: f"cat {p}", path),
        st.builds(lambda p: f"echo hi >> {p}", path),
        st.builds(lambda p: f"wc -l < {p}", path),
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, list[str], list[str], list[str]]:
    script = draw(_piece())
    mode = draw(st.sampled_from(["read-only", "remediation"]))
    commands = draw(
        st.lists(
            st.sampled_from(["cat", "ls", "grep", "wc", "echo", "systemctl", "sudo"]), min_size=2, unique=True
        )
    )
    services = draw(
        st.lists(
            st.sampled_from(
                [
                    "nginx.service:status",
                    "nginx.service:restart+status",
                    "cron.service:status+is-active",
                    "sshd.service:stop",
                ]
            ),
            max_size=2,
            unique=True,
        )
    )
    elevatable = draw(st.lists(st.sampled_from(["cat", "ls", "grep"]), max_size=2, unique=True))
    return script, mode, commands, services, elevatable


def _elevate(req: ElevationRequest) -> ElevationResult:
    return ElevationResult(0, b"ok\n")


def _refused(stderr: str) -> bool:
    return "[policy:" in stderr or "policy denied" in stderr


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_check_and_run_agree(case: tuple[str, str, list[str], list[str], list[str]]) -> None:
    script, mode, commands, services, elevatable = case
    policy = Policy(commands=commands, paths=[], mode=mode, services=services, elevatable_commands=elevatable)
    backend = TestServiceBackend.with_units("nginx.service", "cron.service", "sshd.service")
    bash = Bash(host=HostAccess(paths=GRANTS, service_backend=backend, elevate=_elevate), policy=policy)
    report = bash.check(script)
    result = bash.exec(script)
    if report.status == DENIED:
        assert _refused(result.stderr), (script, report.to_text(), result.stderr)
    if report.status == ALLOWED:
        assert not _refused(result.stderr), (script, report.to_text(), result.stderr)
    remote = check_remote(
        script,
        RemotePolicy(
            commands=commands, paths=GRANTS, mode=mode, services=services, elevatable_commands=elevatable
        ),
    )
    assert (remote.status == DENIED) == (report.status == DENIED), (
        script,
        report.to_text(),
        remote.to_text(),
    )
