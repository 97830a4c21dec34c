"""In-place writers (sed -i, sort -o onto an input, shuf -o, patch, awk -i inplace, zip) never leave a file
shorter or emptier than before when they fail: the new content goes to a temporary
file beside it that is renamed over it only once complete (FileRewrite in
commands/fsutil.py). Checked on every backend with the quota nearly full, with a
policy that refuses the temporary file or the swap, with a limit hit mid-edit, and
where rename is refused (copy-then-swap)."""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sandbash.commands.fsutil import FileRewrite, replace_bytes
from sandbash.limits import LimitExceeded, Limits
from sandbash.testing import run_command
from sandbash.vfs import DiskQuota, FsError, FsView, MemoryFs, OverlayFs, ReadWriteFs, SqliteFs, Vfs
from sandbash.vfs.base import Backend

BACKENDS = ["memory", "overlay", "sqlite", "readwrite"]
BASE = "/w"
# 7,000 bytes of lines in reverse order: every writer below changes them
CONTENT = b"".join(b"%06d\n" % i for i in range(1000, 0, -1))
PATCH = b"--- f\n+++ f\n@@ -1,2 +1,2 @@\n-001000\n+patched\n 000999\n"


@dataclass
class Fs:
    vfs: Vfs
    view: FsView
    quota: DiskQuota | None = None

    def names(self) -> list[str]:
        return sorted(self.view.listdir(BASE))


def _backend(kind: str, tmp: Path, quota: DiskQuota | None) -> Backend:
    if kind == "memory":
        return MemoryFs(quota=quota)
    if kind == "overlay":
        return OverlayFs(str(tmp), quota=quota)
    if kind == "readwrite":
        return ReadWriteFs(str(tmp), quota=quota)
    return SqliteFs(str(tmp / "store.db"), quota=quota)


@pytest.fixture(params=BACKENDS)
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Fs]]:
    made: list[Backend] = []

    def factory(spare: int | None = None, mode: int = 0o640) -> Fs:
        """A filesystem holding BASE/f (CONTENT, `mode`); with `spare`, the quota leaves
        only that many bytes free once the file is written."""
        sub = tmp_path / f"fs{len(made)}"
        sub.mkdir()
        quota = None if spare is None else DiskQuota(max_bytes=1 << 30, max_files=1000)
        be = _backend(request.param, sub, quota)
        made.append(be)
        vfs = Vfs(be)
        view = vfs.view("/")
        view.mkdir(BASE, parents=True)
        view.write_bytes(BASE + "/f", CONTENT)
        view.chmod(BASE + "/f", mode)
        if quota is not None and spare is not None:
            quota.max_bytes = quota.used_bytes + spare
        return Fs(vfs, view, quota)

    yield factory
    for be in made:
        close = getattr(be, "close", None)
        if close is not None:
            close()


# writer -> (argv, stdin, what the file holds after a successful run)
WRITERS: dict[str, tuple[list[str], bytes, bytes]] = {
    "sed -i": (["sed", "-i", "s/^0/x/", "f"], b"", CONTENT.replace(b"\n0", b"\nx").replace(b"0", b"x", 1)),
    "sed -i.bak": (["sed", "-i.bak", "1d", "f"], b"", CONTENT.split(b"\n", 1)[1]),
    "sed -n -i": (["sed", "-n", "-i", "$p", "f"], b"", b"000001\n"),
    "sort -o": (["sort", "-o", "f", "f"], b"", b"".join(sorted(CONTENT.splitlines(keepends=True)))),
    "sort -r -o": (["sort", "-r", "-o", "f", "f"], b"", CONTENT),
    "shuf -o": (["shuf", "--random-source=f", "-o", "f", "f"], b"", CONTENT),  # (any order)
    "patch": (["patch", "f"], PATCH, CONTENT.replace(b"001000\n", b"patched\n", 1)),
    "awk -i inplace": (
        ["awk", "-i", "inplace", '{print "#" $0}', "f"],
        b"",
        CONTENT.replace(b"0", b"#0", 1).replace(b"\n0", b"\n#0"),
    ),
}


