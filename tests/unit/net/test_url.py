from __future__ import annotations

import pytest

from sandbash.net.url import (
    UnsupportedScheme,
    UrlError,
    join,
    matches_prefix,
    parse_prefix,
    parse_url,
    percent_encode,
)

CANONICAL = [
    ("http://Example.COM/a", "http://example.com/a"),
    ("HTTPS://example.com:443/", "https://example.com/"),
    ("http://example.com:80", "http://example.com/"),
    ("http://example.com:8080/x?y=1#frag", "http://example.com:8080/x?y=1"),
    ("http://example.com./a", "http://example.com/a"),
    ("http://user:pw@example.com/a", "http://example.com/a"),
    ("http://2130706433/", "http://127.0.0.1/"),
    ("http://0x7f.1/", "http://127.0.0.1/"),
    ("http://127.1/", "http://127.0.0.1/"),
    ("http://0177.0.0.1/", "http://127.0.0.1/"),
    ("http://0x7f000001/", "http://127.0.0.1/"),
    ("http://10.1/", "http://10.0.0.1/"),
    ("http://%31%32%37.0.0.1/", "http://127.0.0.1/"),
    ("http://１２７．０．０．１/", "http://127.0.0.1/"),
    ("http://[::1]:8080/", "http://[::1]:8080/"),
    ("http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/"),
    ("http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"),
    ("http://bücher.example/", "http://xn--bcher-kva.example/"),
    ("http://example.com/a/./b/../c", "http://example.com/a/c"),
    ("http://example.com/a/%2e%2e/b", "http://example.com/b"),
    ("http://example.com/%7euser/%41", "http://example.com/~user/A"),
    ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
    ("http://example.com/a b", "http://example.com/a%20b"),
    ("http://example.com/50%", "http://example.com/50%25"),
    ("http://example.com\\a\\b", "http://example.com/a/b"),
    ("http://example.com/../../x", "http://example.com/x"),
    ("http://example.com?q", "http://example.com/?q"),
    ("http://example.com/é", "http://example.com/%C3%A9"),
]


@pytest.mark.parametrize(("text", "expected"), CANONICAL)
def test_canonical_form(text: str, expected: str) -> None:
    assert str(parse_url(text)) == expected


def test_default_scheme_and_userinfo() -> None:
    url = parse_url("example.com:8080/x", default_scheme="http")
    assert (url.scheme, url.host, url.port, url.path) == ("http", "example.com", 8080, "/x")
    url = parse_url("http://a%40b:p%3Aw@host/")
    assert (url.username, url.password, url.host) == ("a@b", "p:w", "host")
    assert parse_url("http://good.com@evil.com/").host == "evil.com"
    assert parse_url("http://evil.com#@good.com/").host == "evil.com"
    assert parse_url("http://evil.com\\@good.com/").host == "evil.com"
    assert parse_url("http://a@b@evil.com/").host == "evil.com"


@pytest.mark.parametrize(
    "text",
    [
        "http://",
        "http://:80/",
        "http://host:99999/",
        "http://host:8x/",
        "http://256.0.0.1/",
        "http://1.2.3.4.5/",
        "http://0x100000000/",
        "http://[::1/",
        "http://[fe80::1%25eth0]/",
        "http://a b/",
        "http://exa mple.com/",
        "http://host\n/",
        "http://foo.123/",
        "http://08.0.0.1/",
        "//host/",
        "http://" + "a" * 64 + ".com/",
    ],
)
def test_malformed(text: str) -> None:
    with pytest.raises(UrlError):
        parse_url(text)


@pytest.mark.parametrize("text", ["ftp://host/", "file:///etc/passwd", "gopher://h/", "dict://h:11211/"])
def test_unsupported_schemes(text: str) -> None:
    with pytest.raises(UnsupportedScheme):
        parse_url(text)


@pytest.mark.parametrize(
    ("base", "ref", "expected"),
    [
        ("http://h/a/b", "c", "http://h/a/c"),
        ("http://h/a/b", "/c", "http://h/c"),
        ("http://h/a/b", "../../../c", "http://h/c"),
        ("http://h/a/b?x", "?y", "http://h/a/b?y"),
        ("http://h/a/b?x", "", "http://h/a/b?x"),
        ("http://h:81/a", "//other/p", "http://other/p"),
        ("https://h/a", "//other/p", "https://other/p"),
        ("http://h/a", "https://Other:444/z#f", "https://other:444/z"),
        ("http://h/a", "/\\evil.com/x", "http://evil.com/x"),
    ],
)
def test_join(base: str, ref: str, expected: str) -> None:
    assert str(join(parse_url(base), ref)) == expected


