"""tar -d (--diff, --compare): an archive's members against the files they came from, as GNU
tar's diff_archive reports them: `NAME: Mode differs`, `Mod time differs`, `Size differs`,
`Contents differ`... on standard output; a file that is not there is a warning. Any of them
makes the status 1."""

from __future__ import annotations

import tarfile

from ...vfs.base import S_IFDIR, S_IFLNK, S_IFMT, S_IFREG
from ...vfs.errors import FsError
from ..context import Ctx
from .codecs import STEP

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO


def compare_member(ctx: Ctx, info: tarfile.TarInfo, content: IO[bytes] | None, path: str, shown: str) -> bool:
    """Compare one member with the file at `path`; says what differs and whether anything does."""
    try:
        st = ctx.fs.lstat(path)
    except FsError as e:
        ctx.error(f"{shown}: Warning: Cannot stat: {e.message}")
        return True
    found: list[str] = []
    kind = st.mode & S_IFMT
    if info.isdir():
        if kind != S_IFDIR:
            found.append("File type differs")
        elif st.mode & 0o7777 != info.mode & 0o7777:
            found.append("Mode differs")
    elif info.issym():
        try:
            target = ctx.fs.readlink(path) if kind == S_IFLNK else None
        except FsError:
            target = None
        if target != info.linkname:
            found.append("Symlink differs")
    elif info.isreg():
        if kind != S_IFREG:
            found.append("File type differs")
        else:
            found += _file_differences(ctx, info, content, path, st.mode, st.uid, st.gid, st.mtime, st.size)
    for what in found:
        ctx.out(f"{shown}: {what}\n")
    return bool(found)


def _file_differences(
    ctx: Ctx,
    info: tarfile.TarInfo,
    content: IO[bytes] | None,
    path: str,
    mode: int,
    uid: int,
    gid: int,
    mtime: float,
    size: int,
) -> list[str]:
    found = []
    if mode & 0o7777 != info.mode & 0o7777:
        found.append("Mode differs")
    if uid != info.uid:
        found.append("Uid differs")
    if gid != info.gid:
        found.append("Gid differs")
    if int(mtime) != int(info.mtime):
        found.append("Mod time differs")
    if size != info.size:
        return [*found, "Size differs"]
    if content is not None and not _same_content(ctx, content, path):
        found.append("Contents differ")
    return found


def _same_content(ctx: Ctx, content: IO[bytes], path: str) -> bool:
    stream = ctx.fs.open(path, "r")
    try:
        while True:
            ctx.checkpoint()
            want = content.read(STEP) or b""
            got = stream.read(len(want)) if want else stream.read(1)
            if want != got:
                return False
            if not want:
                return True
    finally:
        stream.close()
