"""URL parsing, canonical form and allow-list prefix matching (pure).

The one rule that keeps the allow-list sound: the URL that is matched is the
URL that is sent. `parse_url` produces a canonical `Url` (lower-case scheme and
host, IDNA, odd IPv4 spellings as dotted quads, default ports dropped,
percent-encoding normalised, dot segments removed, backslashes as slashes,
userinfo split off) and the client sends exactly `Url.target` to `Url.host`.
Prefix matching then compares whole origins and whole path segments, and also
checks the path as a server that decodes `%2F`/`%5C` or drops `;params` would
see it, so an encoded separator cannot climb out of an allowed prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address

DEFAULT_PORTS = {"http": 80, "https": 443}

_HEX = "0123456789ABCDEFabcdef"
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE = _UNRESERVED | frozenset(b"!$&'()*+,;=:@/")
_QUERY_SAFE = _PATH_SAFE | frozenset(b"?")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


class UrlError(ValueError):
    """A malformed URL (curl's exit 3)."""


class UnsupportedScheme(UrlError):
    def __init__(self, scheme: str) -> None:
        super().__init__(f'Protocol "{scheme}" not supported')
        self.scheme = scheme


@dataclass(frozen=True, slots=True)
class Url:
    scheme: str
    host: str  # canonical; an IPv6 literal without brackets
    port: int
    path: str  # canonical, starts with "/"
    query: str | None = None
    username: str | None = None  # userinfo, percent-decoded; never matched, never shown
    password: str | None = None

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)

    @property
    def netloc(self) -> str:
        """host[:port] as the Host header carries it."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    @property
    def target(self) -> str:
        return self.path if self.query is None else f"{self.path}?{self.query}"

    def __str__(self) -> str:
        return f"{self.scheme}://{self.netloc}{self.target}"

    @property
    def filename(self) -> str:
        """The last path segment (curl -O, wget's default output name)."""
        return self.path.rsplit("/", 1)[-1]


# ------------------------------------------------------------------ parsing


def parse_url(text: str, default_scheme: str | None = None) -> Url:
    """Parse an absolute http(s) URL; `default_scheme` is used when none is given (curl, wget)."""
    text = text.strip(" \t\r\n\f\v")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise UrlError("control character in URL")
    scheme, sep, rest = text.partition("://")
    if not sep or not _is_scheme(scheme):
        if default_scheme is None:
            raise UrlError("no scheme")
        scheme, rest = default_scheme, text
    scheme = scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UnsupportedScheme(scheme)
    rest = rest.replace("\\", "/")  # as browsers do for http(s): never a second meaning
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    tail = tail.partition("#")[0]
    path, qmark, query = tail.partition("?")
    userinfo, at, hostport = authority.rpartition("@")
    host, port = _split_host_port(hostport, scheme)
    user = password = None
    if at:
        u, colon, p = userinfo.partition(":")
        user, password = percent_decode(u), (percent_decode(p) if colon else None)
    return Url(
        scheme,
        host,
        port,
        canonical_path(path),
        _normalise_escapes(query, _QUERY_SAFE) if qmark else None,
        user,
        password,
    )


def _is_scheme(s: str) -> bool:
    return (
        bool(s)
        and s[0].isascii()
        and s[0].isalpha()
        and all(c.isascii() and (c.isalnum() or c in "+-.") for c in s)
    )


def _split_host_port(hostport: str, scheme: str) -> tuple[str, int]:
    if hostport.startswith("["):
        inner, bracket, after = hostport[1:].partition("]")
        if not bracket or (after and not after.startswith(":")):
            raise UrlError("bad IPv6 literal")
        host, port_text = _ipv6_host(inner), after[1:]
    else:
        host, colon, port_text = hostport.rpartition(":")
        if not colon:
            host, port_text = hostport, ""
        host = canonical_host(host)
    if not port_text:
        return host, DEFAULT_PORTS[scheme]
    if not port_text.isascii() or not port_text.isdigit() or int(port_text) > 65535:
        raise UrlError("bad port")
    return host, int(port_text)


def _ipv6_host(inner: str) -> str:
    if "%" in inner:  # zone ids name a host interface: never meaningful here
        raise UrlError("IPv6 zone id")
    try:
        return IPv6Address(inner).compressed
    except ValueError:
        raise UrlError("bad IPv6 literal")


def canonical_host(host: str) -> str:
    """Lower-case ASCII (IDNA) host; IPv4 in any spelling becomes a dotted quad."""
    if "%" in host:
        host = percent_decode(host)
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise UrlError("bad international host name")
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]
    if not host:
        raise UrlError("empty host")
    labels = host.split(".")
    if _is_number(labels[-1]):
        return _ipv4(labels)
    if len(host) > 253 or any(not lab or len(lab) > 63 or not set(lab) <= _HOST_CHARS for lab in labels):
        raise UrlError("bad host name")
    return host


def _is_number(part: str) -> bool:
    if part[:2] in ("0x", "0X"):
        return all(c in _HEX for c in part[2:])
    return part.isascii() and part.isdigit()


