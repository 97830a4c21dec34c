"""What the embedding program grants: the network configuration (pure data).

Network access is off unless a `NetworkConfig` is passed to `Bash(network=...)`.
Every request from curl or wget goes through `net.client`, which enforces
everything here. Exit status of a refusal: curl 7 (`curl: (7) Access denied: ...`),
wget 4.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from .url import Url, parse_prefix

# host name -> IP address strings (the embedding program's own DNS, or a test stub)
Resolver = Callable[[str], Sequence[str]]
# gate(action, url) -> False to refuse: the hook the policy layer sets. action is "http:METHOD"
# (before a request is sent) or "net:connect" with url "tcp://ADDRESS:PORT" (before each
# connection, with the address it will connect to, after DNS).
Gate = Callable[[str, str], bool]
# audit(event): {"action", "url", "status" | "error"}; never headers, so never secrets
Audit = Callable[[Mapping[str, object]], None]


@dataclass(frozen=True)
class Credential:
    """Headers injected at the client boundary into requests whose URL lies under
    `url_prefix` (whole origin and path segments, like the allow-list). The sandbox
    never sees them: not in env, not in `curl -v`, not in audit events."""

    url_prefix: str
    headers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        parse_prefix(self.url_prefix)  # fail early on a bad prefix

    def __repr__(self) -> str:  # keep secrets out of logs and tracebacks
        return f"Credential(url_prefix={self.url_prefix!r}, headers=<{len(self.headers)} hidden>)"


@dataclass(frozen=True)
class NetworkConfig:
    allowed_url_prefixes: Sequence[str] = ()
    allowed_methods: Sequence[str] = ("GET", "HEAD")
    deny_private_ranges: bool = True
    max_response_size: int = 5 * 1024 * 1024
    max_redirects: int = 10
    timeout: float = 10.0  # seconds per request (each redirect hop included)
    dangerously_allow_full_internet_access: bool = False
    credentials: Sequence[Credential] = ()
    resolver: Resolver | None = None  # None: the system resolver
    gate: Gate | None = None
    audit: Audit | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_methods", tuple(m.upper() for m in self.allowed_methods))
        object.__setattr__(self, "allowed_url_prefixes", tuple(self.allowed_url_prefixes))
        object.__setattr__(self, "credentials", tuple(self.credentials))
        self.prefixes()  # a bad prefix is the embedding program's error: raise now
        if self.max_response_size < 0 or self.max_redirects < 0 or self.timeout <= 0:
            raise ValueError("NetworkConfig: limits must be positive")

    def allows_method(self, method: str) -> bool:
        """`dangerously_allow_full_internet_access` allows every method (and every URL); otherwise
        the method must be in `allowed_methods`."""
        return self.dangerously_allow_full_internet_access or method.upper() in self.allowed_methods

    def prefixes(self) -> tuple[Url, ...]:
        return tuple(parse_prefix(p) for p in self.allowed_url_prefixes)

    def credential_prefixes(self) -> tuple[tuple[Url, Credential], ...]:
        return tuple((parse_prefix(c.url_prefix), c) for c in self.credentials)