def test_join_refuses_other_schemes() -> None:
    with pytest.raises(UnsupportedScheme):
        join(parse_url("http://h/"), "file:///etc/passwd")


# (prefix, URL, allowed): at least forty pairs, as the issue asks
PREFIX_TABLE = [
    ("https://api.example.com/v1", "https://api.example.com/v1", True),
    ("https://api.example.com/v1", "https://api.example.com/v1/", True),
    ("https://api.example.com/v1", "https://api.example.com/v1/users", True),
    ("https://api.example.com/v1", "https://api.example.com/v1/users?id=3", True),
    ("https://api.example.com/v1", "https://api.example.com/v10", False),
    ("https://api.example.com/v1", "https://api.example.com/v1-admin", False),
    ("https://api.example.com/v1", "https://api.example.com/v2/users", False),
    ("https://api.example.com/v1", "https://api.example.com/", False),
    ("https://api.example.com/v1", "https://api.example.com/V1", False),
    ("https://api.example.com/v1", "http://api.example.com/v1", False),
    ("https://api.example.com/v1", "https://api.example.com:8443/v1", False),
    ("https://api.example.com/v1", "https://API.Example.com:443/v1/x", True),
    ("https://api.example.com/v1", "https://api.example.com./v1/x", True),
    ("https://api.example.com/v1", "https://api.example.com.evil.com/v1", False),
    ("https://api.example.com/v1", "https://evil.com/api.example.com/v1", False),
    ("https://api.example.com/v1", "https://api.example.com@evil.com/v1", False),
    ("https://api.example.com/v1", "https://evil.com#@api.example.com/v1", False),
    ("https://api.example.com/v1", "https://evil.com\\@api.example.com/v1", False),
    ("https://api.example.com/v1", "https://user:pw@api.example.com/v1/x", True),
    ("https://api.example.com/v1", "https://api.example.com/v1/../admin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1/%2e%2e/admin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1/%2E%2E/admin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1/..%2fadmin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1/..%2Fadmin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1/..%5cadmin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1\\..\\admin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1/..;/admin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1%2f..%2fadmin", False),
    ("https://api.example.com/v1", "https://api.example.com/v1%2fx", False),  # one segment "v1%2Fx" as sent
    ("https://api.example.com/v1", "https://api.example.com/v1/a%2fb", True),
    ("https://api.example.com/v1", "https://api.example.com/%76%31/users", True),
    ("https://api.example.com/v1", "https://api.example.com//v1/users", False),
    ("https://api.example.com/v1", "https://api.example.com/./v1/users", True),
    ("https://api.example.com/v1/", "https://api.example.com/v1", False),
    ("https://api.example.com/v1/", "https://api.example.com/v1/", True),
    ("https://api.example.com/v1/", "https://api.example.com/v1/deep/er", True),
    ("https://api.example.com/v1/", "https://api.example.com/v1x", False),
    ("https://api.example.com", "https://api.example.com/anything/at/all", True),
    ("https://api.example.com/", "https://api.example.com/", True),
    ("https://api.example.com/", "https://other.example.com/", False),
    ("https://api.example.com/", "https://sub.api.example.com/", False),
    ("http://127.0.0.1:8080/", "http://2130706433:8080/x", True),
    ("http://127.0.0.1:8080/", "http://127.1:8080/x", True),
    ("http://127.0.0.1:8080/", "http://127.0.0.1:8081/x", False),
    ("http://[::1]:8080/", "http://[0::1]:8080/x", True),
    ("https://bücher.example/", "https://xn--bcher-kva.example/x", True),
    ("https://api.example.com/a;b", "https://api.example.com/a;b/c", True),
    ("https://api.example.com/v1", "https://api.example.com/v1?../../admin", True),
]


@pytest.mark.parametrize(("prefix", "url", "allowed"), PREFIX_TABLE)
def test_prefix_table(prefix: str, url: str, allowed: bool) -> None:
    assert matches_prefix(parse_url(url), parse_prefix(prefix)) is allowed


def test_prefix_table_is_big_enough() -> None:
    assert len(PREFIX_TABLE) >= 40


@pytest.mark.parametrize("bad", ["https://h/x?q=1", "https://h/x#f", "https://u@h/", "not a url", "ftp://h/"])
def test_bad_prefixes(bad: str) -> None:
    with pytest.raises(UrlError):
        parse_prefix(bad)


def test_percent_encode() -> None:
    assert percent_encode(b"a b/c~\xff") == "a%20b%2Fc~%FF"