def _ipv4(parts: list[str]) -> str:
    """WHATWG/inet_aton IPv4: 1-4 parts, each decimal, octal (0...) or hex (0x...);
    the last part fills the remaining bytes (`127.1`, `2130706433`, `0x7f.1`)."""
    if len(parts) > 4:
        raise UrlError("bad IPv4 address")
    numbers = []
    for part in parts:
        if not part or not _is_number(part):
            raise UrlError("bad IPv4 address")
        if part[:2] in ("0x", "0X"):
            numbers.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part[0] == "0":
            if any(c in "89" for c in part):
                raise UrlError("bad IPv4 address")
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    last = numbers.pop()
    if any(n > 255 for n in numbers) or last >= 256 ** (4 - len(numbers)):
        raise UrlError("bad IPv4 address")
    value = last
    for i, n in enumerate(numbers):
        value += n << (8 * (3 - i))
    return str(IPv4Address(value))


# ------------------------------------------------------------------ paths and escapes


def percent_encode(data: bytes, safe: frozenset[int] = _UNRESERVED) -> str:
    """%XX-encode every byte outside `safe` (curl's --data-urlencode with the default)."""
    return "".join(chr(b) if b in safe else f"%{b:02X}" for b in data)


def _normalise_escapes(text: str, safe: frozenset[int]) -> str:
    """Decode escapes of unreserved bytes, upper-case the others, encode what must be."""
    out: list[str] = []
    raw = text.encode("utf-8", "surrogateescape")
    i, n = 0, len(raw)
    while i < n:
        b = raw[i]
        if b == 0x25:  # '%'
            pair = raw[i + 1 : i + 3].decode("latin-1")
            if len(pair) == 2 and all(c in _HEX for c in pair):
                v = int(pair, 16)
                out.append(chr(v) if v in _UNRESERVED else f"%{pair.upper()}")
                i += 3
                continue
            out.append("%25")
        else:
            out.append(chr(b) if b in safe else f"%{b:02X}")
        i += 1
    return "".join(out)


def percent_decode(text: str) -> str:
    """%XX escapes as the bytes they name, read as UTF-8 (curl's user and host, sqlite3's URI
    filenames); anything else kept as written."""
    raw = text.encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    while i < len(raw):
        pair = raw[i + 1 : i + 3].decode("latin-1")
        if raw[i] == 0x25 and len(pair) == 2 and all(c in _HEX for c in pair):
            out.append(int(pair, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def remove_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4, on whole segments."""
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        elif seg == ".":
            if last:
                out.append("")
        else:
            out.append(seg)
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


def canonical_path(path: str) -> str:
    return remove_dot_segments(_normalise_escapes(path, _PATH_SAFE)) if path else "/"


# ------------------------------------------------------------------ relative references


def join(base: Url, ref: str) -> Url:
    """Resolve a Location header against the URL it came from (RFC 3986 5.2)."""
    ref = ref.strip(" \t\r\n").replace("\\", "/")
    scheme, colon, _ = ref.partition(":")
    if colon and _is_scheme(scheme):
        if not ref[len(scheme) + 1 :].startswith("//"):
            raise (
                UnsupportedScheme(scheme.lower())
                if scheme.lower() not in DEFAULT_PORTS
                else UrlError("bad URL")
            )
        return parse_url(ref)
    if ref.startswith("//"):
        return parse_url(f"{base.scheme}:{ref}")
    ref = ref.partition("#")[0]
    path, qmark, query = ref.partition("?")
    if not path:
        path = base.path
        if not qmark and base.query is not None:
            query, qmark = base.query, "?"
    elif not path.startswith("/"):
        path = base.path.rsplit("/", 1)[0] + "/" + path
    return parse_url(f"{base.scheme}://{base.netloc}{path}{qmark}{query}")


# ------------------------------------------------------------------ allow-list matching


def parse_prefix(text: str) -> Url:
    """An allow-list or credential prefix: an absolute URL without query, fragment or userinfo."""
    url = parse_url(text)
    if url.query is not None or "#" in text or url.username is not None:
        raise UrlError(f"URL prefix may not carry a query, fragment or user name: {text}")
    return url


def _path_views(path: str) -> tuple[str, ...]:
    """The path as sent, and as a server might read it after decoding separators
    and dropping `;params` (Tomcat's `..;/`)."""
    decoded = path.replace("%2F", "/").replace("%5C", "/")
    decoded = "/".join(seg.partition(";")[0] for seg in decoded.split("/"))
    return (path, remove_dot_segments(decoded))


def _under(path: str, prefix: str) -> bool:
    if prefix.endswith("/"):
        return path.startswith(prefix)
    return path == prefix or path.startswith(prefix + "/")


def matches_prefix(url: Url, prefix: Url) -> bool:
    """Same origin, and every reading of the path lies within the prefix's segments."""
    return url.origin == prefix.origin and all(
        _under(view, within)
        for view, within in zip(_path_views(url.path), _path_views(prefix.path), strict=True)
    )


def matches_any(url: Url, prefixes: tuple[Url, ...] | list[Url]) -> bool:
    return any(matches_prefix(url, p) for p in prefixes)
