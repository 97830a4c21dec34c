from __future__ import annotations

import pytest

from sandbash.net import Credential, NetworkConfig
from sandbash.net.cookies import CookieJar
from sandbash.net.url import parse_url


def test_defaults_follow_the_issue() -> None:
    cfg = NetworkConfig()
    assert cfg.allowed_url_prefixes == () and cfg.allowed_methods == ("GET", "HEAD")
    assert cfg.deny_private_ranges is True and cfg.dangerously_allow_full_internet_access is False
    assert (cfg.max_response_size, cfg.max_redirects, cfg.timeout) == (5 * 1024 * 1024, 10, 10.0)


def test_validation() -> None:
    assert NetworkConfig(allowed_methods=["get", "Post"]).allowed_methods == ("GET", "POST")
    with pytest.raises(ValueError):
        NetworkConfig(allowed_url_prefixes=["https://h/x?q=1"])
    with pytest.raises(ValueError):
        NetworkConfig(timeout=0)
    with pytest.raises(ValueError):
        Credential("not a url", {"A": "b"})


def test_credentials_keep_their_secrets_out_of_reprs() -> None:
    cred = Credential("https://api.example.com/", {"Authorization": "Bearer TOPSECRET"})
    assert "TOPSECRET" not in repr(cred) and "TOPSECRET" not in repr(NetworkConfig(credentials=[cred]))


def test_cookie_jar_matching() -> None:
    jar = CookieJar()
    site = parse_url("https://www.example.com/app/page")
    jar.set_from_header(site, "a=1", 0)  # host-only, path /app
    jar.set_from_header(site, "b=2; Domain=example.com; Path=/", 0)
    jar.set_from_header(site, "c=3; Secure; Max-Age=10", 0)
    jar.set_from_header(site, "evil=1; Domain=other.com", 0)  # not ours to set
    assert jar.header(parse_url("https://www.example.com/app/x"), 1) == "a=1; c=3; b=2"  # longer paths first
    assert jar.header(parse_url("http://www.example.com/app/x"), 1) == "a=1; b=2"
    assert jar.header(parse_url("https://api.example.com/"), 1) == "b=2"
    assert jar.header(parse_url("https://www.example.com/app/x"), 20) == "a=1; b=2"  # c has expired
    assert jar.header(parse_url("https://other.com/"), 1) is None
    jar.set_from_header(site, "a=gone; Max-Age=0", 1)
    assert jar.header(parse_url("https://www.example.com/app/x"), 2) == "c=3; b=2"
    again = CookieJar()
    again.load_netscape(jar.dump_netscape(2), 2)
    assert again.header(parse_url("https://api.example.com/"), 2) == "b=2"