def _run(fs: Fs, argv: list[str], stdin: bytes, limits: Limits | None = None) -> tuple[int, bytes]:
    r = run_command(argv, stdin=stdin, vfs=fs.vfs, cwd=BASE, limits=limits)
    return r.status, r.stderr


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_successful_edit_swaps_the_file_and_keeps_its_mode(make: Callable[..., Fs], writer: str) -> None:
    fs = make()
    argv, stdin, want = WRITERS[writer]
    status, err = _run(fs, argv, stdin)
    assert status == 0, err
    got = fs.view.read_bytes(BASE + "/f")
    if writer == "shuf -o":  # a permutation of the lines
        assert sorted(got.splitlines()) == sorted(CONTENT.splitlines()) and got != CONTENT
    else:
        assert got == want
    assert fs.view.stat(BASE + "/f").mode & 0o7777 == 0o640
    extra = {"sed -i.bak": ["f.bak"]}.get(writer, [])
    assert fs.names() == sorted(["f", *extra])  # no temporary file left behind
    if writer == "sed -i.bak":
        assert fs.view.read_bytes(BASE + "/f.bak") == CONTENT


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("spare", [0, 100, 6_999])
def test_a_nearly_full_quota_leaves_the_file_whole(make: Callable[..., Fs], writer: str, spare: int) -> None:
    fs = make(spare=spare)
    argv, stdin, want = WRITERS[writer]
    if len(want) + 16 <= spare:  # a short result (sed -n) fits beside the original: it is done
        assert _run(fs, argv, stdin)[0] == 0 and fs.view.read_bytes(BASE + "/f") == want
        return
    status, err = _run(fs, argv, stdin)
    assert status != 0 and b"No space left on device" in err, err
    assert fs.view.read_bytes(BASE + "/f") == CONTENT
    assert fs.view.stat(BASE + "/f").mode & 0o7777 == 0o640
    assert fs.names() == ["f"]


def _refuse(fs: Fs, refused: Callable[[str, str], bool]) -> None:
    def gate(action: str, path: str) -> None:
        if refused(action, path):
            raise FsError(errno.EACCES, path)

    fs.vfs.gate = gate


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("rule", ["new files", "renames", "the file itself"])
def test_a_refusing_policy_leaves_the_file_whole(make: Callable[..., Fs], writer: str, rule: str) -> None:
    fs = make()
    target = BASE + "/f"
    checks: dict[str, Callable[[str, str], bool]] = {
        "new files": lambda action, path: path.startswith(BASE + "/") and path != target and action != "read",
        "renames": lambda action, path: action == "rename",
        "the file itself": lambda action, path: path == target and action not in ("read", "stat"),
    }
    _refuse(fs, checks[rule])
    argv, stdin, _ = WRITERS[writer]
    status, _err = _run(fs, argv, stdin)
    fs.vfs.gate = None
    assert status != 0
    assert fs.view.read_bytes(target) == CONTENT
    assert fs.names() == ["f"]


@pytest.mark.parametrize(
    "argv",
    [
        ["sed", "-i", ":a;s/0/0/;ba", "f"],
        ["sed", "-i", "G;G;h", "f"],
        ["sed", "-i", "100q;:a;s/x*/&/;ba", "f"],
        ["awk", "-i", "inplace", "{print} NR == 500 {while (1) n++}", "f"],
    ],
)
def test_a_limit_mid_edit_leaves_the_file_whole(make: Callable[..., Fs], argv: list[str]) -> None:
    fs = make()
    limits = Limits().with_overrides(max_sed_iterations=5_000, max_work=200_000, max_string_length=100_000)
    with pytest.raises(LimitExceeded):
        _run(fs, argv, b"", limits)
    assert fs.view.read_bytes(BASE + "/f") == CONTENT
    assert fs.names() == ["f"]


@pytest.mark.parametrize("argv", [["sed", "-i", "s/^/>/"], ["awk", "-i", "inplace", '{print ">" $0}']])
def test_every_file_is_edited_on_its_own(make: Callable[..., Fs], argv: list[str]) -> None:
    fs = make()
    fs.view.write_bytes(BASE + "/g", b"a\nb\n")
    status, err = _run(fs, [*argv, "g", "f"], b"")
    assert status == 0, err
    assert fs.view.read_bytes(BASE + "/g") == b">a\n>b\n"
    assert fs.view.read_bytes(BASE + "/f").startswith(b">001000\n")
    assert fs.names() == ["f", "g"]


