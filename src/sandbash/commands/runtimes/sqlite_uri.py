"""The database name sqlite3 is given, read as the real shell reads it: the CLI turns SQLite's URI
filenames on, so `file:x.db?mode=memory` is an in-memory database (no file named so), `file:db?mode=ro`
opens read-only, `file:///abs/db` names /abs/db. What is decided and opened is that path, through
the Vfs (policy and quota), never the name as written."""

from __future__ import annotations

from sandbash.net.url import percent_decode

MODES = ("ro", "rw", "rwc", "memory")


class UriError(ValueError):
    """SQLite's reason for refusing a URI filename (after `unable to open database "NAME": `)."""


def open_target(name: str) -> tuple[str | None, str, bool]:
    """(path to open or None for an in-memory database, access mode, read-only). A name that is
    no URI is itself, opened read-write and created when missing (`rwc`)."""
    if not name.startswith("file:"):
        return name, "rwc", False
    rest = name[5:].split("#", 1)[0]
    path, _, query = rest.partition("?")
    if path.startswith("//"):
        authority, slash, tail = path[2:].partition("/")
        if authority not in ("", "localhost"):
            raise UriError(f"invalid uri authority: {authority}")
        path = slash + tail
    params: dict[str, str] = {}
    for part in query.split("&"):
        if part:
            key, _, value = part.partition("=")
            params[percent_decode(key)] = percent_decode(value)
    vfs = params.get("vfs")
    if vfs is not None and vfs != "unix" and not vfs.startswith("unix-"):
        raise UriError(f"no such vfs: {vfs}")
    mode = params.get("mode", "rwc")
    if mode not in MODES:
        raise UriError(f"no such access mode: {mode}")
    path = percent_decode(path)
    if mode == "memory" or not path:
        return None, mode, False  # (`file:` alone: a private temporary database)
    readonly = mode == "ro" or params.get("immutable", "0").lower() in ("1", "true", "yes", "on")
    return path, mode, readonly
