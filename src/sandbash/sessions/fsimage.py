"""Images of the in-memory filesystem layers, for session snapshots.

An image lists every entry of a `MemoryFs` tree (or of an `OverlayFs`'s upper layer, with its
whiteouts) as plain values: path, kind, mode, owner, times, and the content, symlink target or
hard-link partner. Host-backed layers (a host directory, a SQLite file) are never imaged: the
snapshot records their place in the mount table, and restoring needs the same mount.

Restoring builds a new tree under the restoring filesystem's own quota (an image that does not
fit is refused before anything changes) and then swaps it in whole, so a failed restore leaves
the filesystem as it was.
"""

from __future__ import annotations

import base64
import binascii
import errno
import posixpath
from collections.abc import Callable, Iterator

from ..vfs.base import S_IFCHR, S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, seconds_to_ns
from ..vfs.errors import FsError
from ..vfs.memory import Inode, MemoryFs
from ..vfs.overlay import OverlayFs
from ..vfs.quota import DiskQuota
from .errors import SnapshotError
from .schema import check_float, check_int, check_list, check_name, check_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KINDS = {S_IFDIR: "d", S_IFREG: "f", S_IFLNK: "l", S_IFCHR: "c"}


def _entries(fs: MemoryFs) -> Iterator[tuple[str, Inode]]:
    """Every entry below the root, parents before children, names sorted (stable images)."""
    stack: list[tuple[str, Inode]] = [("", fs.root)]
    while stack:
        prefix, node = stack.pop()
        entries = node.entries or {}
        for name in sorted(entries, reverse=True):
            child = entries[name]
            path = f"{prefix}/{name}"
            if child.kind == S_IFDIR:
                stack.append((path, child))
        for name in sorted(entries):
            yield f"{prefix}/{name}", entries[name]


def _content(fs: MemoryFs, node: Inode, overlay: bool) -> dict[str, Any]:
    if overlay and node.data is None and node.source is not None:
        return {"lower": True}  # still the host file's content: copied up again on restore
    return {"data": base64.b64encode(bytes(fs._loaded(node))).decode("ascii")}


def image(fs: MemoryFs, *, overlay: OverlayFs | None = None) -> dict[str, Any]:
    """The image of a memory tree (an overlay's upper layer when `overlay` is given)."""
    nodes: list[dict[str, Any]] = []
    first: dict[int, str] = {}  # inode number -> first path (hard links)
    with fs.lock:
        root = fs.root
        for path, node in _entries(fs):
            kind = _KINDS.get(node.kind)
            if kind is None:
                continue  # sockets or fifos of a run: nothing to keep
            entry: dict[str, Any] = {
                "path": path,
                "kind": kind,
                "mode": node.mode & 0o7777,
                "uid": node.uid,
                "gid": node.gid,
                "mtime_ns": node.mtime_ns,
                "atime_ns": node.atime_ns,
            }
            if kind != "d" and node.nlink > 1 and node.ino in first:
                entry = {"path": path, "kind": "h", "of": first[node.ino]}
            elif kind == "f":
                first[node.ino] = path
                entry.update(_content(fs, node, overlay is not None))
            elif kind == "l":
                entry["target"] = node.target or ""
            elif kind == "c":
                entry["rdev"] = node.rdev
            nodes.append(entry)
        out: dict[str, Any] = {
            "root": {"mode": root.mode & 0o7777, "uid": root.uid, "gid": root.gid, "mtime_ns": root.mtime_ns},
            "nodes": nodes,
        }
    if overlay is not None:
        out["whiteouts"] = sorted(overlay.whiteouts)
    return out


# ---------------------------------------------------------------- restore


def _check_path(value: object, what: str) -> str:
    path = check_str(value, what, 4096)
    if not path.startswith("/") or path != posixpath.normpath(path) or "\0" in path or path == "/":
        raise SnapshotError(f"{what}: not a normal absolute path: {path[:80]!r}")
    for part in path.split("/")[1:]:
        check_name(part, what)
    return path


def _decode(value: object, what: str) -> bytes:
    try:
        return base64.b64decode(check_str(value, what, 1 << 40), validate=True)
    except (binascii.Error, ValueError):
        raise SnapshotError(f"{what}: content is not base64") from None


def build(
    img: object,
    quota: DiskQuota,
    fs_like: MemoryFs,
    *,
    lower: OverlayFs | None = None,
    may_read: Callable[[str], None] | None = None,
) -> MemoryFs:
    """A new memory tree from an image, under a copy of `quota`'s limits (ENOSPC: refused).
    `may_read(path)`: raises FsError when the restoring sandbox's policy refuses reading the host
    layer's file at `path` (asked for every file the image takes from that layer)."""
    if not isinstance(img, dict):
        raise SnapshotError("filesystem image: not an object")
    root = img.get("root")
    if not isinstance(root, dict):
        raise SnapshotError("filesystem image: no root")
    new = MemoryFs(
        quota=DiskQuota(quota.max_bytes, quota.max_files),
        clock=fs_like.clock,
        uid=fs_like.uid,
        gid=fs_like.gid,
    )
    seen: set[str] = set()
    try:
        for i, entry in enumerate(check_list(img.get("nodes"), "filesystem entries", quota.max_files + 1)):
            _add(new, entry, f"filesystem entry {i}", seen, lower, may_read)
        _attrs(new, "/", root, "filesystem root")
    except FsError as e:
        if e.code == errno.ENOSPC:
            raise SnapshotError("the snapshot's files do not fit this sandbox's filesystem quota") from None
        raise SnapshotError(f"filesystem image: {e}") from None
    return new