def test_awk_inplace_keeps_begin_end_on_stdout_and_files_whole_on_exit(make: Callable[..., Fs]) -> None:
    fs = make()
    r = run_command(
        ["awk", "-i", "inplace", 'BEGIN {print "b"} FNR <= 2 {print "k" $0} END {print "e"}', "f"],
        vfs=fs.vfs,
        cwd=BASE,
    )
    assert (r.stdout, r.status) == (b"b\ne\n", 0)
    assert fs.view.read_bytes(BASE + "/f") == b"k001000\nk000999\n"
    # exit mid-file, or a fatal error: the file is left as it was
    for program in ("FNR == 2 {exit} {print 1}", "{print; x = 1 / 0}"):
        before = fs.view.read_bytes(BASE + "/f")
        run_command(["awk", "-i", "inplace", program, "f"], vfs=fs.vfs, cwd=BASE)
        assert fs.view.read_bytes(BASE + "/f") == before
        assert fs.names() == ["f"]


def test_copy_then_swap_where_rename_is_refused(
    make: Callable[..., Fs], monkeypatch: pytest.MonkeyPatch
) -> None:
    fs = make()
    view = fs.view

    def no_rename(self: FsView, src: str, dst: str) -> None:
        raise FsError(errno.EXDEV, src)

    monkeypatch.setattr(FsView, "rename", no_rename)
    with FileRewrite(view, BASE + "/f", prefix="t") as rewrite:
        rewrite.stream.write(b"new\n")
    assert view.read_bytes(BASE + "/f") == b"new\n"
    assert view.stat(BASE + "/f").mode & 0o7777 == 0o640
    assert fs.names() == ["f"]


def test_an_aborted_rewrite_and_symlinks(make: Callable[..., Fs]) -> None:
    fs = make()
    view = fs.view
    with pytest.raises(RuntimeError), FileRewrite(view, BASE + "/f") as rewrite:
        rewrite.stream.write(b"partial")
        raise RuntimeError("the producer failed")
    assert view.read_bytes(BASE + "/f") == CONTENT and fs.names() == ["f"]
    view.symlink("f", BASE + "/link")
    replace_bytes(view, BASE + "/link", b"through\n")  # followed, as write_bytes does
    assert view.lstat(BASE + "/link").is_link and view.read_bytes(BASE + "/f") == b"through\n"
    replace_bytes(view, BASE + "/new", b"fresh\n")  # no file yet: a plain write
    assert view.read_bytes(BASE + "/new") == b"fresh\n"
    assert fs.names() == ["f", "link", "new"]


@pytest.mark.parametrize("spare", [0, 100, 2_000])
@pytest.mark.parametrize("args", [["a.zip", "g"], ["-T", "a.zip", "g"], ["-u", "a.zip", "f", "g"]])
def test_zip_rewrites_its_archive_whole(make: Callable[..., Fs], spare: int, args: list[str]) -> None:
    """zip rebuilds the archive and swaps it in: with the quota nearly full the old
    archive stays as it was ('zip I/O error', status 14) and no temporary file is left."""
    fs = make(spare=1 << 20)
    fs.view.write_bytes(BASE + "/g", CONTENT[::-1])
    assert _run(fs, ["zip", "-q", "a.zip", "f"], b"")[0] == 0
    fs.view.chmod(BASE + "/a.zip", 0o600)
    before = fs.view.read_bytes(BASE + "/a.zip")
    assert fs.quota is not None
    fs.quota.max_bytes = fs.quota.used_bytes + spare
    r = run_command(["zip", "-q", *args], vfs=fs.vfs, cwd=BASE)
    assert r.status == 14 and b"zip I/O error: No space left on device" in r.stdout, r.stdout
    assert fs.view.read_bytes(BASE + "/a.zip") == before
    assert fs.names() == ["a.zip", "f", "g"]
    # room again: the same command succeeds and keeps the archive's mode
    fs.quota.max_bytes = 1 << 30
    assert _run(fs, ["zip", "-q", *args], b"")[0] == 0
    listing = run_command(["unzip", "-l", "a.zip"], vfs=fs.vfs, cwd=BASE)
    assert [line.split()[-1] for line in listing.stdout.decode().splitlines()[3:-2]] == ["f", "g"]
    assert fs.view.stat(BASE + "/a.zip").mode & 0o7777 == 0o600
    assert fs.names() == ["a.zip", "f", "g"]
