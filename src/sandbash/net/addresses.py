"""Which IP addresses a sandboxed request may reach (pure, no sockets).

`blocked_reason(ip)` names the special-purpose range an address falls in, or
returns None for an ordinary public address. IPv6 addresses that carry an IPv4
address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) are judged by the
IPv4 address inside, so `::ffff:127.0.0.1` is loopback. For IPv6 only global
unicast (2000::/3) is public at all: everything else is reserved.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

IPAddress = IPv4Address | IPv6Address

# (network, reason); the IANA special-purpose registries, plus broadcast
_V4: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(net), why)
    for net, why in (
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared (CGNAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignment"),
        ("192.0.2.0/24", "documentation"),
        ("192.31.196.0/24", "reserved (AS112)"),
        ("192.52.193.0/24", "reserved (AMT)"),
        ("192.88.99.0/24", "reserved (6to4 relay)"),
        ("192.168.0.0/16", "private"),
        ("192.175.48.0/24", "reserved (AS112)"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("255.255.255.255/32", "broadcast"),  # before 240/4, which contains it
        ("240.0.0.0/4", "reserved"),
    )
)

_V6: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(net), why)
    for net, why in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "local NAT64"),
        ("100::/64", "discard-only"),
        ("2001::/23", "IETF protocol assignment"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "segment routing"),
        ("fc00::/7", "unique local (private)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    )
)
_GLOBAL_UNICAST = IPv6Network("2000::/3")
_NAT64 = IPv6Network("64:ff9b::/96")
_COMPAT = IPv6Network("::/96")  # deprecated IPv4-compatible addresses
_TEREDO = IPv6Network("2001::/32")


def embedded_ipv4(ip: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 address stands for, if it is a translation form."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64 or (ip in _COMPAT and int(ip) > 1):
        return IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _TEREDO and ip.teredo is not None:
        return ip.teredo[1]  # the client address behind the relay
    return None


def blocked_reason(ip: IPAddress) -> str | None:
    """Why `ip` must not be reached with private ranges denied; None if public."""
    if isinstance(ip, IPv6Address):
        if ip.scope_id:
            return "scoped (zone id)"
        inner = embedded_ipv4(ip)
        if inner is not None:
            why = blocked_reason(inner)
            # 6to4/NAT64 of a public address is still a translation relay: allow only if the inner is public
            return f"{why} (embedded in {ip.compressed})" if why else None
        for net6, why in _V6:
            if ip in net6:
                return why
        return None if ip in _GLOBAL_UNICAST else "reserved"
    for net4, why in _V4:
        if ip in net4:
            return why
    return None


def parse_ip(text: str) -> IPAddress | None:
    """A canonical IP literal (as url.py produces) or None for a host name."""
    try:
        return ip_address(text)
    except ValueError:
        return None
