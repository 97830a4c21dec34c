"""systemctl (exact unit/action grants, writes only in remediation mode, the injected backend),
sudo (elevatable_commands, the command's own grant, the embedder's callback), help, ping."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.host import (
    ElevationRefused,
    ElevationRequest,
    ElevationResult,
    HostAccess,
    PingReply,
    PingRequest,
    ServiceGrant,
    ServiceStatus,
    TestServiceBackend,
)
from sandbash.policy import Policy, PolicyError

GRANTS = [
    ServiceGrant("nginx.service", ["status", "restart", "is-active"]),
    ServiceGrant("cron.service", ["status", "is-active"]),
]


def bash(mode: str | None = "remediation", backend: TestServiceBackend | None = None, **kw: object) -> Bash:
    backend = (
        backend if backend is not None else TestServiceBackend.with_units("nginx.service", "cron.service")
    )
    return Bash(
        host=HostAccess(service_backend=backend, **kw),  # type: ignore[arg-type]
        policy=Policy(mode=mode, services=GRANTS),
    )


NGINX_STATUS = (
    "● nginx.service - nginx\n     Loaded: loaded (enabled)\n     Active: active (running)\n"
    "   Main PID: 1000\n"
)

SYSTEMCTL: list[tuple[str | None, str, str, str, int]] = [
    # (mode, script, stdout, stderr, status)
    ("read-only", "systemctl status nginx.service", NGINX_STATUS, "", 0),
    ("read-only", "systemctl status nginx", NGINX_STATUS, "", 0),
    ("read-only", "systemctl is-active nginx", "active\n", "", 0),
    (
        "read-only",
        "systemctl restart nginx",
        "",
        "systemctl: restart nginx.service: not allowed by policy [policy: services.remediation] "
        "('restart' needs remediation mode)\n",
        126,
    ),
    (
        None,
        "systemctl restart nginx",
        "",
        "systemctl: restart nginx.service: not allowed by policy [policy: services.remediation] "
        "('restart' needs remediation mode)\n",
        126,
    ),
    (
        "remediation",
        "systemctl restart nginx && systemctl status nginx | grep PID",
        "   Main PID: 1001\n",
        "",
        0,
    ),
    (
        "remediation",
        "systemctl stop nginx",
        "",
        "systemctl: stop nginx.service: not allowed by policy [policy: services.no-grant] "
        "(nginx.service: action 'stop' is not granted)\n",
        126,
    ),
    (
        "remediation",
        "systemctl is-enabled nginx",
        "",
        "systemctl: is-enabled nginx.service: not allowed by policy [policy: services.no-grant] "
        "(nginx.service: action 'is-enabled' is not granted)\n",
        126,
    ),
    (
        "remediation",
        "systemctl status sshd",
        "",
        "systemctl: status sshd.service: not allowed by policy [policy: services.no-grant] "
        "(sshd.service: action 'status' is not granted)\n",
        126,
    ),
    (
        "remediation",
        "systemctl status nginx.socket",
        "",
        "systemctl: status nginx.socket: not allowed by policy [policy: services.no-grant] "
        "(nginx.socket: action 'status' is not granted)\n",
        126,
    ),
    ("remediation", "systemctl status cron nginx | grep -c Active", "2\n", "", 0),
    (
        "remediation",
        "systemctl enable nginx",
        "",
        "systemctl: unknown command verb 'enable' (allowed: status, is-active, is-enabled, start, stop, restart, "
        "reload)\n",
        1,
    ),
    ("remediation", "systemctl --user status nginx", "", "systemctl: unrecognized option '--user'\n", 1),
    (
        "remediation",
        "systemctl status",
        "",
        "systemctl: expected a command and a unit: systemctl COMMAND UNIT\n",
        1,
    ),
    ("remediation", "systemctl -q is-active nginx; echo $?", "0\n", "", 0),
]


@pytest.mark.parametrize("mode,script,out,err,status", SYSTEMCTL, ids=[f"{c[0]}:{c[1]}" for c in SYSTEMCTL])
def test_systemctl(mode: str | None, script: str, out: str, err: str, status: int) -> None:
    r = bash(mode).exec(script)
    assert (r.stdout, r.stderr, r.exit_code) == (out, err, status)


def test_systemctl_actions_reach_the_backend_only_when_allowed() -> None:
    backend = TestServiceBackend.with_units("nginx.service", "cron.service")
    b = bash("remediation", backend)
    b.exec("systemctl stop nginx; systemctl restart nginx; systemctl status cron")
    assert backend.calls == [("nginx.service", "restart"), ("cron.service", "status")]


def test_systemctl_backend_failures_and_missing_units() -> None:
    backend = TestServiceBackend.with_units("nginx.service", fail=["nginx.service"])
    b = Bash(
        host=HostAccess(service_backend=backend),
        policy=Policy(
            mode="remediation", services=["nginx.service:restart+status", "ghost.service:status+start"]
        ),
    )
    r = b.exec(
        "systemctl restart nginx; echo $?; systemctl status nginx | head -1; systemctl status ghost;"
        " echo $?; systemctl start ghost; echo $?"
    )
    assert r.stdout == "1\n× nginx.service - nginx\n4\n5\n"
    assert r.stderr == (
        "Job for nginx.service failed because the control process exited with error code.\n"
        "Unit ghost.service could not be found.\nFailed to start ghost.service: "
        "Unit ghost.service not found.\n"
    )


def test_systemctl_without_a_backend() -> None:
    b = Bash(host=HostAccess(), policy=Policy(services=GRANTS))
    r = b.exec("systemctl status nginx")
    assert (r.stderr, r.exit_code) == (
        "systemctl: service control is not configured (no service backend)\n",
        1,
    )


def test_an_inactive_unit_status_is_3() -> None:
    backend = TestServiceBackend.with_units(ServiceStatus("cron.service", "cron daemon", enabled="disabled"))
    r = bash("read-only", backend).exec("systemctl status cron; echo $?; systemctl is-active cron; echo $?")
    assert r.stdout == (
        "● cron.service - cron daemon\n     Loaded: loaded (disabled)\n     Active: inactive (dead)\n"
        "3\ninactive\n3\n"
    )


def test_allowed_services_on_the_host_access_join_the_policy() -> None:
    backend = TestServiceBackend.with_units("nginx.service")
    b = Bash(host=HostAccess(service_backend=backend, allowed_services=("nginx.service:status",)))
    assert b.exec("systemctl status nginx").exit_code == 0


@pytest.mark.parametrize(
    "unit,actions",
    [
        ("nginx", ["status"]),
        ("nginx.service", ["enable"]),
        ("nginx.service", []),
        ("a/b.service", ["status"]),
    ],
)
def test_bad_service_grants(unit: str, actions: list[str]) -> None:
    with pytest.raises(PolicyError):
        ServiceGrant(unit, actions)


@pytest.mark.parametrize("spec", ["nginx.service", "nginx.service:", "nginx.service:status+bogus"])
def test_bad_service_grant_specs(spec: str) -> None:
    with pytest.raises(PolicyError):
        ServiceGrant.parse(spec)


def test_services_in_toml() -> None:
    p = Policy.from_toml(
        'mode = "remediation"\nservices = ["nginx.service:status+restart"]\n'
        'elevatable_commands = ["rshell:cat"]\n'
    )
    assert [g.spec for g in p.services] == ["nginx.service:status+restart"]
    assert p.elevatable == frozenset({"cat"})
    with pytest.raises(PolicyError):
        Policy.from_toml("services = 3")


# ------------------------------------------------------------ sudo


def elevator(calls: list[ElevationRequest]) -> object:
    def elevate(req: ElevationRequest) -> ElevationResult:
        calls.append(req)
        if req.argv[0] == "rm":
            raise ElevationRefused("the helper refuses rm")
        return ElevationResult(0, f"elevated: {' '.join(req.argv)}\n".encode(), b"")

    return elevate


SUDO: list[tuple[list[str] | None, str, str, str, int]] = [
    # (allow list, script, stdout, stderr, status)
    (None, "sudo cat /var/log/syslog", "elevated: cat /var/log/syslog\n", "", 0),
    (["sudo", "cat"], "sudo cat /x", "elevated: cat /x\n", "", 0),
    (["sudo", "rshell:cat"], "sudo -- cat /x", "elevated: cat /x\n", "", 0),
    (
        None,
        "sudo ls /root",
        "",
        "sudo: ls: ls is not an elevatable command [policy: elevation.not-elevatable]\n",
        126,
    ),
    (
        ["sudo", "ls"],
        "sudo cat /x",
        "",
        "sudo: cat: cat is not on the allow list [policy: commands.allow]\n",
        126,
    ),
    (
        ["cat"],
        "sudo cat /x",
        "",
        "bash: line 1: sudo: policy denied this command [policy: commands.allow]\n"
        "allowed commands: cat (and the shell builtins)\n",
        126,
    ),
    (None, "sudo rm /x", "", "sudo: rm: elevation refused: the helper refuses rm\n", 1),
    (None, "sudo", "", "usage: sudo COMMAND [ARG]...\n", 1),
    (
        None,
        "sudo -u root cat /x",
        "",
        "sudo: option '-u' is not supported (sudo is an elevation marker: sudo COMMAND [ARG]...)\n",
        1,
    ),
]


@pytest.mark.parametrize("allow,script,out,err,status", SUDO, ids=[c[1] + str(c[0]) for c in SUDO])
def test_sudo(allow: list[str] | None, script: str, out: str, err: str, status: int) -> None:
    calls: list[ElevationRequest] = []
    b = Bash(
        host=HostAccess(elevate=elevator(calls)),  # type: ignore[arg-type]
        policy=Policy(commands=allow, elevatable_commands=["cat", "rm"]),
    )
    r = b.exec(script)
    assert (r.stdout, r.stderr, r.exit_code) == (out, err, status)
    assert all(c.argv[0] in ("cat", "rm") for c in calls)  # nothing else reached the embedder


def test_sudo_without_a_callback() -> None:
    r = Bash(host=HostAccess(elevatable_commands=("cat",))).exec("sudo cat /x")
    assert (r.stderr, r.exit_code) == ("sudo: elevation is not configured (no elevation callback)\n", 1)


def test_a_failing_callback_is_a_message() -> None:
    def broken(req: ElevationRequest) -> ElevationResult:
        raise OSError("socket gone")

    r = Bash(host=HostAccess(elevatable_commands=("cat",), elevate=broken)).exec("sudo cat /x")
    assert (r.stderr, r.exit_code) == ("sudo: cat: elevation failed: OSError: socket gone\n", 1)


# ------------------------------------------------------------ help


def test_help_lists_services_and_elevatable_commands() -> None:
    b = Bash(
        host=HostAccess(),
        policy=Policy(
            commands=["cat", "sudo", "systemctl"],
            services=GRANTS,
            elevatable_commands=["cat", "rm"],
            mode="read-only",
        ),
    )
    text = b.exec("help").stdout
    assert "Services: nginx.service:status+restart+is-active cron.service:status+is-active\n" in text
    assert "  (start, stop, restart and reload need remediation mode)\n" in text
    assert "Elevatable commands: cat\n" in text  # rm is elevatable but not granted: not shown


def test_help_says_when_there_are_none() -> None:
    text = Bash(host=HostAccess()).exec("help").stdout
    assert "Services: none (systemctl is denied for every unit)\n" in text
    assert "Elevatable commands: none (sudo refuses every command)\n" in text
    assert "Elevatable" not in Bash().exec("help").stdout


# ------------------------------------------------------------ ping


def pinger(req: PingRequest) -> list[PingReply]:
    return [PingReply(i + 1, 0.5 if i % 2 == 0 else None) for i in range(req.count)]


PING: list[tuple[str, str, int]] = [
    ("ping -f localhost", "ping: unknown shorthand flag: 'f' in -f\n", 1),
    ("ping -b 255.255.255.255", "ping: unknown shorthand flag: 'b' in -b\n", 1),
    ("ping -s 1000 localhost", "ping: unknown shorthand flag: 's' in -s\n", 1),
    ("ping -I eth0 localhost", "ping: unknown shorthand flag: 'I' in -I\n", 1),
    ("ping -p ff localhost", "ping: unknown shorthand flag: 'p' in -p\n", 1),
    ("ping -R localhost", "ping: unknown shorthand flag: 'R' in -R\n", 1),
    ("ping --no-such-flag localhost", "ping: unknown flag: --no-such-flag\n", 1),
    ("ping -4 -6 localhost", "ping: -4 and -6 are mutually exclusive\n", 1),
    ("ping", "ping: missing host operand\nTry 'ping --help' for more information.\n", 1),
    ("ping host1 host2", "ping: too many arguments\nTry 'ping --help' for more information.\n", 1),
    ("ping -c 1 255.255.255.255", "ping: broadcast destination not allowed: 255.255.255.255\n", 1),
    ("ping -c 1 10.0.0.255", "ping: broadcast destination not allowed: 10.0.0.255\n", 1),
    ("ping -c 1 224.0.0.1", "ping: multicast destination not allowed: 224.0.0.1\n", 1),
    ("ping -c 1 0.0.0.0", "ping: unspecified destination not allowed: 0.0.0.0\n", 1),
    ("ping -c 1 ::", "ping: unspecified destination not allowed: ::\n", 1),
    ("ping -6 -c 1 192.0.2.1", 'ping: no ip6 address for host "192.0.2.1"\n', 1),
    ("ping -4 -c 1 ::1", 'ping: no ip4 address for host "::1"\n', 1),
    ("ping -c 1 -i x 127.0.0.1", "ping: invalid interval: x\n", 1),
    ("ping -c 1 example.com", "ping: example.com: name resolution is not available (give an address)\n", 1),
    ("ping -c 1 127.0.0.1", "ping: ICMP is not available: no network is configured\n", 1),
]


@pytest.mark.parametrize("script,err,status", PING, ids=[c[0] for c in PING])
def test_ping_refusals(script: str, err: str, status: int) -> None:
    r = Bash(host=HostAccess(pinger=pinger)).exec(script)
    assert (r.stdout, r.stderr, r.exit_code) == ("", err, status)


def test_ping_through_the_pinger_with_a_network() -> None:
    from sandbash.net import NetworkConfig

    b = Bash(
        host=HostAccess(pinger=pinger), network=NetworkConfig(allowed_url_prefixes=["http://127.0.0.1/"])
    )
    r = b.exec("ping -c 100 -i 0 127.0.0.1")
    assert r.stderr == (
        "ping: warning: count 100 clamped to [1, 20]\nping: warning: interval 0s clamped to [0.2s, 60s]\n"
    )
    lines = r.stdout.splitlines()
    assert lines[0] == "PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data."
    assert lines[1] == "64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.5 ms"
    assert "20 packets transmitted, 10 received, 50% packet loss" in lines
    b2 = Bash(host=HostAccess(), network=NetworkConfig(allowed_url_prefixes=["http://127.0.0.1/"]))
    assert b2.exec("ping -c 1 127.0.0.1").stderr == (
        "ping: ICMP is not available: no pinger is configured (sandbash opens no raw socket)\n"
    )
    r = b.exec("ping -c 1 192.0.2.7")
    assert (r.stderr, r.exit_code) == (
        "ping: destination not allowed by the network configuration: 192.0.2.7\n",
        1,
    )


def test_service_and_elevation_decisions_are_audited() -> None:
    calls: list[ElevationRequest] = []
    b = Bash(
        host=HostAccess(
            service_backend=TestServiceBackend.with_units("nginx.service"), elevate=elevator(calls)
        ),  # type: ignore[arg-type]
        policy=Policy(mode="read-only", services=GRANTS, elevatable_commands=["cat"]),
    )
    r = b.exec("systemctl restart nginx; systemctl status nginx; sudo cat /x")
    decisions = [
        (e["action"], e["target"], e["decision"], e["rule"])
        for e in r.events
        if e.get("kind") == "decision" and str(e.get("action", "")).startswith(("service:", "shell:elevate"))
    ]
    assert decisions == [
        ("service:restart", "nginx.service", "deny", "services.remediation"),
        ("service:status", "nginx.service", "allow", "services.grant"),
        ("shell:elevate", "cat", "allow", "elevation.allowed"),
    ]


class _BrokenBackend:
    def status(self, unit: str) -> ServiceStatus:
        raise RuntimeError("dbus connection lost")

    def act(self, unit: str, action: str) -> None:
        raise RuntimeError("dbus connection lost")


def test_a_broken_service_backend_is_a_message() -> None:
    b = Bash(
        host=HostAccess(service_backend=_BrokenBackend()),
        policy=Policy(mode="remediation", services=["nginx.service:status+restart"]),
    )
    r = b.exec("systemctl status nginx; echo $?; systemctl restart nginx; echo $?")
    assert r.stdout == "1\n1\n"
    assert r.stderr == (
        "systemctl: status nginx.service: the service backend failed: RuntimeError: dbus connection lost\n"
        "systemctl: restart nginx.service: the service backend failed: RuntimeError: "
        "dbus connection lost\n"
    )


def test_a_broken_pinger_is_a_message() -> None:
    from sandbash.net import NetworkConfig

    def broken(req: PingRequest) -> list[PingReply]:
        raise OSError("no route")

    def half(req: PingRequest):  # type: ignore[no-untyped-def]
        yield PingReply(1, 0.25)
        raise OSError("socket closed")

    net = NetworkConfig(allowed_url_prefixes=["http://127.0.0.1/"])
    r = Bash(host=HostAccess(pinger=broken), network=net).exec("ping -c 2 127.0.0.1")
    assert (r.stderr, r.exit_code) == ("ping: the pinger failed: OSError: no route\n", 1)
    r = Bash(host=HostAccess(pinger=half), network=net).exec("ping -c 2 127.0.0.1")
    assert r.stderr == "ping: the pinger failed: OSError: socket closed\n" and r.exit_code == 1
    assert "icmp_seq=1" in r.stdout


def test_a_mode_given_after_settling_is_explicit() -> None:
    settled = Policy(services=GRANTS).effective(None)  # all in memory: remediation, settled
    assert settled.mode == "remediation" and settled.mode_settled
    assert not settled.service_decision("nginx.service", "restart").allowed
    explicit = settled.replace(mode="remediation")
    assert not explicit.mode_settled and explicit.service_decision("nginx.service", "restart").allowed
