"""ss: sockets from /proc/net/{tcp,tcp6,udp,udp6,unix}, in rshell's columns. The flags that
would reach beyond reading (-K kill, -F file, -p processes, -E events, -N namespace) are not
declared, so they are refused as unknown flags, as rshell does."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from ...host.procfs import MAX_ENTRIES, ProcFs
from ...limits import MemoryHold
from ..context import Ctx
from ..record import Effects, declare
from .common import Flag, Flags, help_text, parse_flags, procfs

FLAGS = (
    Flag("h", "help"),
    Flag("t", "tcp"),
    Flag("u", "udp"),
    Flag("x", "unix"),
    Flag("l", "listening"),
    Flag("a", "all"),
    Flag("n", "numeric"),
    Flag("4", "ipv4"),
    Flag("6", "ipv6"),
    Flag("s", "summary"),
    Flag("H", "no-header"),
    Flag("o", "options"),
    Flag("e", "extended"),
)
NOTES = {
    "tcp": "display only TCP sockets",
    "udp": "display only UDP sockets",
    "unix": "display only Unix sockets",
    "listening": "display only listening sockets",
    "all": "display listening and non-listening sockets",
    "numeric": "do not resolve service names",
    "ipv4": "display only IPv4 sockets",
    "ipv6": "display only IPv6 sockets",
    "summary": "print summary statistics only",
    "no-header": "suppress the column header",
    "options": "show timer information",
    "extended": "show extended socket information (uid, inode)",
    "help": "print usage",
}

TCP_STATES = {
    1: "ESTAB",
    2: "SYN-SENT",
    3: "SYN-RECV",
    4: "FIN-WAIT-1",
    5: "FIN-WAIT-2",
    6: "TIME-WAIT",
    7: "UNCONN",
    8: "CLOSE-WAIT",
    9: "LAST-ACK",
    10: "LISTEN",
    11: "CLOSING",
}
TIMERS = {0: "off", 1: "on", 2: "keepalive", 3: "timewait", 4: "persist"}
MAX_LINE = 1 << 20


@dataclass(frozen=True)
class Sock:
    netid: str  # tcp | udp | u_str
    family: int  # 4, 6, 0 (unix)
    state: str
    recv_q: int
    send_q: int
    local: str
    peer: str
    uid: int = 0
    inode: int = 0
    timer: str = "off"

    @property
    def listening(self) -> bool:
        return self.state in ("LISTEN", "UNCONN")


def hex_address(text: str) -> tuple[str, int]:
    """`0100007F:0050` -> ('127.0.0.1', 80); IPv6 in /proc's 4 little-endian words."""
    addr, _, port = text.partition(":")
    raw = bytes.fromhex(addr)
    if len(raw) == 4:
        ip = str(ipaddress.IPv4Address(raw[::-1]))
    else:
        words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
        v6 = ipaddress.IPv6Address(words)
        ip = f"[::ffff:{v6.ipv4_mapped}]" if v6.ipv4_mapped else f"[{v6}]"
    return ip, int(port, 16)


def _endpoint(addr: str, port: int) -> str:
    return f"{addr}:{port if port else '*'}"


def inet_table(ctx: Ctx, fs: ProcFs, name: str, mem: MemoryHold) -> list[Sock]:
    text = fs.text(f"net/{name}", charge=mem.charge) or ""
    netid = "tcp" if name.startswith("tcp") else "udp"
    family = 6 if name.endswith("6") else 4
    out: list[Sock] = []
    for line in text.splitlines()[1 : MAX_ENTRIES + 1]:
        ctx.checkpoint()
        f = line.split()
        if len(f) < 10 or len(line) > MAX_LINE:
            continue
        try:
            laddr, lport = hex_address(f[1])
            raddr, rport = hex_address(f[2])
            st = int(f[3], 16)
            tx, rx = (int(x, 16) for x in f[4].split(":"))
            timer = TIMERS.get(int(f[5].split(":")[0], 16), "off")
        except ValueError:
            continue
        state = TCP_STATES.get(st, "UNKNOWN") if netid == "tcp" else ("UNCONN" if st == 7 else "ESTAB")
        out.append(
            Sock(
                netid,
                family,
                state,
                rx,
                tx,
                _endpoint(laddr, lport),
                _endpoint(raddr, rport),
                int(f[7]) if f[7].isdigit() else 0,
                int(f[9]) if f[9].isdigit() else 0,
                timer,
            )
        )
    return out


