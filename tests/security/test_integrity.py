"""Integrity: whatever a script does, host files outside what was granted stay
exactly as they were (names, modes, owners, times, link targets, contents).

Every row gets its own host directory: a root handed to the backend and a
canary directory beside it (a secret file, a read-only file, a sub-directory,
a symlink). The root holds links planted by the host pointing at the canary
(absolute and relative) and two hostile archives. Destructive scripts run on
each backend; afterwards the canary must be unchanged and, for the read-only
and copy-on-write setups, the root too. (Symlink, hard-link and rename
escapes one by one are in test_fs_escape.py; this file throws whole-tree
destruction, archives and quota abuse at the same property.)
"""

from __future__ import annotations

import atexit
import io
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from secharness import FILE_CANARY, Outcome, batch, param, plant_canaries, snapshot, verify

from sandbash import Bash
from sandbash.vfs import MemoryFs, MountFs, OverlayFs, ReadWriteFs
from sandbash.vfs.quota import DiskQuota

HOST = Path(tempfile.mkdtemp(prefix="sandbash-integrity-"))
atexit.register(shutil.rmtree, HOST, True)  # only the directory made just above


def _archives(root: Path, canary: Path) -> None:
    """evil.tar and evil.zip whose members climb out of the extraction
    directory, name absolute host paths, or go through a symlink member."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:

        def add(name: str, data: bytes = b"pwned\n", **kw: Any) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            for k, v in kw.items():
                setattr(info, k, v)
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)

        add("../../canary/tar-dotdot.txt")
        add("../" * 12 + str(canary).lstrip("/") + "/tar-deep.txt")
        add(str(canary / "tar-abs.txt"))
        add("up", type=tarfile.SYMTYPE, linkname=str(canary), size=0)
        add("up/tar-through-link.txt")
        add("rel", type=tarfile.SYMTYPE, linkname="../../canary", size=0)
        add("rel/tar-through-rel.txt")
        add("hard", type=tarfile.LNKTYPE, linkname=str(canary / "secret.txt"), size=0)
        add("secret-overwrite", type=tarfile.SYMTYPE, linkname=str(canary / "secret.txt"), size=0)
        add("secret-overwrite", b"overwritten\n")
    (root / "evil.tar").write_bytes(buf.getvalue())
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as z:
        z.writestr("../../canary/zip-dotdot.txt", "pwned\n")
        z.writestr(str(canary / "zip-abs.txt"), "pwned\n")
        z.writestr("link/zip-through-link.txt", "pwned\n")
    (root / "evil.zip").write_bytes(zbuf.getvalue())


def _host_tree(name: str) -> tuple[Path, Path]:
    top = HOST / name
    top.mkdir()
    canary = plant_canaries(top)
    root = top / "root"
    root.mkdir()
    (root / "file.txt").write_text("inside\n")
    (root / "dir").mkdir()
    (root / "dir" / "nested.txt").write_text("nested\n")
    (root / "link").symlink_to(canary)  # planted by the host: absolute, pointing out
    (root / "rel").symlink_to("../canary")
    (root / "secret-link").symlink_to(canary / "secret.txt")
    _archives(root, canary)
    return root, canary


# backend name -> (make the backend from the root, is the root itself protected?)
BACKENDS: dict[str, tuple[Callable[[Path], Any], bool]] = {
    "overlay": (lambda root: OverlayFs(str(root)), True),
    "overlay-follow": (lambda root: OverlayFs(str(root), follow_symlinks=True), True),
    "readwrite": (lambda root: ReadWriteFs(str(root), quota=DiskQuota(4 << 20, 200)), False),
    "mount-ro": (lambda root: _mounted(root, read_only=True), True),
    "mount-rw": (lambda root: _mounted(root, read_only=False), False),
}


def _mounted(root: Path, read_only: bool) -> MountFs:
    fs = MountFs(MemoryFs())
    fs.mount("/work", ReadWriteFs(str(root), quota=DiskQuota(4 << 20, 200)), read_only=read_only)
    fs.mount("/cow", OverlayFs(str(root)))
    return fs


SCRIPTS: dict[str, str] = {
    "rm-rf-root": "rm -rf / 2>/dev/null; rm -rf --no-preserve-root / 2>&1 | tail -1; ls -la /",
    "rm-everything-glob": "cd /; shopt -s dotglob globstar; rm -rf /* /**/* 2>&1 | tail -2",
    "chmod-chown-tree": "chmod -R 000 / 2>/dev/null; chmod -R 777 /; chown -R 0:0 / 2>&1 | tail -1; "
    "chgrp -R 0 / 2>/dev/null; chmod -R u+s,g+s /; ls -la . link/",
    "find-delete": "find / -depth -delete 2>&1 | tail -1; find -L / -delete 2>&1 | tail -1",
    "find-exec-chmod": "find / -exec chmod 777 {} + 2>/dev/null; find -L / -type f -exec chmod 000 {} \\;",
    "touch-everything": "touch -d 2001-01-01 $(find -L / 2>/dev/null) 2>/dev/null; touch -h link rel secret-link; "
    "touch link/secret.txt rel/ro.txt secret-link link/sub",
    "overwrite-every-file": 'for f in $(find -L / -type f 2>/dev/null); do echo pwned > "$f"; done 2>/dev/null; '
    "cat link/secret.txt",
    "truncate-everything": "truncate -s 0 $(find -L / -type f 2>/dev/null) 2>&1 | tail -1; truncate -s 1G link/ro.txt",
    "sed-inplace-through-links": "sed -i s/canary/pwned/ link/secret.txt rel/sub/deep.txt secret-link 2>&1; "
    "sed -i --follow-symlinks s/a/b/ secret-link 2>&1; perl -pi -e s/a/b/ link/ro.txt",
    "write-through-links": "echo x > secret-link; echo x >> link/secret.txt; echo x > rel/new.txt; "
    "echo x > link/sub/deep.txt; cat /dev/null > link/ro.txt; exec 3<>link/secret.txt; echo y >&3",
    "tee-sort-split-into-links": "echo x | tee link/tee.txt rel/tee2.txt; sort -o link/secret.txt link/secret.txt; "
    "split -l1 file.txt link/split_; seq 3 | tee -a secret-link",
    "cp-mv-into-links": "cp file.txt link/; cp -r dir rel/; mv file.txt link/moved.txt; mv link/secret.txt .; "
    "mv rel/sub ./stolen; mv link /tmp/l; mv /tmp/l/exe.sh /tmp/",
    "rm-through-links": "rm -rf link/ rel/ link/* rel/sub; rm -f secret-link link/secret.txt; rmdir link/sub; "
    "unlink link/exe.sh; rm -rf link/.",
    "ln-replace-links": "ln -sf /etc/passwd link/secret.txt; ln -f file.txt link/ro.txt; ln -sfn /tmp link; "
    "ln -s x rel/new-link; ln link/secret.txt hard-copy; echo x > hard-copy",
    "rename-root-away": "cd /; mv /work /w2 2>&1; mv . /x 2>&1; mv link/sub link/sub2; mv rel rel2; mv rel2/ro.txt rel2/x",
    "tar-extract-evil": "tar -xf evil.tar 2>&1 | tail -3; tar -xPf evil.tar 2>&1 | tail -3; "
    "tar -xf evil.tar -C link 2>&1 | tail -1; tar -xf evil.tar --absolute-names 2>&1 | tail -1",
    "unzip-evil": "unzip -o evil.zip 2>&1 | tail -3; unzip -o -d link evil.zip 2>&1 | tail -1; unzip -: evil.zip 2>&1",
    "tar-roundtrip": "tar -cf /tmp/all.tar -C / . 2>/dev/null; tar -xf /tmp/all.tar -C link 2>&1 | tail -1; "
    "tar -xf /tmp/all.tar -C . 2>&1 | tail -1",
    "gzip-through-links": "gzip link/secret.txt 2>&1; gzip -f secret-link 2>&1; gunzip -f rel/ro.txt 2>&1; "
    "bzip2 -f link/sub/deep.txt 2>&1; zip -r link/x.zip . 2>&1 | tail -1",
    "patch-through-links": "printf -- '--- a\\n+++ b\\n@@ -1 +1 @@\\n-x\\n+y\\n' > p; patch link/secret.txt p 2>&1; "
    "patch -d link -p0 < p 2>&1 | tail -1",
    "install-chmod-links": "install -m 777 file.txt link/inst.txt 2>&1; chmod 777 link link/ rel/; chmod -h 777 link 2>&1; "
    "chmod 000 secret-link; chown 0 link/secret.txt 2>&1",
    "fill-quota": "head -c 10M /dev/zero > big 2>&1; yes > big2 2>&1 | tail -1; "
    "for i in {1..300}; do : > f$i; done 2>/dev/null; cp big link/ 2>&1 | tail -1",
    "mkfifo-mknod-links": "mkfifo link/fifo 2>&1; mknod link/dev c 1 3 2>&1; mkdir link/newdir 2>&1; "
    "mkdir -p rel/a/b/c 2>&1; touch link/sub/x 2>&1",
    "dotdot-paths": "cat ../canary/secret.txt; echo x > ../canary/secret.txt; cd ..; cd ..; rm -rf canary; "
    "ls; echo x > ../../../../canary/new.txt",
}


def _row(script_id: str, script: str, backend: str) -> Any:
    case_id = f"{backend}-{script_id}"
    root, canary = _host_tree(case_id)
    make, root_protected = BACKENDS[backend]
    before_canary = snapshot(canary)
    before_root = snapshot(root) if root_protected else None

    def build() -> Bash:
        return Bash(fs=make(root), cwd="/work" if backend.startswith("mount") else "/")

    return param(
        case_id,
        script,
        timeout=2,
        build=build,
        canary=canary,
        root=root,
        before_canary=before_canary,
        before_root=before_root,
    )


CASES = [_row(sid, script, backend) for sid, script in SCRIPTS.items() for backend in BACKENDS]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_host_unchanged")


@pytest.mark.parametrize("case", CASES)
def test_host_unchanged(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    out = outcomes[case["id"]]
    verify(case, out)
    assert snapshot(case["canary"]) == case["before_canary"], (
        "the canary directory changed: " + out.describe()
    )
    if case["before_root"] is not None:
        assert snapshot(case["root"]) == case["before_root"], "the protected root changed: " + out.describe()
    assert FILE_CANARY not in out.text


def test_readwrite_quota_bounds_host_disk_use(tmp_path: Path) -> None:
    """A script cannot fill the host disk through a granted directory."""
    root = tmp_path / "root"
    root.mkdir()
    bash = Bash(fs=ReadWriteFs(str(root), quota=DiskQuota(1 << 20, 50)))
    r = bash.exec(
        "cd /; yes > a; head -c 5M /dev/zero > b; for i in {1..200}; do echo x > f$i; done; "
        "cp a c; cat a a a > d",
        limits={"timeout": 3},
    )
    assert "No space left on device" in r.stderr
    used = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    count = sum(1 for _ in root.rglob("*"))
    assert used <= (1 << 20) + 65536 and count <= 60, (used, count)
