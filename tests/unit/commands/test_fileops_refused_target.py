"""cp, mv, ln, install (and rm, rmdir, touch, mkdir) when the policy refuses the destination: the
wording is GNU coreutils 9.1's when stat(2) of the last operand fails with EACCES, byte for byte
up to the policy's tag. The expectations were recorded from coreutils 9.1 run as uid 1000 in a
directory where `p` is mode 000 (`p/x` unreachable); here `p` lies outside every grant.

Before: mv into a refused directory on another mount said `inter-device move failed ... unable to
remove target`, cp/install `cannot create regular file 'DIR/'`, ln named no source.
Runs over every backend, and with `p/x` a mount of its own (the inter-device case)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.policy import Policy
from sandbash.vfs import MemoryFs, MountFs, OverlayFs, ReadWriteFs, SqliteFs
from sandbash.vfs.base import Backend

# (command, GNU's stderr, status)
REFUSED = [
    ("mv w/a p/x/", "mv: cannot stat 'p/x/': Permission denied", 1),
    ("mv w/a p/x", "mv: cannot stat 'p/x': Permission denied", 1),
    ("mv w/a p/x/d/", "mv: cannot stat 'p/x/d/': Permission denied", 1),
    ("mv w/a w/b p/x/", "mv: target 'p/x/': Permission denied", 1),
    ("mv w/a w/b p/x", "mv: target 'p/x': Permission denied", 1),
    ("mv -t p/x w/a", "mv: target directory 'p/x': Permission denied", 1),
    ("mv -T w/a p/x", "mv: cannot stat 'p/x': Permission denied", 1),
    ("mv w/a p/nope/", "mv: cannot stat 'p/nope/': Permission denied", 1),
    ("mv w/a p/nope", "mv: cannot stat 'p/nope': Permission denied", 1),
    ("mv w/a p/x/nope", "mv: cannot stat 'p/x/nope': Permission denied", 1),
    ("cp w/a p/x/", "cp: cannot stat 'p/x/': Permission denied", 1),
    ("cp w/a p/x", "cp: cannot stat 'p/x': Permission denied", 1),
    ("cp w/a w/b p/x", "cp: target 'p/x': Permission denied", 1),
    ("cp -t p/x w/a", "cp: target directory 'p/x': Permission denied", 1),
    ("cp -r w p/x/", "cp: cannot stat 'p/x/': Permission denied", 1),
    ("cp w/a p/nope/", "cp: cannot stat 'p/nope/': Permission denied", 1),
    ("cp w/a p/nope", "cp: cannot stat 'p/nope': Permission denied", 1),
    ("cp -T w/a p/x", "cp: cannot stat 'p/x': Permission denied", 1),
    ("ln w/a p/x/", "ln: failed to create hard link 'p/x/' => 'w/a': Permission denied", 1),
    ("ln w/a p/x", "ln: failed to create hard link 'p/x' => 'w/a': Permission denied", 1),
    ("ln -s w/a p/x/", "ln: failed to create symbolic link 'p/x/': Permission denied", 1),
    ("ln -s w/a p/x", "ln: failed to create symbolic link 'p/x': Permission denied", 1),
    ("ln w/a w/b p/x", "ln: target 'p/x': Permission denied", 1),
    ("ln -t p/x w/a", "ln: failed to access 'p/x': Permission denied", 1),
    ("ln -sf w/a p/x", "ln: failed to access 'p/x': Permission denied", 1),
    ("ln -f w/a p/x/y", "ln: failed to access 'p/x/y': Permission denied", 1),
    ("ln -b w/a p/x/y", "ln: failed to access 'p/x/y': Permission denied", 1),
    ("install w/a p/x/", "install: cannot stat 'p/x/': Permission denied", 1),
    ("install w/a p/x", "install: cannot stat 'p/x': Permission denied", 1),
    ("install w/a w/b p/x", "install: target 'p/x': Permission denied", 1),
    ("install -t p/x w/a", "install: failed to access 'p/x': Permission denied", 1),
    ("rm p/x/y", "rm: cannot remove 'p/x/y': Permission denied", 1),
    ("rm -f p/x/y", "rm: cannot remove 'p/x/y': Permission denied", 1),
    ("rm -r p/x", "rm: cannot remove 'p/x': Permission denied", 1),
    ("rm -rf p/x", "rm: cannot remove 'p/x': Permission denied", 1),
    ("rmdir p/x", "rmdir: failed to remove 'p/x': Permission denied", 1),
    ("touch p/x/z", "touch: cannot touch 'p/x/z': Permission denied", 1),
    ("touch p/x", "touch: cannot touch 'p/x': Permission denied", 1),
    ("mkdir p/x/d", "mkdir: cannot create directory ‘p/x/d’: Permission denied", 1),
    ("mkdir p/x", "mkdir: cannot create directory ‘p/x’: Permission denied", 1),
    ("mv p/x w/", "mv: cannot stat 'p/x': Permission denied", 1),
    ("cp p/x/y w/", "cp: cannot stat 'p/x/y': Permission denied", 1),
    ("ln p/x/y w/", "ln: failed to access 'p/x/y': Permission denied", 1),
    ("mv p/x/y w/", "mv: cannot stat 'p/x/y': Permission denied", 1),
    ("cp -r p/x w/", "cp: cannot stat 'p/x': Permission denied", 1),
    ("truncate -s 0 p/x/", "truncate: cannot open 'p/x/' for writing: Permission denied", 1),
    ("rm p/x/", "rm: cannot remove 'p/x/': Permission denied", 1),
    ("touch p/x/", "touch: cannot touch 'p/x/': Permission denied", 1),
    ("chmod 700 p/x/", "chmod: cannot access 'p/x/': Permission denied", 1),
    ("mv p/x/ w/", "mv: cannot stat 'p/x/': Permission denied", 1),
]

BACKENDS = ["memory", "overlay", "sqlite", "readwrite", "mounted"]
TAG = re.compile(r" \[policy: [a-z.-]+\]")


def _backend(kind: str, tmp: Path) -> Backend:
    host = tmp / "host"
    host.mkdir()
    if kind == "overlay":
        return OverlayFs(str(host))
    if kind == "sqlite":
        return SqliteFs(str(tmp / "store.db"))
    if kind == "readwrite":
        return ReadWriteFs(str(host))
    root = MemoryFs()
    if kind == "mounted":  # p/x on a mount of its own: a rename there is EXDEV
        for d in ("/s", "/s/p", "/s/p/x"):
            root.mkdir(d, 0o755, 1000, 1000)
        mounts = MountFs(root)
        mounts.mount("/s/p/x", MemoryFs())
        return mounts  # type: ignore[return-value]
    return root


@pytest.fixture(params=BACKENDS)
def sandbox(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Bash]]:
    made: list[Backend] = []

    def make() -> Bash:
        sub = tmp_path / f"s{len(made)}"
        sub.mkdir()
        be = _backend(request.param, sub)
        made.append(be)
        files = {"/s/w/a": "a\n", "/s/w/b": "b\n", "/s/p/x/y": "y\n", "/s/p/x/d/e": "e\n"}
        return Bash(
            fs=be,
            files=files,
            cwd="/s",
            policy=Policy(paths=["/s/w:rw", "/tmp:rw", "/home:rw"], mode="remediation"),
        )

    yield make
    for be in made:
        close = getattr(be, "close", None)
        if close is not None:
            close()


@pytest.mark.parametrize(("command", "message", "status"), REFUSED, ids=[c for c, _, _ in REFUSED])
def test_refused_target_as_gnu_says_it(
    sandbox: Callable[[], Bash], command: str, message: str, status: int
) -> None:
    b = sandbox()
    r = b.exec(command)
    assert (TAG.sub("", r.stderr), r.exit_code) == (message + "\n", status)
    assert TAG.search(r.stderr), "a refusal names its policy rule"
    # nothing moved, nothing made
    assert b.exec("cat w/a w/b").stdout == "a\nb\n"