def unix_table(ctx: Ctx, fs: ProcFs, mem: MemoryHold) -> list[Sock]:
    text = fs.text("net/unix", charge=mem.charge) or ""
    out: list[Sock] = []
    for line in text.splitlines()[1 : MAX_ENTRIES + 1]:
        ctx.checkpoint()
        f = line.split(None, 7)
        if len(f) < 7:
            continue
        try:
            flags, st = int(f[3], 16), int(f[5], 16)
        except ValueError:
            continue
        state = "LISTEN" if flags & 0x10000 else ("ESTAB" if st == 3 else "UNCONN")
        path = f[7].strip() if len(f) > 7 else "*"
        inode = int(f[6]) if f[6].isdigit() else 0
        out.append(Sock("u_str", 0, state, 0, 0, f"{path}:{inode}", "*:*", 0, inode))
    return out


@declare("ss", effects=Effects.NONE, host_only=True, summary="display socket statistics")
def cmd_ss(ctx: Ctx) -> int:
    opts = parse_flags(
        ctx,
        ctx.args,
        FLAGS,
        usage=help_text("ss [OPTION]...", "Display information about network sockets.", FLAGS, NOTES),
    )
    fs = procfs(ctx)
    with ctx.hold_memory() as mem:
        socks = _sockets(ctx, fs, opts, mem)
        _show(ctx, opts, socks)
    return 0


def _sockets(ctx: Ctx, fs: ProcFs, opts: Flags, mem: MemoryHold) -> list[Sock]:
    picked = opts.on("tcp") or opts.on("udp") or opts.on("unix")
    socks: list[Sock] = []
    if not picked or opts.on("tcp"):
        socks += inet_table(ctx, fs, "tcp", mem) + inet_table(ctx, fs, "tcp6", mem)
    if not picked or opts.on("udp"):
        socks += inet_table(ctx, fs, "udp", mem) + inet_table(ctx, fs, "udp6", mem)
    if (not picked or opts.on("unix")) and not (opts.on("ipv4") or opts.on("ipv6")):
        socks += unix_table(ctx, fs, mem)
    mem.charge(len(socks) * 400)  # the parsed entries
    return socks


def _show(ctx: Ctx, opts: Flags, socks: list[Sock]) -> None:
    if opts.on("summary"):
        _summary(ctx, socks)
        return
    shown = [
        s for s in socks if _wanted(s, opts.on("ipv4"), opts.on("ipv6"), opts.on("all"), opts.on("listening"))
    ]
    if not opts.on("no-header"):
        head = (
            f"{'Netid':<5}  {'State':<10}  {'Recv-Q':>6}  {'Send-Q':>6}  {'Local Address:Port':<28} "
            f"{'Peer Address:Port':<28}"
        )
        head += "  Extended" if opts.on("extended") else ""
        head += "  Timer" if opts.on("options") else ""
        ctx.out(head.rstrip() + "\n")
    for s in shown:
        line = f"{s.netid:<5}  {s.state:<10}  {s.recv_q:>6}  {s.send_q:>6}  {s.local:<28} {s.peer:<28}"
        if opts.on("extended"):
            line += f"  uid:{s.uid} inode:{s.inode}"
        if opts.on("options"):
            line += f"  timer:({s.timer})"
        ctx.out(line.rstrip() + "\n")


def _wanted(s: Sock, v4: bool, v6: bool, everything: bool, listening: bool) -> bool:
    if v4 and not v6 and s.family == 6:
        return False
    if v6 and not v4 and s.family == 4:
        return False
    if everything:
        return True
    return s.listening if listening else not s.listening


def _summary(ctx: Ctx, socks: list[Sock]) -> None:
    def count(netid: str, family: int) -> int:
        return sum(1 for s in socks if s.netid == netid and s.family == family)

    tcp4, tcp6, udp4, udp6 = count("tcp", 4), count("tcp", 6), count("udp", 4), count("udp", 6)
    unix = count("u_str", 0)
    ctx.out(
        f"Total: {tcp4 + tcp6 + udp4 + udp6 + unix}\n"
        f"TCP:   {tcp4 + tcp6} (ipv4: {tcp4}, ipv6: {tcp6})\n"
        f"UDP:   {udp4 + udp6} (ipv4: {udp4}, ipv6: {udp6})\n"
        f"Unix:  {unix}\n"
    )
