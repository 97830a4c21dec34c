"""curl -w: the `%{variable}` report printed after each transfer."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

Header = tuple[str, str]
_VERSIONS = {"HTTP/1.0": "1", "HTTP/1.1": "1.1", "HTTP/2": "2", "HTTP/3": "3"}
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


@dataclass
class Transfer:
    """What one URL's transfer did, for -w and the exit status."""

    url: str
    effective: str = ""
    method: str = "GET"
    status: int = 0
    http_version: str = ""
    headers: list[Header] = field(default_factory=list)
    redirects: int = 0
    redirect_url: str = ""
    remote: tuple[str, int] | None = None
    size_download: int = 0
    size_header: int = 0
    size_request: int = 0
    size_upload: int = 0
    time_connect: float = 0.0
    time_starttransfer: float = 0.0
    time_total: float = 0.0
    exitcode: int = 0
    errormsg: str = ""
    filename: str = ""

    def header(self, name: str) -> str:
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), "")

    def variables(self) -> dict[str, str | int | float]:
        speed = int(self.size_download / self.time_total) if self.time_total > 0 else 0
        scheme = self.effective.partition("://")[0].upper() if "://" in self.effective else ""
        return {
            "content_type": self.header("content-type"),
            "errormsg": self.errormsg,
            "exitcode": self.exitcode,
            "filename_effective": self.filename,
            "http_code": self.status,
            "response_code": self.status,
            "http_version": _VERSIONS.get(self.http_version, "0"),
            "method": self.method,
            "num_headers": len(self.headers),
            "num_redirects": self.redirects,
            "redirect_url": self.redirect_url,
            "remote_ip": self.remote[0] if self.remote else "",
            "remote_port": self.remote[1] if self.remote else 0,
            "scheme": scheme,
            "size_download": self.size_download,
            "size_header": self.size_header,
            "size_request": self.size_request,
            "size_upload": self.size_upload,
            "speed_download": speed,
            "speed_upload": 0,
            "time_appconnect": 0.0,
            "time_connect": self.time_connect,
            "time_namelookup": self.time_connect,
            "time_pretransfer": self.time_connect,
            "time_redirect": 0.0,
            "time_starttransfer": self.time_starttransfer,
            "time_total": self.time_total,
            "url": self.url,
            "url_effective": self.effective or self.url,
            "num_connects": 1 if self.remote else 0,
        }


def _show(name: str, value: str | int | float) -> str:
    if name == "http_code" or name == "response_code":
        return f"{int(value):03d}"
    if isinstance(value, float):
        return f"{value:.6f}"
    return str(value)


def write_out(
    fmt: str, t: Transfer, out: Callable[[str], None], err: Callable[[str], None], warn: Callable[[str], None]
) -> None:
    """Expand `fmt` for transfer `t`; %{stderr}/%{stdout} switch where the text goes."""
    values = t.variables()
    sink = out
    buf: list[str] = []
    i, n = 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c == "\\" and i + 1 < n:
            buf.append(_ESCAPES.get(fmt[i + 1], fmt[i : i + 2]))
            i += 2
        elif c == "%" and fmt.startswith("%%", i):
            buf.append("%")
            i += 2
        elif c == "%" and (fmt.startswith("%{", i) or fmt.startswith("%header{", i)):
            is_header = fmt.startswith("%header{", i)
            start = fmt.index("{", i) + 1
            end = fmt.find("}", start)
            if end < 0:
                buf.append(fmt[i:])
                break
            name = fmt[start:end]
            i = end + 1
            if is_header:
                buf.append(t.header(name))
            elif name in ("stdout", "stderr"):
                sink("".join(buf))
                buf = []
                sink = out if name == "stdout" else err
            elif name == "json":
                buf.append(json.dumps(values, separators=(",", ":"), sort_keys=True))
            elif name == "onerror":
                if not t.exitcode:
                    break
            elif name in values:
                buf.append(_show(name, values[name]))
            else:
                warn(f"curl: unknown --write-out variable: '{name}'\n")
        else:
            buf.append(c)
            i += 1
    sink("".join(buf))
