"""ping: bounded ICMP echo through the embedder's pinger (sandbash opens no raw socket). The
destination must be a unicast address the network configuration allows; count and interval are
clamped as rshell clamps them, and flood/broadcast/size/pattern flags are not declared."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from ...host.services import PingReply, PingRequest
from ..context import Ctx
from ..record import Effects, declare
from .common import Flag, fail, host, parse_flags

FLAGS = (
    Flag("c", "count", True),
    Flag("i", "interval", True),
    Flag("W", "timeout", True),
    Flag("4", "ipv4"),
    Flag("6", "ipv6"),
    Flag("q", "quiet"),
    Flag("h", "help"),
)
MAX_COUNT, MIN_INTERVAL, MAX_INTERVAL, MAX_WAIT = 20, 0.2, 60.0, 30.0


def _number(ctx: Ctx, text: str | None, what: str, default: float) -> float:
    if text is None:
        return default
    try:
        value = float(text.removesuffix("ms")) / (1000 if text.endswith("ms") else 1)
    except ValueError:
        raise fail(ctx, f"invalid {what}: {text}") from None
    if value < 0 or value != value:
        raise fail(ctx, f"invalid {what}: {text}")
    return value


@declare("ping", effects=Effects.NONE, host_only=True, summary="send ICMP echo requests")
def cmd_ping(ctx: Ctx) -> int:
    opts = parse_flags(
        ctx, ctx.args, FLAGS, usage="Usage: ping [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [-4|-6] [-q] HOST\n"
    )
    if opts.on("ipv4") and opts.on("ipv6"):
        raise fail(ctx, "-4 and -6 are mutually exclusive")
    if len(opts.operands) != 1:
        ctx.error("missing host operand" if not opts.operands else "too many arguments")
        ctx.stderr.write(b"Try 'ping --help' for more information.\n")
        return 1
    target = opts.operands[0]
    count = int(_number(ctx, opts.get("count"), "count", 4))
    if not 1 <= count <= MAX_COUNT:
        ctx.error(f"warning: count {count} clamped to [1, {MAX_COUNT}]")
        count = min(max(count, 1), MAX_COUNT)
    interval = _number(ctx, opts.get("interval"), "interval", 1.0)
    if not MIN_INTERVAL <= interval <= MAX_INTERVAL:
        ctx.error(f"warning: interval {interval:g}s clamped to [{MIN_INTERVAL:g}s, {MAX_INTERVAL:g}s]")
        interval = min(max(interval, MIN_INTERVAL), MAX_INTERVAL)
    wait = min(_number(ctx, opts.get("timeout"), "timeout", 1.0), MAX_WAIT)
    address = _address(ctx, target, opts.on("ipv4"), opts.on("ipv6"))
    pinger = host(ctx).pinger
    network = ctx.net
    if network is None or pinger is None:
        raise fail(
            ctx,
            "ICMP is not available: "
            + (
                "no network is configured"
                if network is None
                else "no pinger is configured (sandbash opens no raw socket)"
            ),
        )
    if not _allowed(network, address):
        raise fail(ctx, f"destination not allowed by the network configuration: {target}")
    return _run(ctx, pinger, PingRequest(target, address, count, interval, wait), opts.on("quiet"))


def _address(ctx: Ctx, target: str, v4: bool, v6: bool) -> str:
    try:
        ip = ipaddress.ip_address(target.strip("[]"))
    except ValueError:
        if target == "localhost":
            return "::1" if v6 else "127.0.0.1"
        raise fail(ctx, f"{target}: name resolution is not available (give an address)") from None
    if v6 and ip.version == 4:
        raise fail(ctx, f'no ip6 address for host "{target}"')
    if v4 and ip.version == 6:
        raise fail(ctx, f'no ip4 address for host "{target}"')
    if ip.is_unspecified:
        raise fail(ctx, f"unspecified destination not allowed: {target}")
    if ip.is_multicast:
        raise fail(ctx, f"multicast destination not allowed: {target}")
    if ip.version == 4 and (str(ip).endswith(".255") or ip == ipaddress.IPv4Address("255.255.255.255")):
        raise fail(ctx, f"broadcast destination not allowed: {target}")
    return str(ip)


def _allowed(network: object, address: str) -> bool:
    """The destination is a host of the network's allowed URL prefixes (or all are allowed)."""
    if getattr(network, "dangerously_allow_full_internet_access", False):
        return True
    prefixes = getattr(network, "prefixes", None)
    hosts = {str(getattr(p, "host", "")) for p in prefixes()} if callable(prefixes) else set()
    return address in hosts


def _guarded(ctx: Ctx, replies: Iterator[PingReply]) -> Iterator[PingReply]:
    while True:
        try:
            reply = next(replies)
        except StopIteration:
            return
        except Exception as e:
            raise fail(ctx, f"the pinger failed: {type(e).__name__}: {e}") from None
        yield reply


def _run(ctx: Ctx, pinger: object, req: PingRequest, quiet: bool) -> int:
    ctx.out(f"PING {req.host} ({req.address}) 56(84) bytes of data.\n")
    got: list[float] = []
    sent = 0
    try:
        replies = iter(pinger(req))  # type: ignore[operator]
    except Exception as e:  # the embedder's pinger broke: a message, never a traceback
        raise fail(ctx, f"the pinger failed: {type(e).__name__}: {e}") from None
    for reply in _guarded(ctx, replies):
        ctx.checkpoint()
        sent += 1
        if reply.rtt_ms is not None:
            got.append(reply.rtt_ms)
            if not quiet:
                ctx.out(
                    f"{reply.size} bytes from {req.address}: icmp_seq={reply.seq} ttl={reply.ttl} "
                    f"time={reply.rtt_ms:.3g} ms\n"
                )
        if sent >= req.count:
            break
    loss = 100 if not sent else round((sent - len(got)) * 100 / sent)
    ctx.out(
        f"\n--- {req.host} ping statistics ---\n{sent} packets transmitted, {len(got)} received, "
        f"{loss}% packet loss\n"
    )
    if got:
        ctx.out(f"rtt min/avg/max = {min(got):.3f}/{sum(got) / len(got):.3f}/{max(got):.3f} ms\n")
    return 0 if got else 1
