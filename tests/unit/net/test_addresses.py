from __future__ import annotations

from ipaddress import ip_address

import pytest

from sandbash.net.addresses import blocked_reason, embedded_ipv4

BLOCKED = [
    ("0.0.0.0", "unspecified"),
    ("0.1.2.3", "unspecified"),
    ("10.0.0.1", "private"),
    ("10.255.255.255", "private"),
    ("100.64.0.1", "CGNAT"),
    ("100.127.255.254", "CGNAT"),
    ("127.0.0.1", "loopback"),
    ("127.255.0.9", "loopback"),
    ("169.254.169.254", "link-local"),
    ("172.16.0.1", "private"),
    ("172.31.255.255", "private"),
    ("192.0.0.8", "IETF"),
    ("192.0.2.1", "documentation"),
    ("192.88.99.1", "6to4 relay"),
    ("192.168.1.1", "private"),
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.255", "benchmarking"),
    ("198.51.100.7", "documentation"),
    ("203.0.113.9", "documentation"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "broadcast"),
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:10.0.0.1", "private"),
    ("::ffff:169.254.169.254", "link-local"),
    ("::127.0.0.1", "loopback"),
    ("64:ff9b::7f00:1", "loopback"),
    ("64:ff9b::a9fe:a9fe", "link-local"),
    ("64:ff9b:1::1", "local NAT64"),
    ("2002:7f00:1::", "loopback"),
    ("2002:a00:1::1", "private"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("fc00::1", "unique local"),
    ("fd12:3456::1", "unique local"),
    ("fe80::1", "link-local"),
    ("fec0::1", "site-local"),
    ("ff02::1", "multicast"),
    ("100::1", "discard"),
    ("4000::1", "reserved"),
    ("::ffff:0:7f00:1", "reserved"),
]

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.169.0.1",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
]


@pytest.mark.parametrize(("address", "why"), BLOCKED)
def test_blocked(address: str, why: str) -> None:
    reason = blocked_reason(ip_address(address))
    assert reason is not None and why in reason


@pytest.mark.parametrize("address", PUBLIC)
def test_public(address: str) -> None:
    assert blocked_reason(ip_address(address)) is None


def test_zone_ids_are_refused() -> None:
    assert blocked_reason(ip_address("2606:4700::1%eth0")) == "scoped (zone id)"


def test_embedded() -> None:
    assert str(embedded_ipv4(ip_address("::ffff:1.2.3.4"))) == "1.2.3.4"  # type: ignore[arg-type]
    assert str(embedded_ipv4(ip_address("64:ff9b::102:304"))) == "1.2.3.4"  # type: ignore[arg-type]
    assert str(embedded_ipv4(ip_address("2002:102:304::"))) == "1.2.3.4"  # type: ignore[arg-type]
    assert embedded_ipv4(ip_address("2606:4700::1")) is None  # type: ignore[arg-type]
