"""curl's request pieces: -H headers, -d/--data-*/--json bodies, -F multipart forms."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...net.url import percent_encode
from ...vfs.errors import FsError
from ..context import Ctx

Header = tuple[str, str]
DATA_KEYS = frozenset({"data", "data_ascii", "data_raw", "data_binary", "data_urlencode", "json"})
FORM_KEYS = frozenset({"form", "form_string"})
_FORM_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_MIME = {
    "txt": "text/plain",
    "html": "text/html",
    "htm": "text/html",
    "css": "text/css",
    "csv": "text/csv",
    "json": "application/json",
    "xml": "application/xml",
    "js": "application/javascript",
    "pdf": "application/pdf",
    "zip": "application/zip",
    "gz": "application/gzip",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "svg": "image/svg+xml",
}


@dataclass
class Body:
    data: bytes
    headers: list[Header]  # Content-Type (and for --json, Accept), placed where curl puts them
    json: bool = False


def _warn(ctx: Ctx, message: str) -> None:
    ctx.stderr.write(f"Warning: {message}\n".encode("utf-8", "surrogateescape"))


def _file(ctx: Ctx, name: str) -> bytes:
    """`@name` contents; curl warns and goes on with nothing when it cannot read them."""
    try:
        return ctx.read_input(name)
    except FsError:
        _warn(ctx, f'Couldn\'t read data from file "{name}", this makes an empty POST.')
        return b""


def form_urlencode(data: bytes) -> str:
    """--data-urlencode and -G: spaces as '+', everything but unreserved bytes as %XX."""
    return percent_encode(data, _FORM_SAFE | {0x20}).replace(" ", "+")


def _urlencoded(ctx: Ctx, arg: str) -> bytes:
    """`content`, `=content`, `name=content`, `@file`, `name@file`."""
    cut = min((i for i in (arg.find("="), arg.find("@")) if i >= 0), default=-1)
    if cut < 0:
        return form_urlencode(arg.encode("utf-8", "surrogateescape")).encode()
    name, kind, rest = arg[:cut], arg[cut], arg[cut + 1 :]
    content = _file(ctx, rest) if kind == "@" else rest.encode("utf-8", "surrogateescape")
    encoded = form_urlencode(content)
    return (f"{name}={encoded}" if name else encoded).encode("utf-8", "surrogateescape")


def data_body(ctx: Ctx, order: Sequence[tuple[str, object]]) -> Body | None:
    """The -d family in command-line order: pieces joined by '&' (--json ones concatenated)."""
    out = b""
    json = False
    for key, value in order:
        if key not in DATA_KEYS:
            continue
        arg = str(value)
        raw = arg.encode("utf-8", "surrogateescape")
        if key in ("data", "data_ascii"):
            piece = (
                _file(ctx, arg[1:]).replace(b"\r", b"").replace(b"\n", b"") if arg.startswith("@") else raw
            )
        elif key in ("data_binary", "json"):
            piece = _file(ctx, arg[1:]) if arg.startswith("@") else raw
        elif key == "data_urlencode":
            piece = _urlencoded(ctx, arg)
        else:
            piece = raw
        glue = b"" if not out or (key == "json" and json) else b"&"
        out += glue + piece
        json = json or key == "json"
    if not any(k in DATA_KEYS for k, _ in order):
        return None
    if json:
        return Body(
            out,
            [
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
                ("Content-Length", str(len(out))),
            ],
            True,
        )
    return Body(
        out, [("Content-Length", str(len(out))), ("Content-Type", "application/x-www-form-urlencoded")]
    )


def form_body(ctx: Ctx, order: Sequence[tuple[str, object]]) -> Body | None:
    """-F name=value, name=@file[;type=..][;filename=..], name=<file; --form-string name=value."""
    boundary = "-" * 24 + "".join(ctx.rng.choice("0123456789abcdef") for _ in range(16))
    parts: list[bytes] = []
    for key, value in order:
        if key not in FORM_KEYS:
            continue
        name, _, spec = str(value).partition("=")
        content_type = filename = None
        if key == "form":
            spec, content_type, filename = _form_attrs(spec)
        if key == "form" and spec.startswith("@"):
            path = spec[1:]
            content = _file(ctx, path)
            filename = filename or path.rsplit("/", 1)[-1]
            content_type = content_type or _MIME.get(
                path.rpartition(".")[2].lower(), "application/octet-stream"
            )
        elif key == "form" and spec.startswith("<"):
            content = _file(ctx, spec[1:])
        else:
            content = spec.encode("utf-8", "surrogateescape")
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
        if filename is not None:
            head += f'; filename="{filename}"'
        if content_type:
            head += f"\r\nContent-Type: {content_type}"
        parts.append(head.encode("utf-8", "surrogateescape") + b"\r\n\r\n" + content + b"\r\n")
    if not parts:
        return None
    data = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return Body(
        data,
        [("Content-Length", str(len(data))), ("Content-Type", f"multipart/form-data; boundary={boundary}")],
    )


def _form_attrs(spec: str) -> tuple[str, str | None, str | None]:
    """Split `content;type=...;filename=...`; other `;` text stays part of the content."""
    first, *rest = spec.split(";")
    content_type = filename = None
    for attr in rest:
        k, eq, v = attr.partition("=")
        if eq and k.strip() == "type":
            content_type = v
        elif eq and k.strip() == "filename":
            filename = v
        else:
            first += ";" + attr
    return first, content_type, filename


def custom_headers(ctx: Ctx, values: Sequence[str]) -> list[tuple[str, str | None]]:
    """-H: `Name: value` adds, `Name:` removes curl's own header, `Name;` sends it empty,
    `@file` reads one header per line."""
    out: list[tuple[str, str | None]] = []
    for value in values:
        lines = [value]
        if value.startswith("@"):
            try:
                lines = ctx.read_input(value[1:]).decode("utf-8", "surrogateescape").splitlines()
            except FsError:
                _warn(ctx, f"Failed to open {value[1:]}")
                continue
        for line in lines:
            name, colon, rest = line.partition(":")
            if colon and name.strip():
                rest = rest.strip()
                out.append((name.strip(), rest or None))
            elif line.endswith(";") and line[:-1].strip():
                out.append((line[:-1].strip(), ""))
    return out


def compose(
    builtin: Sequence[Header], custom: Sequence[tuple[str, str | None]], body: Sequence[Header]
) -> list[Header]:
    """curl's order: its own headers (unless replaced or removed), then -H headers, then
    the body's headers (unless -H set them)."""
    named = {n.lower() for n, _ in custom}
    out = [(n, v) for n, v in builtin if n.lower() not in named | {b.lower() for b, _ in body}]
    out += [(n, v) for n, v in custom if v is not None]
    out += [(n, v) for n, v in body if n.lower() not in named]
    return out