def _attrs(fs: MemoryFs, path: str, entry: dict[str, Any], what: str) -> None:
    mode = check_int(entry.get("mode"), f"{what} mode", 0, 0o7777)
    uid = check_int(entry.get("uid"), f"{what} uid", 0, 1 << 31)
    gid = check_int(entry.get("gid"), f"{what} gid", 0, 1 << 31)
    mtime = _time(entry, "mtime", None, what)
    atime = _time(entry, "atime", mtime, what)
    node = fs._node(path)
    node.mode = (node.mode & S_IFMT) | mode
    node.uid, node.gid = uid, gid
    node.atime_ns, node.mtime_ns = atime, mtime


def _time(entry: dict[str, Any], key: str, default: int | None, what: str) -> int:
    """A time in nanoseconds: `<key>_ns` as images are written, or the float seconds of `<key>`
    that images written before nanoseconds hold (they stay loadable); each one present is checked."""
    found: int | None = None
    if key in entry:
        found = seconds_to_ns(check_float(entry[key], f"{what} {key}"))
    if f"{key}_ns" in entry:
        found = check_int(entry[f"{key}_ns"], f"{what} {key}_ns", -(10**20), 10**20)
    if found is not None:
        return found
    if default is not None:
        return default
    raise SnapshotError(f"{what} {key}: expected a time")


def _add(
    fs: MemoryFs,
    entry: object,
    what: str,
    seen: set[str],
    lower: OverlayFs | None,
    may_read: Callable[[str], None] | None,
) -> None:
    if not isinstance(entry, dict):
        raise SnapshotError(f"{what}: not an object")
    path = _check_path(entry.get("path"), f"{what} path")
    if path in seen:
        raise SnapshotError(f"{what}: {path} appears twice")
    if posixpath.dirname(path) not in seen and posixpath.dirname(path) != "/":
        raise SnapshotError(f"{what}: {path} comes before its directory")
    kind = entry.get("kind")
    if kind == "h":
        partner = _check_path(entry.get("of"), f"{what} link")
        if partner not in seen:
            raise SnapshotError(f"{what}: hard link to {partner}, which comes later or not at all")
        fs.link(partner, path)
        seen.add(path)
        return
    if kind == "d":
        fs.mkdir(path, 0o700, fs.uid, fs.gid)
    elif kind == "f":
        if entry.get("lower") is True:
            if lower is None:
                raise SnapshotError(f"{what}: refers to a host layer this mount does not have")
            _copy_up(fs, lower, path, may_read)
        else:
            fs.add_file(path, _decode(entry.get("data"), f"{what} content"), 0o600)
    elif kind == "l":
        fs.symlink(check_str(entry.get("target"), f"{what} target", 4096), path, fs.uid, fs.gid)
    elif kind == "c":
        fs.add_device(path, check_int(entry.get("rdev"), f"{what} device", 0, 1 << 32))
    else:
        raise SnapshotError(f"{what}: unknown kind {str(kind)[:10]!r}")
    seen.add(path)
    _attrs(fs, path, entry, what)


def _copy_up(fs: MemoryFs, overlay: OverlayFs, path: str, may_read: Callable[[str], None] | None) -> None:
    """A file the session changed only in metadata: its content streams from the host layer again.
    Only a file this sandbox's policy lets a script read: the image may give the content other
    names (a hard link), which the policy then decides on instead of this one."""
    if may_read is not None:
        try:
            may_read(path)
        except FsError:
            raise SnapshotError(
                f"{path}: this sandbox's policy refuses reading it from the host layer"
            ) from None
    try:
        source, st = overlay.lower_source(path)
    except FsError:
        raise SnapshotError(f"{path}: the host layer has no such file any more") from None
    fs.add_source(path, source, st)


def swap_in(target: MemoryFs, new: MemoryFs) -> Callable[[], None]:
    """Make `target` hold `new`'s tree (and quota use) in one step; returns the undo."""
    with target.lock:
        old = (target.root, target.quota.used_bytes, target.quota.used_files)
        target.root = new.root
        target._next_ino = max(target._next_ino, new._next_ino)
        target.quota.used_bytes = new.quota.used_bytes
        target.quota.used_files = new.quota.used_files

    def undo() -> None:
        with target.lock:
            target.root, target.quota.used_bytes, target.quota.used_files = old

    return undo


def whiteouts(img: dict[str, Any], max_files: int) -> set[str]:
    return {_check_path(p, "whiteout") for p in check_list(img.get("whiteouts", []), "whiteouts", max_files)}


__all__ = ["build", "image", "swap_in", "whiteouts"]
