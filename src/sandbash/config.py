"""Sandbox settings written as text, shared by the front ends (the `sandbash` CLI and `sandbash mcp`):
mount specs, `NAME=VALUE` limits, the filesystem they describe, the starting directory. Its own
module so that `cli` and `agent.mcp_server` both import it instead of one importing the other."""

from __future__ import annotations

from collections.abc import Sequence

from .leanclass import field_names
from .limits import Limits
from .vfs.base import Backend
from .vfs.memory import MemoryFs
from .vfs.mount import MountFs
from .vfs.quota import DiskQuota

MOUNT_MODES = ("ro", "rw", "cow")


def parse_mount(spec: str) -> tuple[str, str, str]:
    """'HOST:/path[:mode]' -> (host, path, mode); the host part may contain ':'."""
    mode = "cow"
    head, sep, tail = spec.rpartition(":")
    if sep and tail in MOUNT_MODES:
        spec, mode = head, tail
    host, sep, path = spec.rpartition(":")
    if not sep or not host or not path.startswith("/"):
        raise ValueError(f"invalid mount '{spec}': expected HOSTDIR:/PATH[:ro|:rw|:cow]")
    return host, path, mode


_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "k": 1024,
    "kb": 1024,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gib": 1024**3,
}
_TIME_UNITS = {"": 1.0, "s": 1.0, "ms": 0.001, "m": 60.0, "min": 60.0, "h": 3600.0}


def _limit_kind(name: str) -> str:
    """How a limit's value is written: a time (seconds), a size (bytes) or a count."""
    if name == "timeout" or name.endswith("_timeout"):
        return "time"
    if any(word in name for word in ("size", "bytes", "memory", "length")):
        return "size"
    return "count"


def parse_limit(spec: str) -> tuple[str, float]:
    """'NAME=VALUE' -> (name, value): `max_output_size=50MB`, `timeout=2m`, `max_command_count=100000`.
    Raises ValueError with a one-line message."""
    name, sep, raw = spec.partition("=")
    name, raw = name.strip(), raw.strip()
    known = list(field_names(Limits))
    if not sep or not name:
        raise ValueError(f"--limit {spec}: expected NAME=VALUE (e.g. --limit timeout=2m)")
    if name not in known:
        raise ValueError(f"--limit {spec}: unknown limit '{name}' (one of: {', '.join(known)})")
    kind = _limit_kind(name)
    number = raw.replace("_", "")
    unit = number.lstrip("0123456789.")
    digits = number[: len(number) - len(unit)]
    units: dict[str, float] = {"time": _TIME_UNITS, "size": _SIZE_UNITS}.get(kind, {"": 1})  # type: ignore[assignment]
    examples = {
        "time": "seconds, or 500ms, 2m, 1h",
        "size": "bytes, or 64KB, 50MB, 2GB",
        "count": "a whole number",
    }
    try:
        value = float(digits) * units[unit.lower()]
    except (ValueError, KeyError):
        raise ValueError(
            f"--limit {spec}: invalid value '{raw}' for {name} (expected {examples[kind]})"
        ) from None
    if kind != "time":
        if not value.is_integer():
            raise ValueError(f"--limit {spec}: invalid value '{raw}' for {name} (expected {examples[kind]})")
        return name, int(value)
    return name, value


def build_filesystem(
    root: str | None, store: str | None, mounts: Sequence[str], limits: Limits
) -> Backend | None:
    """The backend the options ask for (None: the default memory filesystem).
    Raises ValueError or FsError with a message for the user."""

    def quota() -> DiskQuota:
        return DiskQuota(limits.max_filesystem_bytes, limits.max_filesystem_files)

    if root and store:
        raise ValueError("--root and --store cannot be used together")
    base: Backend | None = None
    if root:
        from .vfs.overlay import OverlayFs

        base = OverlayFs(root, quota=quota())
    elif store:
        from .vfs.sqlite import SqliteFs

        base = SqliteFs(store, quota=quota())
    if not mounts:
        return base
    fs = MountFs(base if base is not None else MemoryFs(quota=quota()))
    for spec in mounts:
        host, path, mode = parse_mount(spec)
        backend: Backend
        if mode == "rw":
            from .vfs.readwrite import ReadWriteFs

            backend = ReadWriteFs(host, quota=quota())
        else:
            from .vfs.overlay import OverlayFs

            backend = OverlayFs(host, read_only=mode == "ro", quota=quota())
        fs.mount(path, backend, read_only=mode == "ro")
    return fs


def start_cwd(cwd: str | None, root: str | None) -> str:
    """Where the shell starts (the CLI and `sandbash mcp` share this): --cwd, else where the
    user's files are: / when a host directory is the root, else /home/user."""
    return cwd or ("/" if root else "/home/user")


def setting_error(e: Exception) -> str:
    """An error reading a setting the user gave (a policy or config file) as one line in the
    tools' style: `FILE: No such file or directory`, not Python's `[Errno 2] ...: 'FILE'`."""
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename is not None else e.strerror
    return str(e)
