"""Sorted runs written to the (virtual) temporary directory and read back for merging."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..textbasic.common import quotef


class Spiller:
    def __init__(self, ctx: Ctx, tmpdirs: list[str], sep: bytes) -> None:
        self.ctx = ctx
        self.dir = (tmpdirs[-1] if tmpdirs else ctx.env.get("TMPDIR") or "/tmp").rstrip("/") or "/"
        self.sep = sep
        self.paths: list[str] = []

    def _name(self) -> str:
        letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        suffix = "".join(self.ctx.rng.choice(letters) for _ in range(6))
        return f"{self.dir}/sort{suffix}"

    def spill(self, lines: Iterable[bytes]) -> None:
        ctx = self.ctx
        path = self._name()
        try:
            stream = ctx.fs.open(path, "x")
        except FsError as e:
            ctx.error(f"cannot create temporary file in {quotef(self.dir)}: {strerror(e.errno or 5)}")
            raise CommandExit(2)
        self.paths.append(path)
        sep = self.sep
        try:
            it = iter(lines)  # (a counted run comes one line at a time: never a list of every copy)
            while batch := list(islice(it, 8192)):
                ctx.checkpoint(len(batch))
                stream.write(sep.join(batch) + sep)
        except FsError as e:
            ctx.error(f"write failed: {quotef(path)}: {strerror(e.errno or 5)}")
            raise CommandExit(2)
        finally:
            stream.close()

    def runs(self) -> list[Iterator[bytes]]:
        return [self._read(p) for p in self.paths]

    def _read(self, path: str) -> Iterator[bytes]:
        stream = self.ctx.fs.open(path, "r")
        sep = self.sep
        try:
            for line in stream.lines(sep, self.ctx.budget):
                yield line[: -len(sep)] if line.endswith(sep) else line
        finally:
            stream.close()

    def cleanup(self) -> None:
        for path in self.paths:
            try:
                self.ctx.fs.unlink(path)
            except FsError:
                pass
