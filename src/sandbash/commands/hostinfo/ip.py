"""ip addr|link|route (show only; `route get ADDRESS`) from /sys/class/net, /proc/net/route,
/proc/net/fib_trie and /proc/net/if_inet6. Writes, namespaces and batch files are refused with
rshell's messages."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from ...host.procfs import ProcFs
from ..context import CommandExit, Ctx
from ..record import Effects, declare
from .common import Flag, Flags, fail, parse_flags, procfs

FLAGS = (Flag("4", "ipv4"), Flag("6", "ipv6"), Flag("o", "oneline"), Flag(None, "brief"), Flag("h", "help"))
WRITES = {"add", "del", "delete", "change", "replace", "set", "flush", "append", "prepend", "save", "restore"}
OBJECTS = {
    "a": "addr",
    "ad": "addr",
    "add": "addr",
    "addr": "addr",
    "address": "addr",
    "l": "link",
    "li": "link",
    "lin": "link",
    "link": "link",
    "r": "route",
    "ro": "route",
    "rou": "route",
    "rout": "route",
    "route": "route",
}
# in iproute2's order
IFF = [
    (0x8, "LOOPBACK"),
    (0x2, "BROADCAST"),
    (0x10, "POINTOPOINT"),
    (0x1000, "MULTICAST"),
    (0x80, "NOARP"),
    (0x100, "PROMISC"),
    (0x1, "UP"),
]
USAGE = """Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }
where  OBJECT := { addr | link | route }
       OPTIONS := { -4 | -6 | -o[neline] | --brief }
       addr show [ dev IFNAME ]     link show [ dev IFNAME ]
       route show                   route get ADDRESS
