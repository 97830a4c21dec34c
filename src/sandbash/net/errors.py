"""Why a request failed, as curl and wget report it (pure).

Each error carries curl's exit code; wget maps the class to its own statuses.
Messages never contain header values, so injected credentials cannot leak
through them.
"""

from __future__ import annotations


class NetError(Exception):
    curl_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class AccessDenied(NetError):
    """Refused by the allow-list, the method rule, the private-range rule or the policy gate."""

    curl_code = 7

    def __init__(self, reason: str) -> None:
        super().__init__(f"Access denied: {reason}")


class BadUrl(NetError):
    curl_code = 3


class Unsupported(NetError):
    curl_code = 1


class ResolveFailed(NetError):
    curl_code = 6

    def __init__(self, host: str) -> None:
        super().__init__(f"Could not resolve host: {host}")
        self.host = host


class ConnectFailed(NetError):
    curl_code = 7

    def __init__(self, host: str, port: int, reason: str = "Couldn't connect to server") -> None:
        super().__init__(reason)
        self.host, self.port, self.reason = host, port, reason


class TimedOut(NetError):
    curl_code = 28

    def __init__(self, phase: str = "transfer") -> None:
        super().__init__("Operation timed out")
        self.phase = phase  # "resolve", "connect" or "transfer"


class TlsFailed(NetError):
    curl_code = 35

    def __init__(self, message: str, verify: bool = False) -> None:
        super().__init__(message)
        if verify:
            self.curl_code = 60


class SendFailed(NetError):
    curl_code = 55


class RecvFailed(NetError):
    curl_code = 56


class EmptyReply(NetError):
    curl_code = 52

    def __init__(self) -> None:
        super().__init__("Empty reply from server")


class BadReply(NetError):
    curl_code = 8


class WriteFailed(NetError):
    curl_code = 23

    def __init__(self) -> None:
        super().__init__("Failure writing output to destination")


class TooManyRedirects(NetError):
    curl_code = 47

    def __init__(self, limit: int) -> None:
        super().__init__(f"Maximum ({limit}) redirects followed")
        self.limit = limit


class BadEncoding(NetError):
    """A Content-Encoding that cannot be undone in bounded memory, or data that does not decode."""

    curl_code = 61


class TooLarge(NetError):
    curl_code = 63

    def __init__(self, limit: int) -> None:
        super().__init__(f"Maximum file size exceeded (the limit is {limit} bytes)")
        self.limit = limit
