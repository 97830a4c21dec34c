"""The policy decides on every name of a file (issue 22, "Decide on every name of a file").

Threat-model ids (docs/threat-model.md, "## Filesystem"):
- T-FS-1 hard links: a link never makes a `:ro` file writable through a `:rw` name.
- T-FS-2 a rename or removal never carries a stricter grant's tree out of its grant (and no
  symbolic link is made where a stricter grant's path would lie below it).
- T-FS-3 a refused path answers the policy's EACCES whatever exists there (no existence oracle).
- T-FS-4 /dev entries are not the script's to create, remove, rename or chmod.
- T-FS-5 host trees hide kernel pseudo-filesystems (procfs, sysfs) unless allowed.
- T-FS-6 a deep host path holds a bounded number of fds.
- T-FS-7 no host path shows through df/mount/readlink; no real symlink leaves a rw mount.
- T-FS-8 policy defaults: host mounts read-only without a mode, file refusals name their rule,
  `:rw` grants that cannot write are warned about.
- T-FS-9 a grant naming a path through a symbolic link covers what the link leads to.

Every policy case runs over MemoryFs, OverlayFs, SqliteFs and ReadWriteFs (on a temp dir).
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import tarfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from secharness import ENV_CANARY

from sandbash import Bash
from sandbash.policy import Action, Gate, Policy
from sandbash.vfs import FsError, MemoryFs, MountFs, OverlayFs, ReadWriteFs, SqliteFs, Vfs
from sandbash.vfs.base import Backend

BACKENDS = ["memory", "overlay", "sqlite", "readwrite"]
NESTED = ["/w:rw", "/w/sub/keep:ro", "/tmp:rw", "/home:rw"]
FILES = {"/w/sub/keep/f": "orig\n", "/w/sub/other": "o\n", "/w/plain": "p\n"}


def _backend(kind: str, tmp: Path) -> Backend:
    host = tmp / "host"
    host.mkdir(exist_ok=True)
    if kind == "memory":
        return MemoryFs()
    if kind == "overlay":
        return OverlayFs(str(host))
    if kind == "sqlite":
        return SqliteFs(str(tmp / "store.db"))
    return ReadWriteFs(str(host))


@pytest.fixture(params=BACKENDS)
def sandbox(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Bash]]:
    """A factory of Bash sandboxes over one backend kind (the files are the embedder's)."""
    made: list[Backend] = []

    def make(
        paths: list[str] | None = None, mode: str | None = "remediation", files: dict[str, str] | None = None
    ) -> Bash:
        sub = tmp_path / f"s{len(made)}"
        sub.mkdir()
        be = _backend(request.param, sub)
        made.append(be)
        return Bash(
            fs=be,
            files=FILES if files is None else files,
            policy=Policy(paths=NESTED if paths is None else paths, mode=mode),
        )

    yield make
    for be in made:
        close = getattr(be, "close", None)
        if close is not None:
            close()


def _read(b: Bash, path: str) -> bytes:
    return b.vfs.view("/").read_bytes(path)


# ------------------------------------------------------------ T-FS-1 hard links


@pytest.mark.parametrize(
    "script",
    [
        "ln /w/sub/keep/f /w/l; echo x >> /w/l",
        "cp -l /w/sub/keep/f /w/l; echo x >> /w/l",
        "cp -al /w/sub /w/copy; echo x >> /w/copy/keep/f",
        "cd /w/sub/keep && ln f ../../l2; echo x >> /w/l2",  # relative names
        "ln -s /w/sub/keep /w/sl; ln /w/sl/f /w/l3; echo x >> /w/l3",  # through a symlinked directory
        "ln -s /w/sub/keep/f /w/sf; ln -L /w/sf /w/l4; echo x >> /w/l4",  # ln -L follows to the :ro file
        "echo y > /w/l5; ln -f /w/sub/keep/f /w/l5; echo x >> /w/l5",  # replacing a writable name
        "cp -lr /w/sub /w/copy2; echo x >> /w/copy2/keep/f",
        "ln /w/sub/keep/../keep/f /w/l6 && echo x >> /w/l6",
    ],
)
def test_hard_link_never_widens_a_read_only_file(sandbox: Callable[..., Bash], script: str) -> None:
    b = sandbox()
    r = b.exec(script)
    assert _read(b, "/w/sub/keep/f") == b"orig\n", r.stderr
    assert "Permission denied [policy: paths.read-only]" in r.stderr


@pytest.mark.parametrize("linkname", ["w/sub/keep/f", "./w/sub/keep/f", "w/sub/../sub/keep/f"])
def test_hard_link_from_an_archive(sandbox: Callable[..., Bash], linkname: str) -> None:
    """tar's hard-link members go through the same Vfs.link."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("w/x")
        info.type, info.linkname = tarfile.LNKTYPE, linkname
        tar.addfile(info)
    b = sandbox()
    b.vfs.view("/").write_bytes("/tmp/a.tar", buf.getvalue())  # the embedder's file
    r = b.exec("cd / && tar xf /tmp/a.tar; echo x >> /w/x")
    assert _read(b, "/w/sub/keep/f") == b"orig\n", r.stderr
    assert "Cannot hard link" in r.stderr and "Permission denied [policy: paths." in r.stderr


def test_hard_link_inside_a_writable_grant_works(sandbox: Callable[..., Bash]) -> None:
    b = sandbox()
    r = b.exec("ln /w/plain /w/p2 && echo more >> /w/p2 && cat /w/plain")
    if isinstance(b.vfs.backend, ReadWriteFs):  # a file with two names is read-only on the host
        assert r.exit_code != 0 and _read(b, "/w/plain") == b"p\n"
    else:
        assert (r.exit_code, r.stdout) == (0, "p\nmore\n"), r.stderr


def test_hard_link_in_read_only_mode_is_refused(sandbox: Callable[..., Bash]) -> None:
    b = sandbox(mode="read-only")
    r = b.exec("ln /w/plain /tmp/p; echo $?")
    assert r.stdout == "1\n" and "[policy: mode.read-only]" in r.stderr


def test_hard_link_asks_link_on_the_source() -> None:
    """decide() sees fs:link on the source (protected_hardlinks: linking is a write)."""
    seen: list[tuple[str, str]] = []

    def decide(action: Action) -> None:
        seen.append((action.kind, action.target))

    b = Bash(
        files={"/w/a": "x"}, policy=Policy(paths=["/w:rw", "/home:rw"], mode="remediation", decide=decide)
    )
    assert b.exec("ln /w/a /w/b").exit_code == 0
    assert ("fs:link", "/w/a") in seen and ("fs:create", "/w/b") in seen


# ------------------------------------------------------------ T-FS-2 rename/removal over a stricter grant


@pytest.mark.parametrize(
    "script",
    [
        "mv /w/sub /w/sub2; echo x > /w/sub2/keep/f; mv /w/sub2 /w/sub",  # the issue's case
        "cd /w && mv sub sub2; echo x > sub2/keep/f; mv sub2 sub",  # relative names
        "mv /w /w2; echo x > /w2/sub/keep/f; mv /w2 /w",  # a further ancestor
        "mkdir -p /w/x/keep; echo x > /w/x/keep/f; rm -r /w/sub; mv /w/x /w/sub",  # removal then rename onto
        "mkdir -p /w/x/keep; echo x > /w/x/keep/f; mv -T /w/x /w/sub",  # rename onto the grant's parent
        "ln -s /w/sub /w/lnk; mv /w/lnk/keep /w/k2; echo x > /w/k2/f",  # through a symlink
        "find /w -maxdepth 1 -name sub -exec mv {} /w/moved \\; ; echo x > /w/moved/keep/f",
        "rm -rf /w/sub; mkdir -p /w/sub/keep; echo x > /w/sub/keep/f",
    ],
)
def test_rename_or_removal_keeps_a_stricter_grant(sandbox: Callable[..., Bash], script: str) -> None:
    b = sandbox()
    r = b.exec(script)
    assert _read(b, "/w/sub/keep/f") == b"orig\n", r.stderr
    assert "Permission denied [policy: paths." in r.stderr


def test_first_mv_of_the_issue_fails(sandbox: Callable[..., Bash]) -> None:
    b = sandbox()
    r = b.exec("mv /w/sub /w/sub2; echo $?; rmdir /w/sub; echo $?; rm -r /w/sub/other; echo $?")
    assert r.stdout == "1\n1\n0\n"
    assert (
        "mv: cannot move '/w/sub' to '/w/sub2': Permission denied [policy: paths.read-only-inside]"
        in r.stderr
    )
    assert "rmdir: failed to remove '/w/sub': Permission denied" in r.stderr


@pytest.mark.parametrize("kind", BACKENDS)
def test_realistic_git_shape(kind: str, tmp_path: Path) -> None:
    be = _backend(kind, tmp_path)
    b = Bash(
        fs=be,
        files={"/workspace/.git/HEAD": "ref: main\n", "/workspace/src/a.py": "a\n"},
        policy=Policy(
            paths=["/workspace:rw", "/workspace/.git:ro", "/home:rw", "/tmp:rw"], mode="remediation"
        ),
    )
    r = b.exec(
        "mv /workspace /ws; mv /workspace/.git /workspace/g; rm -rf /workspace; "
        "mkdir /workspace/src; echo hi > /workspace/src/b.py; mv /workspace/src /workspace/lib; ls -A /workspace"
    )
    assert _read(b, "/workspace/.git/HEAD") == b"ref: main\n"
    assert r.stdout == ".git\nlib\n", r.stderr
    if isinstance(be, ReadWriteFs):
        assert (tmp_path / "host" / "workspace" / ".git" / "HEAD").read_text() == "ref: main\n"


def test_rename_onto_a_path_holding_a_stricter_grant() -> None:
    """The destination alone holds the grant (the source is a writable directory)."""
    p = Policy(paths=["/w:rw", "/w/dst/keep:ro"], mode="remediation")
    for action, path, ok in [
        ("rename", "/w/dst", False),
        ("rename", "/w/src", True),
        ("delete", "/w/dst", False),
        ("delete", "/w/dst/other", True),
        ("delete", "/w", False),
        ("create", "/w/dst", True),
        ("rename", "/w/dstx", True),
    ]:
        assert p.path_decision(action, path).allowed is ok, (action, path)


@pytest.mark.parametrize(
    "script",
    [
        "ln -s /w/x /w/a; echo x > /w/a/b/f",  # the grant's parent made a link
        "cd /w && ln -s x a; echo x > a/b/f",
        "ln -s /w/x /w/tmp-l && mv /w/tmp-l /w/a; echo x > /w/a/b/f",
        "ln -s x /tmp/l && cp -a /tmp/l /w/a; echo x > /w/a/b/f",
        "cd /tmp && ln -s /w/x a && tar cf t.tar a && tar xf t.tar -C /w; echo x > /w/a/b/f",
        "ln -sfn /w/x /w/a; echo x > /w/a/b/f",
        "ln -s ../w/x /w/a; mkdir -p /w/a/b; echo x > /w/a/b/f",
    ],
)
def test_no_link_where_a_stricter_grant_would_lie_below(sandbox: Callable[..., Bash], script: str) -> None:
    """`/w/a/b:ro` with no `/w/a`: a link made there would lead the grant's name elsewhere."""
    b = sandbox(paths=["/w:rw", "/w/a/b:ro", "/tmp:rw", "/home:rw"], files={"/w/x/b/.keep": ""})
    r = b.exec(script)
    assert b.vfs.view("/").try_lstat("/w/x/b/f") is None, r.stderr
    assert "[policy: paths.read-only" in r.stderr
    ok = b.exec("mkdir -p /w/a/c && ln -s /w/x /w/a/c/l && ln -s /w/x /w/y && ls /w/a")
    assert (ok.stdout, ok.exit_code) == ("c\n", 0), ok.stderr  # other names there are the script's


# ------------------------------------------------------------ T-FS-9 a grant through a symbolic link


def _linked(kind: str, tmp: Path, links: dict[str, str], files: dict[str, str]) -> Backend:
    """A backend holding the embedder's files and links (relative targets: valid on every backend)."""
    be = _backend(kind, tmp)
    v = Vfs(be).view("/")
    for path, text in files.items():
        v.write_file(path, text.encode(), parents=True)
    for path, target in links.items():
        v.mkdir(path.rsplit("/", 1)[0] or "/", parents=True)
        v.symlink(target, path)
    return be


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize(
    ("grants", "links", "script", "kept"),
    [
        (
            ["/w/link:ro"],
            {"/w/link": "real"},
            "echo x > /w/link/f; echo x > /w/real/f; rm -r /w/real",
            "/w/real/f",
        ),
        (["/w/a/b:ro"], {"/w/a": "x"}, "echo x > /w/x/b/f; mv /w/x /w/y; rm -r /w/x/b", "/w/x/b/f"),
        (
            ["/w/cfg:ro"],
            {"/w/cfg": "real/f"},
            "echo x >> /w/real/f; truncate -s0 /w/real/f; mv /w/real/f /w/g",
            "/w/real/f",
        ),
        (
            ["/w/l1:ro"],
            {"/w/l1": "l2", "/w/l2": "real"},
            "echo x > /w/real/f; rm /w/l2; ln -sf /tmp /w/l2",
            "/w/real/f",
        ),
        (["/w/l:ro"], {"/w/l": "./real/."}, "cd /w/real && echo x > f; chmod 000 f; rm -f f", "/w/real/f"),
        (
            ["/w/d/l:ro"],
            {"/w/d/l": "../real"},
            "mv /w/real /w/elsewhere; echo x > /w/real/f; cp /tmp/n /w/real/f",
            "/w/real/f",
        ),
    ],
)
def test_a_grant_covers_what_its_link_names(
    kind: str, tmp_path: Path, grants: list[str], links: dict[str, str], script: str, kept: str
) -> None:
    files = {"/w/real/f": "orig\n", "/w/x/b/f": "orig\n", "/tmp/n": "n\n"}
    be = _linked(kind, tmp_path, links, files)
    b = Bash(fs=be, policy=Policy(paths=["/w:rw", "/tmp:rw", "/home:rw", *grants], mode="remediation"))
    r = b.exec(script)
    assert _read(b, kept) == b"orig\n", r.stderr
    assert "[policy: paths.read-only" in r.stderr


def test_a_writable_grant_through_a_link_writes_there(tmp_path: Path) -> None:
    be = _linked("memory", tmp_path, {"/data/out": "o2"}, {"/data/in": "i\n", "/data/o2/.keep": ""})
    policy = Policy(paths=["/data:ro", "/data/out:rw", "/home:rw"], mode="remediation")
    b = Bash(fs=be, policy=policy)
    r = b.exec("echo x > /data/out/r && cat /data/o2/r; echo y > /data/in; echo $?")
    assert r.stdout == "x\n1\n", r.stderr
    assert b.policy is not None and b.policy.path_specs() == policy.path_specs()  # what the embedder wrote
    assert b.policy.warnings == [] and b.check("echo x > /data/o2/r").status == "allowed"


# ------------------------------------------------------------ T-FS-3 the gate before resolution


def _gated_vfs(kind: str, tmp: Path) -> Vfs:
    vfs = Vfs(_backend(kind, tmp))
    v = vfs.view("/")
    v.mkdir("/secret/dir", parents=True)
    v.write_file("/secret/file", b"s")
    v.mkdir("/ok")
    v.symlink("/secret/dir", "/ok/ln")  # a granted name whose walk leads into the refused tree
    vfs.gate = Gate(Policy(paths=["/ok:rw"], mode="remediation")).fs
    return vfs


OPS: list[tuple[str, Callable[[Vfs, str], object]]] = [
    ("mkdir", lambda v, p: v.mkdir(p)),
    ("symlink", lambda v, p: v.symlink("x", p)),
    ("rmdir", lambda v, p: v.rmdir(p)),
    ("rename-src", lambda v, p: v.rename(p, "/ok/x")),
    ("rename-dst", lambda v, p: v.rename("/ok", p)),
    ("unlink", lambda v, p: v.unlink(p)),
    ("chmod", lambda v, p: v.chmod(p, 0o700)),
    ("chown", lambda v, p: v.chown(p, -1, -1)),
    ("utime", lambda v, p: v.utime(p, 1, 1)),
    ("link-src", lambda v, p: v.link(p, "/ok/l")),
    ("link-dst", lambda v, p: v.link("/ok", p)),
    ("truncate", lambda v, p: v.truncate(p, 0)),
    ("open-w", lambda v, p: v.open(p, "w")),
    ("open-r", lambda v, p: v.open(p, "r")),
    ("stat", lambda v, p: v.stat(p)),
    ("listdir", lambda v, p: v.listdir(p)),
    ("lstat", lambda v, p: v.lstat(p)),
    ("readlink", lambda v, p: v.readlink(p)),
    ("statfs", lambda v, p: v.statfs(p)),  # df FILE, stat -f
    ("realpath", lambda v, p: v.view("/").realpath(p)),  # cd -P, readlink -f
    ("resolve", lambda v, p: v.view("/").resolve(p)),
    ("resolve-nofollow", lambda v, p: v.view("/").resolve(p, follow=False)),
    ("mkdir-p", lambda v, p: v.view("/").mkdir(p, parents=True)),
]
# a missing entry, a missing parent, a file used as a directory, an existing file and directory
WHERE = ["/secret/nope", "/secret/no/pe", "/secret/file/x", "/secret/file", "/secret/dir"]
# the same places reached through a granted name: the walk leaves the name given (a link, '..')
THROUGH_LINK = ["/ok/ln/../nope", "/ok/ln/../no/pe", "/ok/ln/../file/x", "/ok/ln/../file", "/ok/ln/x"]


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("shapes", [WHERE, THROUGH_LINK], ids=["named", "through-link"])
@pytest.mark.parametrize(("name", "op"), OPS, ids=[n for n, _ in OPS])
def test_refused_path_has_one_answer(
    kind: str, tmp_path: Path, name: str, shapes: list[str], op: Callable[[Vfs, str], object]
) -> None:
    vfs = _gated_vfs(kind, tmp_path)
    answers = set()
    for where in shapes:
        with pytest.raises(FsError) as e:
            op(vfs, where)
        answers.add((e.value.code, e.value.rule))
    assert answers == {(errno.EACCES, "paths.no-grant")}


@pytest.mark.parametrize(
    "shapes",
    [("/secret/nope", "/secret/file/x", "/secret/dir"), ("/ok/ln/../nope", "/ok/ln/../file/x", "/ok/ln/x")],
    ids=["named", "through-link"],
)
def test_refused_path_gives_the_same_text_in_scripts(shapes: tuple[str, str, str]) -> None:
    b = Bash(
        files={"/secret/file": "s", "/secret/dir/x": "y", "/tmp/x": "t", "/ok/a": "a"},
        policy=Policy(paths=["/home:rw", "/tmp:rw", "/ok:rw"], mode="remediation"),
    )
    assert b.exec("ln -s /secret/dir /ok/ln").exit_code == 0
    for cmd in (
        "mkdir",
        "rmdir",
        "rm",
        "touch",
        "chmod 700",
        "ln -s x",
        "truncate -s0",
        "cd",
        "pushd",
        "realpath",
        "readlink -ev",
        "stat",
        "ls",
        "cat",
        "mv /tmp/x",
        "ln /tmp/x",
        "cp -r /tmp/x",
        "rm -rf",
        "mkdir -p",
        "chown user",
        "du -s",
        "find",
        "grep -r x",
        "wc -l",
        "head -1",
        "sort",
        "df",
        "stat -f",
        "cd -P",
        "touch -h",
    ):
        r = b.exec("; ".join(f"{cmd} {where}" for where in shapes))
        lines = r.stderr.splitlines()
        # one answer whatever is there (the path itself aside) ...
        assert (
            len({ln.replace(shapes[0], "P").replace(shapes[1], "P").replace(shapes[2], "P") for ln in lines})
            == 1
        ), (cmd, r.stderr)
        # ... and, where the command prints the C library's wording, the policy's rule
        if not cmd.startswith("grep"):  # grep -r reports an unreadable operand as missing
            assert len(lines) == 3 and all(
                ln.endswith("Permission denied [policy: paths.no-grant]") for ln in lines
            ), (cmd, r.stderr)


# ------------------------------------------------------------ T-FS-4 /dev


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("mode", ["read-only", "remediation", None])
def test_dev_entries_are_not_the_scripts(mode: str | None, kind: str, tmp_path: Path) -> None:
    be = _backend(kind, tmp_path)
    b = Bash(fs=be, policy=Policy(mode=mode)) if mode is not None else Bash(fs=be)
    r = b.exec(
        "chmod 700 /dev/fd; echo x > /dev/fd/k; touch /dev/new; mkdir /dev/d; ln -s / /dev/root; "
        "mv /dev/null /dev/n; rm -f /dev/zero; ln /dev/null /tmp/n; chmod 666 /dev/fd/0; "
        "ls /dev/fd; ls /dev | tr '\\n' ' '"
    )
    assert r.stdout == "0\n1\n2\nfd full null random stderr stdin stdout tty urandom zero ", r.stderr
    assert len(r.stderr.splitlines()) == 9, r.stderr
    assert oct(b.vfs.view("/").stat("/dev/fd").mode & 0o777) == "0o500"
    # more ways in: a copy, a rename, an archive, a directory tree, a here-string, timestamps
    r2 = b.exec(
        "cd /tmp 2>/dev/null || cd ~; echo q > q; cp q /dev/; mv q /dev/fd/; mkdir -p t/u; "
        "cp -r t /dev/; tar cf a.tar q t; tar xf a.tar -C /dev; touch -d 2001-01-01 /dev/fd; "
        "chmod -R 777 /dev; install -m 644 q /dev/i; ls /dev | tr '\\n' ' '"
    )
    assert r2.stdout.endswith("fd full null random stderr stdin stdout tty urandom zero "), r2.stderr
    assert oct(b.vfs.view("/").stat("/dev/fd").mode & 0o777) == "0o500"


def test_devices_still_work_in_read_only_mode() -> None:
    b = Bash(policy=Policy(mode="read-only"))
    r = b.exec(
        "echo hi > /dev/null && echo x >/dev/stderr && head -c3 /dev/zero | wc -c && touch /dev/null && echo ok"
    )
    assert (r.stdout, r.stderr, r.exit_code) == ("3\nok\n", "x\n", 0)


# ------------------------------------------------------------ T-FS-5 pseudo-filesystems


def _has_proc() -> bool:
    return os.path.isdir("/proc/self")


@pytest.mark.skipif(not _has_proc(), reason="no procfs on this host")
@pytest.mark.parametrize(
    "script",
    [
        "cat /proc/self/environ",
        "cat /proc/1/environ",
        "ls /proc",
        "cat /proc/self/cmdline",
        "grep -r SANDBASH /proc/self/ 2>&1 | head -1",
        "tar cf - /proc/self/environ | strings",
        "cat /sys/kernel/hostname 2>&1; ls /sys/class",
        "find /proc -maxdepth 2 -name environ",
    ],
)
def test_root_overlay_hides_proc(script: str) -> None:
    b = Bash(fs=OverlayFs("/"), policy=Policy(mode="read-only"))
    r = b.exec(script)
    assert ENV_CANARY not in r.stdout + r.stderr
    assert "PATH=" not in r.stdout and "/usr/bin" not in r.stdout


@pytest.mark.skipif(not _has_proc(), reason="no procfs on this host")
def test_pseudo_filesystems_on_every_host_backend() -> None:
    for root in ("/proc", "/sys"):
        for cls in (ReadWriteFs, OverlayFs):
            with pytest.raises(FsError) as e:
                cls(root)
            assert e.value.code == errno.EACCES
    # the host root read through ReadWriteFs (reads only here): /proc is refused below it
    view = Vfs(ReadWriteFs("/")).view("/")
    with pytest.raises(FsError) as e2:
        view.read_bytes("/proc/self/status")
    assert e2.value.code == errno.EACCES
    # the embedder may grant them explicitly
    allowed = Vfs(OverlayFs("/", allow_pseudo=True)).view("/")
    assert allowed.read_bytes("/proc/version").startswith(b"Linux")


# ------------------------------------------------------------ T-FS-6 deep host paths


class _Peak(OrderedDict[str, int]):
    """The directory-fd cache, recording its largest size."""

    peak = 0

    def __setitem__(self, key: str, value: int) -> None:
        super().__setitem__(key, value)
        self.peak = max(self.peak, len(self))


@pytest.mark.parametrize("cls", [ReadWriteFs, OverlayFs])
def test_deep_path_holds_few_fds(cls: type, tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(1100):
        os.mkdir("d", dir_fd=fd)
        nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.close(fd)
    be = cls(str(tmp_path))
    tree = be.tree if isinstance(be, ReadWriteFs) else be.lower
    tree._dirs = peak = _Peak()
    view = Vfs(be).view("/")
    deep = "/" + "/".join(["d"] * 1100)
    view.write_file(deep + "/f", b"deep") if cls is ReadWriteFs else None
    assert view.stat(deep).is_dir
    assert view.listdir(deep) == (["f"] if cls is ReadWriteFs else [])
    view.mkdir(deep + "/e")
    assert peak.peak <= 66 and len(peak) <= 64
    be.close()
    _remove_chain(tmp_path / "d")


def _remove_chain(top: Path) -> None:
    """Remove a chain of nested `d` directories one level at a time: shutil.rmtree recurses once a
    level, and pytest's clean-up of old temporary directories ended in RecursionError on it."""
    rest = top.with_name("rest")
    while top.exists():
        if (top / "d").is_dir():
            os.rename(top / "d", rest)
        shutil.rmtree(top)
        if rest.exists():
            os.rename(rest, top)


def _host_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")
@pytest.mark.parametrize("cls", [ReadWriteFs, OverlayFs])
@pytest.mark.parametrize(
    "script",
    [
        "for i in $(seq 400); do exec {fd}</f || break; done",
        "for i in $(seq 400); do exec {fd}<f || break; done",  # relative names
        "for i in $(seq 200); do exec {a}</f {b}</d/g || break; done",  # two files a step
        "for i in $(seq 400); do exec {fd}>>/f || break; done",  # append (host or memory)
        "for i in $(seq 400); do exec {fd}</f || break; cat /f >/dev/null; done",  # with reads between
        "f() { exec {fd}</f; }; for i in $(seq 400); do f || break; done",
    ],
)
def test_open_files_hold_few_host_fds(cls: type, script: str, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "g").write_text("g")
    be = cls(str(tmp_path))
    b = Bash(fs=be, policy=Policy(mode="remediation"))
    before = _host_fds()
    r = b.exec(f"cd /; {script}; echo done")
    assert r.stdout == "done\n", r.stderr
    assert _host_fds() - before <= 260
    if cls is ReadWriteFs or ">>" not in script:
        assert "Too many open files" in r.stderr
    be.close()


def test_closed_host_files_give_their_fds_back(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    b = Bash(fs=ReadWriteFs(str(tmp_path)))
    r = b.exec("for i in $(seq 600); do exec {fd}</f && exec {fd}<&- || break; done; echo $i; cat /f")
    assert (r.stdout, r.stderr) == ("600\nx", "")


# ------------------------------------------------------------ T-FS-7 host layout stays private


def test_df_and_mount_show_no_host_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbash.cli.app import build_filesystem
    from sandbash.limits import Limits

    for d in ("private", "out", "proj"):
        (tmp_path / d).mkdir()
    monkeypatch.chdir(tmp_path)
    specs = ["./private:/data", "private:/data2:ro", f"{tmp_path}/out:/out:rw"]
    for root, store in ((None, None), ("./proj", None), (None, "private-store.db")):
        fs = build_filesystem(root, store, specs, Limits())
        b = Bash(fs=fs)
        r = b.exec("df; df -a /data /out; mount; stat -f -c %n /data; findmnt 2>/dev/null; cat /proc/mounts")
        text = r.stdout + r.stderr
        assert str(tmp_path) not in text and "private" not in text and "proj" not in text, text


@pytest.mark.parametrize("kind", ["readwrite", "overlay-follow", "overlay"])
def test_readlink_of_an_outside_host_link(kind: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret-target").write_text("s")
    (root / "abs").symlink_to(tmp_path / "secret-target")
    (root / "rel").symlink_to("../secret-target")
    (root / "deep").symlink_to("a/../../../x")
    be: Backend = (
        ReadWriteFs(str(root))
        if kind == "readwrite"
        else OverlayFs(str(root), follow_symlinks=kind == "overlay-follow")
    )
    b = Bash(fs=be)
    r = b.exec(
        "cd /; readlink abs rel deep; readlink -f abs; ls -l abs rel; cat abs rel; stat -c %N abs; "
        "realpath rel; find . -maxdepth 1 -lname '*secret*'"
    )
    text = r.stdout + r.stderr
    assert "secret-target" not in text and str(tmp_path) not in text, text
    assert "cat: abs: Permission denied" in r.stderr and "cat: rel: Permission denied" in r.stderr
    assert b.exec("readlink -v /abs").stderr == "readlink: /abs: Permission denied\n"


@pytest.mark.parametrize("target", ["/etc/passwd", "../../..", "/tmp", "a/../../..", "/", "sub/../../x"])
def test_rw_mount_refuses_links_leaving_it(target: str, tmp_path: Path) -> None:
    host = tmp_path / "out"
    host.mkdir()
    fs = MountFs(MemoryFs())
    fs.mount("/out", ReadWriteFs(str(host)))
    b = Bash(fs=fs)
    r = b.exec(f"ln -s '{target}' /out/l; echo $?")
    assert r.stdout == "1\n" and "Permission denied" in r.stderr
    assert not os.path.lexists(host / "l")


def test_rw_mount_links_inside_it(tmp_path: Path) -> None:
    host = tmp_path / "out"
    host.mkdir()
    fs = MountFs(MemoryFs())
    fs.mount("/out", ReadWriteFs(str(host)))
    b = Bash(fs=fs)
    r = b.exec(
        "mkdir -p /out/d && echo hi > /out/d/f && ln -s /out/d/f /out/l1 && ln -s d/f /out/l2 "
        "&& cd /out/d && ln -s /out/d/f l3 && cat /out/l1 /out/l2 l3 && readlink /out/l1"
    )
    assert (r.stdout, r.exit_code) == ("hi\nhi\nhi\nd/f\n", 0), r.stderr
    assert os.readlink(host / "l1") == "d/f" and os.readlink(host / "d" / "l3") == "../d/f"
    # the embedder may opt in to real links anywhere
    fs.mount("/out2", ReadWriteFs(str(host), outside_symlinks=True))
    assert Bash(fs=fs).exec("ln -s /etc/passwd /out2/pw").exit_code == 0
    assert os.readlink(host / "pw") == "/etc/passwd"


def _rw_out(tmp_path: Path) -> tuple[Bash, Path]:
    host = tmp_path / "out"
    host.mkdir()
    fs = MountFs(MemoryFs())
    fs.mount("/out", ReadWriteFs(str(host)))
    return Bash(fs=fs), host


def _host_links_stay_inside(host: Path) -> list[str]:
    """Every real symlink under `host` whose host resolution leaves it."""
    out = []
    for dirpath, dirs, files in os.walk(host):
        for name in dirs + files:
            p = Path(dirpath) / name
            real = os.path.realpath(p)
            if p.is_symlink() and real != str(host) and not real.startswith(f"{host}/"):
                out.append(f"{p} -> {os.readlink(p)}")
    return out


@pytest.mark.parametrize(
    "script",
    [
        "mkdir -p /out/d && ln -s ../x /out/d/l && mv /out/d/l /out/l",  # the link moved up
        "mkdir -p /out/a/b && ln -s ../../x /out/a/b/l && mv /out/a/b /out/b",  # its directory moved up
        "mkdir -p /out/a/b/c && ln -s ../../../x /out/a/b/c/l && mv /out/a/b /out/b",  # a deeper holder
        "mkdir -p /out/d && ln -s ../x /out/d/l && ln -P /out/d/l /out/l",  # a hard link to the link
        "mkdir -p /out/d && ln -s ../x /out/d/l && cd /out/d && mv l ..",  # relative names
        "mkdir -p /out/a/b && ln -s ../../x /out/a/b/l && mv -T /out/a/b /out/z",
        "mkdir -p /out/a/b && ln -s ../../x /out/a/b/l && find /out/a -name b -exec mv {} /out/ \\;",
    ],
)
def test_moving_a_link_up_never_leaves_the_rw_mount(script: str, tmp_path: Path) -> None:
    b, host = _rw_out(tmp_path)
    r = b.exec(script)
    assert _host_links_stay_inside(host) == [], r.stderr
    assert "Permission denied" in r.stderr


@pytest.mark.parametrize(
    "script",
    [
        "ln -s .. /out/a/up; ln -s up/../x /out/a/l",  # the kernel follows 'up' before the '..'
        "ln -s .. /out/a/up; ln -s up/up/../../x /out/a/l",
        "ln -s ../a /out/a/me; ln -s me/../../x /out/a/l",
        "ln -s . /out/a/here; ln -s here/../../x /out/l",
        "ln -s b/../../../x /out/a/l",
    ],
)
def test_rw_mount_refuses_a_climb_after_a_name(script: str, tmp_path: Path) -> None:
    b, host = _rw_out(tmp_path)
    r = b.exec(f"mkdir -p /out/a/b; {script}")
    assert _host_links_stay_inside(host) == [] and "Permission denied" in r.stderr, r.stderr
    assert b.exec("ln -s ../b/./f /out/a/b/ok && ln -s ../../out/a /out/a/b/up2").exit_code == 0


def test_moving_a_large_tree_up_copies_and_checks_each_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the scan bound the rename gives EXDEV: mv copies, each link checked as it is made."""
    import sandbash.vfs.readwrite as rw

    monkeypatch.setattr(rw, "_LINK_SCAN", 3)
    b, host = _rw_out(tmp_path)
    r = b.exec(
        "mkdir -p /out/a/b/c && cd /out/a/b/c && touch 1 2 3 && ln -s ../../x l && ln -s 1 one && "
        "mv /out/a/b/c /out/c; echo $?; ls /out/a/b/c | wc -l; readlink /out/c/one"
    )
    assert r.stdout == "1\n5\n1\n", r.stderr
    assert "mv: cannot create symbolic link '/out/c/l': Permission denied" in r.stderr
    assert _host_links_stay_inside(host) == []
    r2 = b.exec("mkdir -p /out/p/q/r && touch /out/p/q/r/f && mv /out/p/q/r /out/r2 && ls /out/r2")
    assert (r2.stdout, r2.exit_code) == ("f\n", 0), r2.stderr  # a small tree without links moves


# ------------------------------------------------------------ T-FS-8 policy defaults


def _host_mount(tmp_path: Path) -> MountFs:
    host = tmp_path / "o"
    host.mkdir()
    (host / "z").write_text("host\n")
    fs = MountFs(MemoryFs())
    fs.mount("/o", ReadWriteFs(str(host)))
    return fs


def test_no_mode_keeps_host_mounts_read_only(tmp_path: Path) -> None:
    b = Bash(fs=_host_mount(tmp_path), policy=Policy(commands=["cat", "echo", "mkdir", "rm", "cp", "touch"]))
    r = b.exec(
        "echo x > /o/z; echo y > /tmp/t && cat /tmp/t; echo h > ~/h && cat ~/h; mkdir /o/d; rm /o/z; "
        "cp /tmp/t /o/; touch /o/z; mkdir /work && echo ok"
    )
    assert r.stdout == "y\nh\nok\n", r.stderr
    err = r.stderr.splitlines()
    assert err[0] == "bash: line 1: /o/z: Permission denied [policy: mode.read-only]"
    assert len(err) == 5 and all(ln.endswith("[policy: mode.read-only]") for ln in err), r.stderr
    assert (tmp_path / "o" / "z").read_text() == "host\n"


def test_no_mode_keeps_whole_host_root_read_only(tmp_path: Path) -> None:
    b = Bash(fs=OverlayFs(str(tmp_path)), policy=Policy())
    r = b.exec("echo x > /tmp/x")
    assert "[policy: mode.read-only]" in r.stderr and r.exit_code == 1


def test_rename_of_a_directory_holding_a_host_mount(tmp_path: Path) -> None:
    fs = MountFs(MemoryFs())
    (tmp_path / "h").mkdir()
    fs.mount("/a/b/host", ReadWriteFs(str(tmp_path / "h")))
    b = Bash(fs=fs, policy=Policy())
    r = b.exec("mv /a /x; rm -r /a; echo $?")
    assert r.stdout == "1\n" and "Permission denied" in r.stderr


@pytest.mark.parametrize(
    ("paths", "mode", "count"),
    [
        (["/workspace:rw"], None, 1),
        (["/workspace:rw", "/data:ro"], "read-only", 1),
        (["/workspace:rw", "/b:rw"], None, 2),
        (["/workspace:rw"], "remediation", 0),
        (["/data:ro"], None, 0),
        (None, None, 0),
    ],
)
def test_rw_grant_without_remediation_warns(paths: list[str] | None, mode: str | None, count: int) -> None:
    warnings = Policy(paths=paths, mode=mode).warnings
    assert len(warnings) == count
    assert all("remediation" in w and "\n" not in w for w in warnings)


def test_warnings_name_only_grants_that_meet_a_host_mount(tmp_path: Path) -> None:
    b = Bash(fs=_host_mount(tmp_path), policy=Policy(paths=["/o/sub:rw", "/tmp:rw", "/:rw"]))
    assert b.policy is not None
    assert [w.split()[2] for w in b.policy.warnings] == ["/o/sub:rw", "/:rw"]
    r = b.exec("echo x > /tmp/x && cat /tmp/x; echo y > /o/sub")
    assert r.stdout == "x\n" and "[policy: mode.read-only]" in r.stderr


def test_policy_file_warns_too() -> None:
    p = Policy.from_toml('name = "agent"\npaths = ["/workspace:rw"]\n')
    assert p.warnings == [
        "policy agent: grant /workspace:rw allows no writes to host mounts: mode is not "
        'set (host mounts stay read-only); set mode = "remediation" to write there'
    ]


@pytest.mark.parametrize(
    ("script", "rule"),
    [
        ("cat /secret/k", "paths.no-grant"),
        ("cp /w/plain /secret/", "paths.no-grant"),
        ("rm /w/sub/keep/f", "paths.read-only"),
        ("mkdir /w/sub/keep/d", "paths.read-only"),
        ("touch /w/sub/keep/f", "paths.read-only"),
        ("echo > /w/sub/keep/f", "paths.read-only"),
        ("mv /w/sub /w/s2", "paths.read-only-inside"),
        ("ls /secret", "paths.no-grant"),
    ],
)
def test_every_file_refusal_names_its_rule(script: str, rule: str) -> None:
    b = Bash(files={**FILES, "/secret/k": "k"}, policy=Policy(paths=NESTED, mode="remediation"))
    r = b.exec(script)
    assert r.exit_code != 0 and f"Permission denied [policy: {rule}]" in r.stderr, r.stderr


def test_refusals_without_a_policy_keep_gnu_wording() -> None:
    b = Bash(files={"/d/f": "x"})
    r = b.exec("chmod 000 /d/f; cat /d/f; chmod 500 /d; rm /d/f; echo x > /d/g")
    assert r.stderr == (
        "cat: /d/f: Permission denied\nrm: cannot remove '/d/f': Permission denied\n"
        "bash: line 1: /d/g: Permission denied\n"
    )