Only reads: add, del, set, flush and the other writes are refused.
"""


@dataclass(frozen=True)
class Link:
    index: int
    name: str
    flags: list[str]
    mtu: str
    state: str
    qlen: str
    kind: str
    mac: str
    brd: str


@dataclass(frozen=True)
class Route:
    iface: str
    dest: ipaddress.IPv4Network
    gateway: str
    metric: int


def links(fs: ProcFs) -> list[Link]:
    out: list[Link] = []
    for name in fs.sys_names("class/net"):
        base = f"class/net/{name}"
        flags_hex = fs.sys_text(f"{base}/flags") or "0"
        try:
            bits = int(flags_hex, 16)
        except ValueError:
            bits = 0
        flags = [n for b, n in IFF if bits & b]
        oper = (fs.sys_text(f"{base}/operstate") or "unknown").upper()
        if oper == "UP" or (bits & 1 and fs.sys_text(f"{base}/carrier") == "1"):
            flags.append("LOWER_UP")
        loop = bits & 0x8
        mac = fs.sys_text(f"{base}/address") or "00:00:00:00:00:00"
        out.append(
            Link(
                int(fs.sys_text(f"{base}/ifindex") or 0),
                name,
                flags,
                fs.sys_text(f"{base}/mtu") or "0",
                oper,
                fs.sys_text(f"{base}/tx_queue_len") or "0",
                "loopback" if loop else "ether",
                mac,
                fs.sys_text(f"{base}/broadcast") or "ff:ff:ff:ff:ff:ff",
            )
        )
    return sorted(out, key=lambda link: link.index)


def routes(fs: ProcFs) -> list[Route]:
    out: list[Route] = []
    for line in (fs.text("net/route") or "").splitlines()[1:]:
        f = line.split()
        if len(f) < 8:
            continue
        try:
            dest = ipaddress.IPv4Address(bytes.fromhex(f[1])[::-1])
            gw = ipaddress.IPv4Address(bytes.fromhex(f[2])[::-1])
            mask = ipaddress.IPv4Address(bytes.fromhex(f[7])[::-1])
            net = ipaddress.IPv4Network(f"{dest}/{mask}", strict=False)
        except ValueError:
            continue
        out.append(
            Route(f[0], net, str(gw) if int(f[3], 16) & 0x2 else "", int(f[6]) if f[6].isdigit() else 0)
        )
    return out


def v4_addresses(fs: ProcFs, table: list[Route]) -> list[tuple[str, str, int]]:
    """(iface, address, prefix) of the local IPv4 addresses: fib_trie's /32 host LOCAL entries,
    placed on the interface (and prefix) of the most specific route that holds them."""
    found: list[str] = []
    last = ""
    for line in (fs.text("net/fib_trie") or "").splitlines():
        s = line.strip()
        if s.startswith("|--"):
            last = s[3:].strip()
        elif "/32 host LOCAL" in s and last and last not in found:
            found.append(last)
    out: list[tuple[str, str, int]] = []
    for a in found:
        ip = ipaddress.IPv4Address(a)
        if ip.is_loopback:
            out.append(("lo", a, 8))
            continue
        best = max(
            (r for r in table if ip in r.dest and r.dest.prefixlen > 0),
            key=lambda r: r.dest.prefixlen,
            default=None,
        )
        if best is not None:
            out.append((best.iface, a, best.dest.prefixlen))
    return out


def v6_addresses(fs: ProcFs) -> list[tuple[str, str, int, str]]:
    out: list[tuple[str, str, int, str]] = []
    scopes = {"00": "global", "10": "host", "20": "link", "40": "site"}
    for line in (fs.text("net/if_inet6") or "").splitlines():
        f = line.split()
        if len(f) >= 6:
            try:
                addr = str(ipaddress.IPv6Address(bytes.fromhex(f[0])))
            except ValueError:
                continue
            out.append((f[5], addr, int(f[2], 16), scopes.get(f[3], "global")))
    return out


@declare("ip", effects=Effects.NONE, host_only=True, summary="show addresses, links and routes")
def cmd_ip(ctx: Ctx) -> int:
    opts = parse_flags(ctx, ctx.args, FLAGS, interspersed=False, usage=USAGE)
    words = opts.operands
    if not words:
        ctx.stderr.write(b"ip: object required\nTry 'ip --help' for more information.\n")
        return 1
    if words[0] == "netns":
        raise fail(ctx, "'netns' subcommand is blocked (shell escape vector via 'ip netns exec')")
    obj = OBJECTS.get(words[0])
    if obj is None:
        ctx.stderr.write(
            f'ip: object "{words[0]}" is not supported\nSupported objects: addr, link, route\n'.encode()
        )
        return 1
    sub = words[1].lower() if len(words) > 1 else "show"
    with ctx.hold_memory() as mem:
        return _object(ctx, procfs(ctx).charged(mem.charge), opts, obj, sub, words)


def _object(ctx: Ctx, fs: ProcFs, opts: Flags, obj: str, sub: str, words: list[str]) -> int:
    if obj == "route":
        return _route(ctx, fs, opts.on("ipv6"), opts.on("oneline") or opts.on("brief"), sub, words[2:])
    if sub in WRITES:
        raise fail(ctx, f"'ip {words[0]} {sub}' is not supported (write operations are blocked for safety)")
    if sub not in ("show", "list", "lst", "sh", "ls"):
        raise fail(ctx, f'{obj}: unknown command "{sub}"', 255)
    dev = _dev(ctx, words[2:])
    table = links(fs)
    if dev is not None and dev not in {link.name for link in table}:
        raise fail(ctx, f'cannot find device "{dev}"')
    shown = [link for link in table if dev is None or link.name == dev]
    if obj == "link":
        _show_links(ctx, shown, opts.on("brief"), opts.on("oneline"))
    else:
        _show_addrs(ctx, fs, shown, opts.on("ipv4"), opts.on("ipv6"), opts.on("brief"))
    return 0


def _dev(ctx: Ctx, words: list[str]) -> str | None:
    if not words:
        return None
    if words[0] == "dev":
        if len(words) < 2:
            raise fail(ctx, "'dev' requires an interface name argument")
        return words[1]
    if len(words) == 1:
        return words[0]
    raise fail(ctx, f'either "dev" is duplicate, or "{words[1]}" is a garbage.')


def _link_line(link: Link) -> tuple[str, str]:
    head = (
        f"{link.index}: {link.name}: <{','.join(link.flags)}> mtu {link.mtu} state {link.state} "
        f"qlen {link.qlen}"
    )
    return head, f"    link/{link.kind} {link.mac} brd {link.brd}"


def _show_links(ctx: Ctx, shown: list[Link], brief: bool, oneline: bool) -> None:
    for link in shown:
        if brief:
            ctx.out(f"{link.name:<16} {link.state:<14} {link.mac} <{','.join(link.flags)}>\n")
            continue
        head, second = _link_line(link)
        ctx.out(f"{head}\\{second}\n" if oneline else f"{head}\n{second}\n")


def _show_addrs(ctx: Ctx, fs: ProcFs, shown: list[Link], only4: bool, only6: bool, brief: bool) -> None:
    v4 = [] if only6 and not only4 else v4_addresses(fs, routes(fs))
    v6 = [] if only4 and not only6 else v6_addresses(fs)
    for link in shown:
        mine4 = [(a, p) for i, a, p in v4 if i == link.name]
        mine6 = [(a, p, s) for i, a, p, s in v6 if i == link.name]
        if brief:
            addrs = [f"{a}/{p}" for a, p in mine4] + [f"{a}/{p}" for a, p, _ in mine6]
            ctx.out(f"{link.name:<16} {link.state:<14} {' '.join(addrs)}\n".rstrip() + "\n")
            continue
        if (only4 or only6) and not (mine4 or mine6):
            continue
        head, second = _link_line(link)
        ctx.out(f"{head}\n")
        if not (only4 or only6):
            ctx.out(f"{second}\n")
        for a, p in mine4:
            scope = "host" if a.startswith("127.") else "global"
            ctx.out(f"    inet {a}/{p} scope {scope} {link.name}\n")
        for a, p, s in mine6:
            ctx.out(f"    inet6 {a}/{p} scope {s}\n")


def _route(ctx: Ctx, fs: ProcFs, v6: bool, oneline: bool, sub: str, rest: list[str]) -> int:
    if v6:
        raise fail(ctx, "route: IPv6 routing not supported")
    if oneline:
        raise fail(ctx, "route: -o/--oneline and --brief flags are not supported for route output")
    if sub in WRITES:
        raise fail(ctx, f"route: {sub}: write operations are not permitted")
    table = routes(fs)
    if sub in ("show", "list", "ls", "sh"):
        for r in sorted(table, key=lambda r: (r.dest.prefixlen != 0, r.metric)):
            dest = "default" if r.dest.prefixlen == 0 else str(r.dest)
            via = f" via {r.gateway}" if r.gateway else ""
            scope = "" if r.gateway else " scope link"
            metric = f" metric {r.metric}" if r.metric else ""
            ctx.out(f"{dest}{via} dev {r.iface}{scope}{metric}\n")
        return 0
    if sub == "get":
        return _route_get(ctx, table, rest)
    ctx.stderr.write(f'Command "{sub}" is unknown, try "ip route help".\n'.encode())
    raise CommandExit(255)


def _route_get(ctx: Ctx, table: list[Route], rest: list[str]) -> int:
    if not rest:
        raise fail(ctx, "route get: missing address argument")
    if len(rest) > 1:
        raise fail(ctx, f'route get: unsupported argument "{rest[1]}"')
    try:
        ip = ipaddress.IPv4Address(rest[0])
    except ValueError:
        raise fail(ctx, f'route get: invalid address "{rest[0]}"') from None
    best = max((r for r in table if ip in r.dest), key=lambda r: (r.dest.prefixlen, -r.metric), default=None)
    if best is None:
        raise fail(ctx, "RTNETLINK answers: Network is unreachable", 2)
    via = f" via {best.gateway}" if best.gateway else ""
    ctx.out(f"{ip}{via} dev {best.iface}\n")
    return 0
