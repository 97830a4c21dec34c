"""Every inspection command against the recorded tree (tests/fixtures/proc and sys): the exact
output, the status and the error text, table-driven."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.host import HostAccess

PS_HEAD = "   PID TTY              TIME CMD\n"
SS_HEAD = "Netid  State       Recv-Q  Send-Q  Local Address:Port           Peer Address:Port\n"

CASES: list[tuple[str, str, str, int]] = [
    # ps: the session of the process in /proc/self (4242) by default
    (
        "ps",
        PS_HEAD + "  4242 pts/0        00:00:01 /usr/bin/python3 agent.py\n"
        "  4300 pts/0        00:00:00 worker --a b\n",
        "",
        0,
    ),
    ("ps -e | wc -l", "6\n", "", 0),
    ("ps -A | tail -n +2 | awk '{print $1}' | tr '\\n' ' '", "1 2 812 4242 4300 ", "", 0),
    (
        "ps -p 812,4300",
        PS_HEAD + "   812 ?            01:02:00 nginx: master process /usr/sbin/nginx\n"
        "  4300 pts/0        00:00:00 worker --a b\n",
        "",
        0,
    ),
    ("ps 2", PS_HEAD + "     2 ?            00:00:00 [kthreadd]\n", "", 0),
    ("ps -p 99", PS_HEAD, "", 1),
    ("ps -p 1,,2", "", "ps: invalid PID list: 1,,2\n", 1),
    ("ps -p x", "", "ps: invalid PID: x\n", 1),
    ("ps -p 0", "", "ps: invalid PID: 0\n", 1),
    ("ps -x", "", "ps: unknown shorthand flag: 'x' in -x\n", 1),
    ("ps --sort=pid", "", "ps: unknown flag: --sort\n", 1),
    (
        "ps -f -p 4300",
        "UID             PID   PPID  C STIME TTY              TIME CMD\n"
        "1000           4300   4242  0 Nov15 pts/0        00:00:00 worker --a b\n",
        "",
        0,
    ),
    ("ps -o pid,comm -p 4300", " PID COMMAND\n4300 worker (x)\n", "", 0),
    ("ps -o pid,ppid,stat,rss,vsz -p 812", "PID PPID STAT  RSS   VSZ\n812    1 S    8000 53710\n", "", 0),
    ("ps -o bogus", "", 'ps: unknown user-defined format specifier "bogus"\n', 1),
    # ss
    (
        "ss",
        SS_HEAD + "tcp    ESTAB            0      16  192.168.0.2:80               192.168.0.10:54321\n"
        "u_str  ESTAB            0       0  *:31002                      *:*\n",
        "",
        0,
    ),
    (
        "ss -tln",
        SS_HEAD + "tcp    LISTEN           0       0  0.0.0.0:80                   0.0.0.0:*\n"
        "tcp    LISTEN           3       0  127.0.0.1:8080               0.0.0.0:*\n"
        "tcp    LISTEN           0       0  [::]:22                      [::]:*\n",
        "",
        0,
    ),
    ("ss -tlnH -4 | wc -l", "2\n", "", 0),
    ("ss -6 -l -H", "tcp    LISTEN           0       0  [::]:22                      [::]:*\n", "", 0),
    ("ss -uan -H", "udp    UNCONN           0       0  0.0.0.0:68                   0.0.0.0:*\n", "", 0),
    ("ss -xl -H", "u_str  LISTEN           0       0  /run/nginx.sock:31001        *:*\n", "", 0),
    ("ss -s", "Total: 7\nTCP:   4 (ipv4: 3, ipv6: 1)\nUDP:   1 (ipv4: 1, ipv6: 0)\nUnix:  2\n", "", 0),
    ("ss -tlneH -4 | awk '{print $7, $8}'", "uid:0 inode:21001\nuid:33 inode:21002\n", "", 0),
    (
        "ss -toH",
        "tcp    ESTAB            0      16  192.168.0.2:80               192.168.0.10:54321"
        "            timer:(keepalive)\n",
        "",
        0,
    ),
    ("ss -K", "", "ss: unknown shorthand flag: 'K' in -K\n", 1),
    ("ss -p", "", "ss: unknown shorthand flag: 'p' in -p\n", 1),
    ("ss -F /dev/null", "", "ss: unknown shorthand flag: 'F' in -F\n", 1),
    ("ss -E", "", "ss: unknown shorthand flag: 'E' in -E\n", 1),
    ("ss -N ns", "", "ss: unknown shorthand flag: 'N' in -N\n", 1),
    ("ss --kill", "", "ss: unknown flag: --kill\n", 1),
    # ip
    (
        "ip addr show dev eth0",
        "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP qlen 1000\n"
        "    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\n    inet 192.168.0.2/24 scope global eth0\n"
        "    inet6 fe80::2/64 scope link\n",
        "",
        0,
    ),
    (
        "ip -4 a",
        "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 state UNKNOWN qlen 1000\n"
        "    inet 127.0.0.1/8 scope host lo\n"
        "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP qlen 1000\n"
        "    inet 192.168.0.2/24 scope global eth0\n",
        "",
        0,
    ),
    (
        "ip --brief addr",
        "lo               UNKNOWN        127.0.0.1/8 ::1/128\n"
        "eth0             UP             192.168.0.2/24 fe80::2/64\neth1             DOWN\n",
        "",
        0,
    ),
    (
        "ip link show eth1",
        "3: eth1: <BROADCAST,MULTICAST> mtu 1500 state DOWN qlen 1000\n"
        "    link/ether 52:54:00:ab:cd:ef brd ff:ff:ff:ff:ff:ff\n",
        "",
        0,
    ),
    (
        "ip -o link show lo",
        "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 state UNKNOWN qlen 1000\\"
        "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n",
        "",
        0,
    ),
    ("ip route", "default via 192.168.0.1 dev eth0 metric 100\n192.168.0.0/24 dev eth0 scope link\n", "", 0),
    ("ip r show", "default via 192.168.0.1 dev eth0 metric 100\n192.168.0.0/24 dev eth0 scope link\n", "", 0),
    ("ip route get 192.168.0.77", "192.168.0.77 dev eth0\n", "", 0),
    ("ip route get 10.1.2.3", "10.1.2.3 via 192.168.0.1 dev eth0\n", "", 0),
    ("ip route get", "", "ip: route get: missing address argument\n", 1),
    ("ip route get 8.8.8.8 from 10.0.0.5", "", 'ip: route get: unsupported argument "from"\n', 1),
    ("ip route get 192.168.010.1", "", 'ip: route get: invalid address "192.168.010.1"\n', 1),
    ("ip -6 route show", "", "ip: route: IPv6 routing not supported\n", 1),
    (
        "ip -o route show",
        "",
        "ip: route: -o/--oneline and --brief flags are not supported for route output\n",
        1,
    ),
    (
        "ip route add 10.0.0.0/8 via 192.168.1.1",
        "",
        "ip: route: add: write operations are not permitted\n",
        1,
    ),
    ("ip route flush", "", "ip: route: flush: write operations are not permitted\n", 1),
    ("ip route unknowncmd", "", 'Command "unknowncmd" is unknown, try "ip route help".\n', 255),
    (
        "ip addr add 10.0.0.1/24 dev lo",
        "",
        "ip: 'ip addr add' is not supported (write operations are blocked for safety)\n",
        1,
    ),
    (
        "ip link set lo up",
        "",
        "ip: 'ip link set' is not supported (write operations are blocked for safety)\n",
        1,
    ),
    (
        "ip addr flush dev lo",
        "",
        "ip: 'ip addr flush' is not supported (write operations are blocked for safety)\n",
        1,
    ),
    (
        "ip netns exec mynamespace sh",
        "",
        "ip: 'netns' subcommand is blocked (shell escape vector via 'ip netns exec')\n",
        1,
    ),
    ("ip -n mynamespace addr show", "", "ip: unknown shorthand flag: 'n' in -n\n", 1),
    ("ip -b /tmp/cmds addr show", "", "ip: unknown shorthand flag: 'b' in -b\n", 1),
    ("ip --force addr show", "", "ip: unknown flag: --force\n", 1),
    ("ip", "", "ip: object required\nTry 'ip --help' for more information.\n", 1),
    ("ip foobar", "", 'ip: object "foobar" is not supported\nSupported objects: addr, link, route\n', 1),
    ("ip addr show dev", "", "ip: 'dev' requires an interface name argument\n", 1),
    ("ip addr show dev nonexistent-iface-xyz", "", 'ip: cannot find device "nonexistent-iface-xyz"\n', 1),
    # uptime, free (uptime's clock is the real time: only the rest is compared)
    ("uptime | sed 's/^ [0-9:]* //'", "up 1 day,  2:03,  load average: 0.52, 0.38, 0.25\n", "", 0),
    ("uptime -p", "up 1 day, 2 hours, 3 minutes\n", "", 0),
    ("uptime x", "", "uptime: extra operand 'x'\n", 1),
    (
        "free",
        "               total        used        free      shared  buff/cache   available\n"
        "Mem:         8000000     3000000     2000000       50000     3000000     5000000\n"
        "Swap:        1048576       48576     1000000\n",
        "",
        0,
    ),
    (
        "free -m | sed -n 2p",
        "Mem:            7812        2929        1953          48        2929        4882\n",
        "",
        0,
    ),
    ("free -b | sed -n 3p", "Swap:     1073741824    49741824  1024000000\n", "", 0),
    (
        "free -h -t | tail -n 2",
        "Swap:          1.0Gi        47Mi       976Mi\nTotal:         8.6Gi       2.9Gi       2.8Gi\n",
        "",
        0,
    ),
    ("free -s 1", "", "free: unknown shorthand flag: 's' in -s\n", 1),
]


@pytest.mark.parametrize("script,out,err,status", CASES, ids=[c[0] for c in CASES])
def test_fixture_tree(fixture_bash: Bash, script: str, out: str, err: str, status: int) -> None:
    r = fixture_bash.exec(script)
    assert (r.stdout, r.stderr, r.exit_code) == (out, err, status)


def test_ps_stime_is_the_start_date(fixture_bash: Bash) -> None:
    # btime 1700000000 (2023-11-14 22:13:20 UTC) + starttime 900000 ticks / 100 = Nov15
    r = fixture_bash.exec("ps -o pid,stime -p 4242,1")
    assert r.stdout == " PID STIME\n   1 Nov14\n4242 Nov15\n"


@pytest.mark.parametrize("script", ["ps -e", "ss -a", "ip a", "ip route", "free", "uptime"])
def test_missing_tree_is_a_clear_error(script: str) -> None:
    from sandbash.host import HostAccess

    b = Bash(host=HostAccess(proc_path="/nonexistent/proc", sys_path="/nonexistent/sys"))
    r = b.exec(script)
    assert r.exit_code == 1
    assert r.stderr == f"{script.split()[0]}: cannot read /nonexistent/proc: No such directory\n"
    assert "Traceback" not in r.stderr


def _proc_entry(root: Path, pid: int, ppid: int, sid: int, comm: str, argv: list[bytes]) -> None:
    d = root / str(pid)
    d.mkdir()
    (d / "stat").write_text(
        f"{pid} ({comm}) S {ppid} {sid} {sid} 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 1000 10\n"
    )
    (d / "status").write_text(f"Name:\t{comm}\nUid:\t0\t0\t0\t0\n")
    (d / "cmdline").write_bytes(b"".join(a + b"\0" for a in argv))


def test_ps_default_lists_descendants_when_the_session_id_is_unknown(tmp_path: Path) -> None:
    """In a pid namespace whose session leader lies outside it, /proc shows session 0: the
    default listing still holds this process's children and grandchildren, not strangers."""
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "stat").write_text("btime 0\n")
    _proc_entry(proc, 10, 1, 0, "runner", [b"runner"])
    _proc_entry(proc, 20, 10, 0, "python3", [b"python3", b"-m", b"pytest"])
    _proc_entry(proc, 30, 20, 0, "sleep", [b"sleep", b"60"])
    _proc_entry(proc, 31, 30, 0, "sh", [b"sh", b"-c", b"echo one\necho two"])
    _proc_entry(proc, 40, 1, 0, "stranger", [b"stranger"])
    b = Bash(host=HostAccess(proc_path=str(proc), sys_path=str(tmp_path), self_pid=20))
    r = b.exec("ps | awk 'NR > 1 {print $1}'")
    assert r.stdout.split() == ["10", "20", "30", "31"], r.stderr
    # one process is one line: a newline inside an argument is shown as '?', as procps does
    r = b.exec("ps -p 31 -o pid,args")
    assert r.stdout == "PID COMMAND\n 31 sh -c echo one?echo two\n"
