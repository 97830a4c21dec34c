"""cp mv rm mkdir rmdir touch ln chmod chown chgrp truncate install mktemp shred sync.

Most cases run the real GNU tool in a scratch directory and compare stdout,
stderr, status and the resulting tree (names, types, contents, permissions).
Permission and ownership cases need the sandbox's unprivileged user, so they
use fixed expectations.
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping, Sequence

import pytest

import oracle
from realtools import REAL_ENV
from sandbash.testing import CommandResult, make_vfs, run_command
from sandbash.vfs.facade import Vfs

Files = Mapping[str, bytes | str]
Snapshot = list[tuple[str, str, bytes, int]]

# commands that change files never get absolute or parent paths in these tests:
# the real tools run on this machine
_DESTRUCTIVE = {
    "cp",
    "mv",
    "rm",
    "mkdir",
    "rmdir",
    "touch",
    "ln",
    "chmod",
    "chown",
    "chgrp",
    "truncate",
    "install",
    "shred",
    "find",
    "tree",
}


def _check_safe(argv: Sequence[str]) -> None:
    if argv[0] == "find":
        # only the starting points name files; the expression holds patterns and modes
        argv = list(itertools.takewhile(lambda a: not a.startswith(("-", "(", "!")), argv))
    if argv[0] in _DESTRUCTIVE:
        for prev, a in itertools.pairwise(argv):
            if prev == "-s":
                continue
            assert not a.startswith("/") and ".." not in a.split("/"), f"unsafe argument for a real run: {a}"


def snapshot_dir(root: str) -> Snapshot:
    out: Snapshot = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                out.append((rel, "l", os.readlink(full).encode(), 0))
            elif stat.S_ISDIR(st.st_mode):
                out.append((rel, "d", b"", st.st_mode & 0o7777))
            else:
                with open(full, "rb") as f:
                    out.append((rel, "f", f.read(), st.st_mode & 0o7777))
    return sorted(out)


def snapshot_vfs(vfs: Vfs, root: str = "/home/user") -> Snapshot:
    view = vfs.view(root)
    out: Snapshot = []
    stack = ["."]
    while stack:
        d = stack.pop()
        for name in view.listdir(d):
            rel = name if d == "." else f"{d}/{name}"
            st = view.lstat(rel)
            if st.is_link:
                out.append((rel, "l", view.readlink(rel).encode(), 0))
            elif st.is_dir:
                out.append((rel, "d", b"", st.perm))
                stack.append(rel)
            else:
                out.append((rel, "f", view.read_bytes(rel), st.perm))
    return sorted(out)


_TEMPLATES: dict[object, str] = {}


def _template(files: Files, setup: Sequence[Sequence[str]]) -> str:
    """A directory holding `files` after `setup`, built once per test process
    (each case then works on a copy: far fewer subprocesses)."""
    key = (
        tuple(sorted((k, v if isinstance(v, bytes) else v.encode()) for k, v in files.items())),
        tuple(tuple(c) for c in setup),
    )
    found = _TEMPLATES.get(key)
    if found is not None:
        return found
    d = tempfile.mkdtemp(prefix="sbtpl")
    atexit.register(shutil.rmtree, d, True)
    for path, content in files.items():
        full = os.path.join(d, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(content.encode() if isinstance(content, str) else content)
    for cmd in setup:
        oracle.run(list(cmd), cwd=d, env=REAL_ENV, capture_output=True, timeout=30, check=False)
    _TEMPLATES[key] = d
    return d


def real_run(
    argv: Sequence[str], files: Files, setup: Sequence[Sequence[str]] = (), stdin: bytes = b""
) -> tuple[bytes, bytes, int, Snapshot]:
    _check_safe(argv)
    for cmd in setup:
        _check_safe(cmd)
    template = _template(files, setup)
    with tempfile.TemporaryDirectory() as parent:
        d = os.path.join(parent, "w")
        shutil.copytree(template, d, symlinks=True)
        p = oracle.run(list(argv), input=stdin, cwd=d, env=REAL_ENV, capture_output=True, timeout=30)
        return p.stdout, p.stderr, p.returncode, snapshot_dir(d)


def sandbox_run(
    argv: Sequence[str],
    files: Files,
    setup: Sequence[Sequence[str]] = (),
    stdin: bytes = b"",
    run: Callable[..., CommandResult] = run_command,
) -> tuple[bytes, bytes, int, Snapshot]:
    """`run` is run_command, or viashell.run_via_shell for commands that start programs."""
    vfs = make_vfs(files)
    for cmd in setup:
        run_command(list(cmd), vfs=vfs)
    r = run(list(argv), stdin=stdin, vfs=vfs)
    return r.stdout, r.stderr, r.status, snapshot_vfs(vfs)


def compare(
    argv: Sequence[str],
    files: Files | None = None,
    setup: Sequence[Sequence[str]] = (),
    stdin: bytes = b"",
    tree: bool = True,
) -> None:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} not installed")
    files = files or {}
    ours = sandbox_run(argv, files, setup, stdin)
    real = real_run(argv, files, setup, stdin)
    assert ours[:3] == real[:3]
    if tree:
        assert ours[3] == real[3]


# r/ has one entry per directory: GNU visits entries in readdir order, we in
# name order, so verbose recursive output is only compared on such trees
F: dict[str, bytes | str] = {
    "a": "alpha\n",
    "b": "beta\n",
    "d/x": "x\n",
    "d/sub/y": "y\n",
    "it's": "q\n",
    "r/s/t": "t\n",
}
LINKS = [
    ["ln", "-s", "a", "la"],
    ["ln", "-s", "d", "ld"],
    ["ln", "-s", "nx", "dangling"],
    ["ln", "-s", "r", "lr"],
]

CASES: list[tuple[list[str], list[list[str]], bytes]] = [
    # cp
    (["cp", "a", "c"], [], b""),
    (["cp", "-v", "a", "c"], [], b""),
    (["cp", "a", "b"], [], b""),
    (["cp", "a", "a"], [], b""),
    (["cp", "d", "e"], [], b""),
    (["cp", "-r", "d", "e"], [], b""),
    (["cp", "-rv", "d/sub", "e"], [], b""),
    (["cp", "-Rv", "e", "e/sub"], [["mkdir", "e"]], b""),
    (["cp", "-rv", "r", "c"], [], b""),
    (["cp", "nx", "c"], [], b""),
    (["cp", "a", "nx/c"], [], b""),
    (["cp", "a", "b", "nx"], [], b""),
    (["cp", "a", "b", "it's"], [], b""),
    (["cp", "a", "b", "d"], [], b""),
    (["cp", "-t", "d", "a", "b"], [], b""),
    (["cp", "-t", "nx", "a"], [], b""),
    (["cp", "-T", "d", "a"], [], b""),
    (["cp", "-T", "a", "b", "c"], [], b""),
    (["cp"], [], b""),
    (["cp", "a"], [], b""),
    (["cp", "-n", "a", "b"], [], b""),
    (["cp", "-i", "a", "b"], [], b"n\n"),
    (["cp", "-i", "a", "b"], [], b"y\n"),
    (["cp", "-i", "a", "b"], [], b""),
    (["cp", "-r", "d", "a"], [], b""),
    (["cp", "a", "d"], [], b""),
    (["cp", "-b", "a", "b"], [], b""),
    (["cp", "--backup=numbered", "-v", "a", "b"], [], b""),
    (["cp", "-S", ".bak", "-bv", "a", "b"], [], b""),
    (["cp", "--parents", "-v", "d/sub/y", "e"], [["mkdir", "e"]], b""),
    (["cp", "--parents", "d/x", "a"], [], b""),
    (["cp", "la", "c"], LINKS, b""),
    (["cp", "-P", "la", "c"], LINKS, b""),
    (["cp", "-d", "dangling", "c"], LINKS, b""),
    (["cp", "-r", "ld", "c"], LINKS, b""),
    (["cp", "-rL", "ld", "c"], LINKS, b""),
    (["cp", "-rH", "ld", "c"], LINKS, b""),
    (["cp", "-a", "d", "c"], LINKS, b""),
    (["cp", "-s", "a", "c"], [], b""),
    (["cp", "-l", "a", "c"], [], b""),
    (["cp", "a", "d/x", "d"], [], b""),
    (["cp", "--preserve=bogus", "a", "c"], [], b""),
    (["cp", "--bogus"], [], b""),
    # mv
    (["mv", "a", "c"], [], b""),
    (["mv", "-v", "a", "b"], [], b""),
    (["mv", "a", "a"], [], b""),
    (["mv", "nx", "c"], [], b""),
    (["mv", "d", "d/sub"], [], b""),
    (["mv", "-v", "a", "b", "d"], [], b""),
    (["mv", "-t", "d", "a"], [], b""),
    (["mv", "-T", "a", "d"], [], b""),
    (["mv", "d", "a"], [], b""),
    (["mv", "-n", "a", "b"], [], b""),
    (["mv", "-i", "a", "b"], [], b"n\n"),
    (["mv", "-bv", "a", "b"], [], b""),
    (["mv", "--backup=numbered", "a", "b"], [], b""),
    (["mv", "d/sub", "e"], [["mkdir", "-p", "e/sub/z"]], b""),
    (["mv"], [], b""),
    (["mv", "a"], [], b""),
    (["mv", "la", "c"], LINKS, b""),
    # rm
    (["rm", "a"], [], b""),
    (["rm", "nx"], [], b""),
    (["rm", "-f", "nx"], [], b""),
    (["rm", "-f"], [], b""),
    (["rm"], [], b""),
    (["rm", "d"], [], b""),
    (["rm", "-d", "d"], [], b""),
    (["rm", "-d", "e"], [["mkdir", "e"]], b""),
    (["rm", "-rv", "r"], [], b""),
    (["rm", "-r", "d"], [], b""),
    (["rm", "-r", "."], [], b""),
    (["rm", "-v", "it's", "a"], [], b""),
    (["rm", "-i", "a", "b"], [], b"y\nn\n"),
    (["rm", "-ri", "r"], [], b"y\ny\ny\ny\n"),
    (["rm", "-ri", "r"], [], b"y\ny\nn\n"),
    (["rm", "-I", "a", "b", "it's", "d/x"], [], b"n\n"),
    (["rm", "-I", "a", "b", "it's", "d/x"], [], b"y\n"),
    (["rm", "-Ir", "d"], [], b"y\n"),
    (["rm", "la", "dangling"], LINKS, b""),
    (["rm", "-r", "ld"], LINKS, b""),
    (["rm", "--interactive=bogus", "a"], [], b""),
    # mkdir / rmdir
    (["mkdir", "e"], [], b""),
    (["mkdir", "-v", "e", "f"], [], b""),
    (["mkdir", "d"], [], b""),
    (["mkdir", "nx/e"], [], b""),
    (["mkdir", "a/e"], [], b""),
    (["mkdir", "-p", "a/e"], [], b""),
    (["mkdir", "-pv", "e/f/g"], [], b""),
    (["mkdir", "-pv", "e/f/"], [], b""),
    (["mkdir", "-p", "d"], [], b""),
    (["mkdir", "-p", "a"], [], b""),
    (["mkdir", "-m", "700", "e"], [], b""),
    (["mkdir", "-m", "u=rwx,g=rx,o=", "e"], [], b""),
    (["mkdir", "-m", "=rwx,g+s", "e"], [], b""),
    (["mkdir", "-m", "bad", "e"], [], b""),
    (["mkdir"], [], b""),
    (["rmdir", "d/sub"], [["rm", "d/sub/y"]], b""),
    (["rmdir", "d"], [], b""),
    (["rmdir", "nx"], [], b""),
    (["rmdir", "a"], [], b""),
    (["rmdir", "--ignore-fail-on-non-empty", "d"], [], b""),
    (["rmdir", "-pv", "e/f/g"], [["mkdir", "-p", "e/f/g"]], b""),
    (["rmdir", "-p", "e/f/g"], [["mkdir", "-p", "e/f/g", "e/h"]], b""),
    (["rmdir"], [], b""),
    # touch
    (["touch", "c"], [], b""),
    (["touch", "-c", "c"], [], b""),
    (["touch", "nx/c"], [], b""),
    (["touch", "-r", "nx", "c"], [], b""),
    (["touch", "-d", "garbage", "c"], [], b""),
    (["touch", "-t", "99", "c"], [], b""),
    (["touch", "-d", "2020-01-01", "-t", "202001010000", "c"], [], b""),
    (["touch"], [], b""),
    (["touch", "--time=bogus", "a"], [], b""),
    # ln
    (["ln", "-s", "a", "c"], [], b""),
    (["ln", "-s", "a", "b"], [], b""),
    (["ln", "-sf", "a", "b"], [], b""),
    (["ln", "-sv", "a", "c"], [], b""),
    (["ln", "-v", "a", "c"], [], b""),
    (["ln", "a", "b"], [], b""),
    (["ln", "nx", "c"], [], b""),
    (["ln", "d", "c"], [], b""),
    (["ln", "-s", "a", "d"], [], b""),
    (["ln", "-s", "x"], [], b""),
    (["ln", "-s", "a", "b", "c"], [], b""),
    (["ln", "-s", "a", "b", "d"], [], b""),
    (["ln", "-t", "nx", "a"], [], b""),
    (["ln", "-t", "a", "b"], [], b""),
    (["ln", "-sT", "a", "d"], [], b""),
    (["ln", "-sr", "d/x", "c"], [], b""),
    (["ln", "-sr", "a", "d/sub/c"], [], b""),
    (["ln", "-snf", "a", "ld"], LINKS, b""),
    (["ln", "-sf", "a", "ld"], LINKS, b""),
    (["ln", "-sf", "a", "a"], [], b""),
    (["ln", "-r", "a", "c"], [], b""),
    (["ln"], [], b""),
    # chmod (as the owner)
    (["chmod", "600", "a"], [], b""),
    (["chmod", "-v", "600", "a"], [], b""),
    (["chmod", "-c", "644", "a", "b"], [], b""),
    (["chmod", "-c", "600", "a"], [], b""),
    (["chmod", "u+x,go-w", "a"], [], b""),
    (["chmod", "a=r", "a"], [], b""),
    (["chmod", "-R", "+X", "d"], [], b""),
    (["chmod", "-Rv", "go-rx", "r"], [], b""),
    (["chmod", "-R", "go-rx", "d"], [], b""),
    (["chmod", "g=u", "a"], [], b""),
    (["chmod", "-w", "a"], [], b""),
    (["chmod", "-x,u+w", "a"], [], b""),
    (["chmod", "4755", "a"], [], b""),
    (["chmod", "-v", "2755", "d"], [], b""),
    (["chmod", "u+s,o+t", "d"], [], b""),
    (["chmod", "--reference=d", "a"], [], b""),
    (["chmod", "--reference=nx", "a"], [], b""),
    (["chmod", "644", "nx"], [], b""),
    (["chmod", "u+q", "a"], [], b""),
    (["chmod", "7777x", "a"], [], b""),
    (["chmod"], [], b""),
    (["chmod", "644"], [], b""),
    (["chmod", "-Rv", "700", "r", "lr"], LINKS, b""),
    (["chmod", "-v", "600", "la"], LINKS, b""),
    (["chmod", "-f", "644", "nx"], [], b""),
    # truncate
    (["truncate", "-s", "3", "a"], [], b""),
    (["truncate", "-s", "+3", "a"], [], b""),
    (["truncate", "-s", "-2", "a"], [], b""),
    (["truncate", "-s", "<3", "a"], [], b""),
    (["truncate", "-s", ">10", "a"], [], b""),
    (["truncate", "-s", "%4", "a"], [], b""),
    (["truncate", "-s", "/4", "a"], [], b""),
    (["truncate", "-s", "1K", "c"], [], b""),
    (["truncate", "-s", "1KB", "c"], [], b""),
    (["truncate", "-c", "-s", "5", "c"], [], b""),
    (["truncate", "-s", "x", "a"], [], b""),
    (["truncate", "a"], [], b""),
    (["truncate", "-s", "1"], [], b""),
    (["truncate", "-s", "5", "nx/c"], [], b""),
    (["truncate", "-s", "0", "d"], [], b""),
    (["truncate", "-r", "a", "c"], [], b""),
    (["truncate", "-r", "a", "-s", "+1", "c"], [], b""),
    (["truncate", "-r", "a", "-s", "5", "c"], [], b""),
    (["truncate", "-o", "-s", "1", "c"], [], b""),
    # install
    (["install", "a", "c"], [], b""),
    (["install", "-v", "-m", "644", "a", "c"], [], b""),
    (["install", "-d", "-v", "e/f", "g"], [], b""),
    (["install", "-d", "-m", "700", "e/f"], [], b""),
    (["install", "-D", "-v", "a", "e/f/g"], [], b""),
    (["install", "-t", "d", "-v", "a", "b"], [], b""),
    (["install", "-Dt", "e/f", "a"], [], b""),
    (["install", "a"], [], b""),
    (["install", "nx", "c"], [], b""),
    (["install", "d", "c"], [], b""),
    (["install", "-m", "bad", "a", "c"], [], b""),
    (["install", "-t", "nx", "a"], [], b""),
    (["install", "a", "b", "nx"], [], b""),
    (["install", "-d"], [], b""),
    (["install", "-C", "a", "b"], [], b""),
    # shred, sync
    (["shred", "-u", "a"], [], b""),
    (["shred", "-v", "-u", "-n", "1", "it's"], [], b""),
    (["shred", "nx"], [], b""),
    (["shred", "d"], [], b""),
    (["shred"], [], b""),
    (["shred", "-u", "-z", "-n", "0", "-v", "d/x"], [], b""),
    (["sync"], [], b""),
    (["sync", "nx"], [], b""),
    (["sync", "a", "d"], [], b""),
]


@pytest.mark.parametrize(
    "argv,setup,stdin", CASES, ids=[" ".join(c[0]) + f" <{i}>" for i, c in enumerate(CASES)]
)
def test_matches_gnu(argv: list[str], setup: list[list[str]], stdin: bytes) -> None:
    compare(argv, F, setup, stdin)


def test_shred_overwrites_then_keeps_size() -> None:
    vfs = make_vfs({"a": "secret data\n"})
    r = run_command(["shred", "-n", "2", "-z", "-x", "a"], vfs=vfs)
    assert r.status == 0
    assert vfs.view("/home/user").read_bytes("a") == bytes(12)
    r = run_command(["shred", "-s", "3", "a"], vfs=vfs)
    assert r.status == 0 and vfs.view("/home/user").stat("a").size == 12


def test_shred_rounds_up_to_a_block() -> None:
    vfs = make_vfs({"a": "x"})
    run_command(["shred", "a"], vfs=vfs)
    assert vfs.view("/home/user").stat("a").size == 4096


# ------------------------------------------------------------ fixed expectations


def _root_owned(vfs: Vfs, *paths: str) -> None:
    for p in paths:
        vfs.backend.chown(p, 0, 0)


def test_rm_refuses_root() -> None:
    r = run_command(["rm", "-rf", "/"])
    assert r.status == 1
    assert r.stderr == (
        b"rm: it is dangerous to operate recursively on '/'\n"
        b"rm: use --no-preserve-root to override this failsafe\n"
    )
    r = run_command(["rm", "-r", "//"])
    assert r.stderr.startswith(b"rm: it is dangerous to operate recursively on '//' (same as '/')\n")
    r = run_command(["chmod", "-R", "--preserve-root", "755", "/"])
    assert r.status == 1 and b"dangerous" in r.stderr


@pytest.mark.parametrize(
    "argv,message",
    [
        (["chown", "root", "f"], b"chown: changing ownership of 'f': Operation not permitted\n"),
        (["chown", ":root", "f"], b"chown: changing group of 'f': Operation not permitted\n"),
        (["chgrp", "root", "f"], b"chgrp: changing group of 'f': Operation not permitted\n"),
        (["chmod", "644", "r"], b"chmod: changing permissions of 'r': Operation not permitted\n"),
        (["chown", "nosuch", "f"], b"chown: invalid user: \xe2\x80\x98nosuch\xe2\x80\x99\n"),
        (["chgrp", "nosuch", "f"], b"chgrp: invalid group: \xe2\x80\x98nosuch\xe2\x80\x99\n"),
        (["chown", "user:nosuch", "f"], b"chown: invalid group: \xe2\x80\x98user:nosuch\xe2\x80\x99\n"),
    ],
)
def test_unprivileged_user_cannot_give_files_away(argv: list[str], message: bytes) -> None:
    vfs = make_vfs({"f": "x", "r": "y"})
    _root_owned(vfs, "/home/user/r")
    r = run_command(argv, vfs=vfs)
    assert (r.stderr, r.status) == (message, 1)
    assert vfs.view("/").stat("/home/user/f").uid == 1000


def test_chown_to_self_and_verbose_wording() -> None:
    vfs = make_vfs({"f": "x"})
    r = run_command(["chown", "-v", "user:user", "f"], vfs=vfs)
    assert (r.stdout, r.status) == (b"ownership of 'f' retained as user:user\n", 0)
    r = run_command(["chgrp", "-v", "1000", "f"], vfs=vfs)
    assert r.stdout == b"group of 'f' retained as user\n"
    r = run_command(["chown", "-c", "user", "f"], vfs=vfs)
    assert r.stdout == b""
    r = run_command(["chown", "-v", "root", "f"], vfs=vfs)
    assert r.stdout == b"failed to change ownership of 'f' from user to root\n"


def test_chmod_umask_surprise() -> None:
    vfs = make_vfs({"f": "x"})
    run_command(["chmod", "666", "f"], vfs=vfs)
    r = run_command(["chmod", "-w", "f"], vfs=vfs)
    assert r.status == 1
    assert r.stderr == b"chmod: f: new permissions are r--rw-rw-, not r--r--r--\n"


def test_permission_denied_messages() -> None:
    vfs = make_vfs({"ro/f": "x", "a": "y"})
    run_command(["chmod", "555", "ro"], vfs=vfs)
    r = run_command(["rm", "ro/f"], vfs=vfs)
    assert r.stderr == b"rm: cannot remove 'ro/f': Permission denied\n"
    r = run_command(["cp", "a", "ro/g"], vfs=vfs)
    assert r.stderr == b"cp: cannot create regular file 'ro/g': Permission denied\n"
    r = run_command(["mkdir", "ro/d"], vfs=vfs)
    assert r.stderr == "mkdir: cannot create directory ‘ro/d’: Permission denied\n".encode()
    r = run_command(["touch", "ro/t"], vfs=vfs)
    assert r.stderr == b"touch: cannot touch 'ro/t': Permission denied\n"
    run_command(["chmod", "444", "a"], vfs=vfs)
    r = run_command(["truncate", "-s", "0", "a"], vfs=vfs)
    assert r.stderr == b"truncate: cannot open 'a' for writing: Permission denied\n"
    r = run_command(["shred", "a"], vfs=vfs)
    assert r.stderr == b"shred: a: failed to open for writing: Permission denied\n"
    # rm without a terminal removes write-protected files without asking
    r = run_command(["rm", "a"], vfs=vfs)
    assert (r.status, r.stderr) == (0, b"")


def _fixed_vfs(now: float) -> Vfs:
    vfs = Vfs(clock=lambda: now)
    view = vfs.view("/")
    for d in ("/tmp", "/home/user"):
        view.mkdir(d, parents=True)
    return vfs


@pytest.mark.parametrize(
    "date,expected",
    [
        ("@1700000000", 1700000000.0),
        ("@1700000000.25", 1700000000.25),
        ("2024-01-02", 1704153600.0),
        ("2024-01-02 03:04:05", 1704164645.0),
        ("2024-01-02T03:04:05Z", 1704164645.0),
        ("2024-01-02 03:04:05.5 +0100", 1704161045.5),
        ("20240102", 1704153600.0),
        ("Jan 2 2020", 1577923200.0),
        ("2 Jan 2020", 1577923200.0),
        ("yesterday", 1699913600.0),
        ("2 days ago", 1699827200.0),
        ("1 hour ago", 1699996400.0),
        ("2024-01-02 +3 days", 1704412800.0),
        ("now", 1700000000.0),
    ],
)
def test_touch_dates(date: str, expected: float) -> None:
    vfs = _fixed_vfs(1700000000.0)
    r = run_command(["touch", "-d", date, "f"], vfs=vfs, cwd="/home/user")
    assert r.status == 0, r.stderr
    st = vfs.view("/home/user").stat("f")
    assert (st.mtime, st.atime) == (expected, expected)


def test_touch_stamps_and_reference() -> None:
    vfs = _fixed_vfs(1700000000.0)
    run_command(["touch", "-t", "202401020304.05", "f"], vfs=vfs)
    view = vfs.view("/home/user")
    assert view.stat("f").mtime == 1704164645.0
    run_command(["touch", "-t", "2401020304", "g"], vfs=vfs)
    assert view.stat("g").mtime == 1704164640.0
    run_command(["touch", "-m", "-d", "@5", "g"], vfs=vfs)
    assert (view.stat("g").mtime, view.stat("g").atime) == (5.0, 1704164640.0)
    run_command(["touch", "-a", "-r", "f", "g"], vfs=vfs)
    assert view.stat("g").atime == 1704164645.0
    run_command(["touch", "-r", "f", "-d", "+1 hour", "h"], vfs=vfs)
    assert view.stat("h").mtime == 1704164645.0 + 3600


def test_mktemp() -> None:
    vfs = make_vfs()
    r = run_command(["mktemp"], vfs=vfs)
    name = r.stdout.decode().strip()
    assert r.status == 0 and name.startswith("/tmp/tmp.") and len(name) == len("/tmp/tmp.") + 10
    st = vfs.view("/").stat(name)
    assert st.is_file and st.perm == 0o600
    r = run_command(["mktemp", "-d", "-p", "/home/user", "work.XXXX"], vfs=vfs)
    name = r.stdout.decode().strip()
    assert name.startswith("/home/user/work.") and vfs.view("/").stat(name).perm == 0o700
    r = run_command(["mktemp", "-u", "--suffix=.txt"], vfs=vfs)
    assert r.stdout.decode().strip().endswith(".txt")
    r = run_command(["mktemp", "-t", "aXXXX"], vfs=vfs, env={"TMPDIR": "/home/user"})
    assert r.stdout.startswith(b"/home/user/a")
    r = run_command(["mktemp", "-u", "fooXXXbar"], vfs=vfs)
    assert r.stdout.startswith(b"foo") and r.stdout.endswith(b"bar\n")


@pytest.mark.parametrize(
    "argv,message",
    [
        (["mktemp", "foo"], "mktemp: too few X's in template ‘foo’\n"),
        (["mktemp", "a", "b"], "mktemp: too many templates\nTry 'mktemp --help' for more information.\n"),
        (["mktemp", "-u", "a/XXXX/b"], "mktemp: invalid suffix ‘/b’, contains directory separator\n"),
        (
            ["mktemp", "-p", "/nx"],
            "mktemp: failed to create file via template ‘/nx/tmp.XXXXXXXXXX’: No such file or directory\n",
        ),
        (
            ["mktemp", "-d", "-p", "/nx"],
            "mktemp: failed to create directory via template ‘/nx/tmp.XXXXXXXXXX’: "
            "No such file or directory\n",
        ),
        (["mktemp", "-t", "a/bXXX"], "mktemp: invalid template, ‘a/bXXX’, contains directory separator\n"),
        (
            ["mktemp", "--tmpdir", "/abs/XXXX"],
            "mktemp: invalid template, ‘/abs/XXXX’; with --tmpdir, it may not be absolute\n",
        ),
    ],
)
def test_mktemp_errors(argv: list[str], message: str) -> None:
    r = run_command(argv)
    assert (r.stderr.decode(), r.status) == (message, 1)


def test_mktemp_uses_the_seeded_rng() -> None:
    a = run_command(["mktemp", "-u"]).stdout
    b = run_command(["mktemp", "-u"]).stdout
    assert a != b


def test_cp_preserves_with_p_and_hard_links_with_a() -> None:
    vfs = _fixed_vfs(1700000000.0)
    view = vfs.view("/home/user")
    view.write_bytes("a", b"x")
    view.chmod("a", 0o751)
    view.utime("a", 100 * 10**9, 200 * 10**9)
    view.mkdir("d")
    view.write_bytes("d/one", b"1")
    view.link("d/one", "d/two")
    run_command(["cp", "-p", "a", "b"], vfs=vfs)
    st = view.stat("b")
    assert (st.perm, st.atime, st.mtime) == (0o751, 100.0, 200.0)
    run_command(["cp", "a", "c"], vfs=vfs)
    assert view.stat("c").perm == 0o751 & ~0o022
    run_command(["cp", "-a", "d", "e"], vfs=vfs)
    assert view.stat("e/one").ino == view.stat("e/two").ino
    run_command(["cp", "-r", "d", "f"], vfs=vfs)
    assert view.stat("f/one").ino != view.stat("f/two").ino


def test_cp_update_and_device_rules() -> None:
    vfs = _fixed_vfs(1700000000.0)
    view = vfs.view("/home/user")
    view.write_bytes("new", b"new")
    view.write_bytes("old", b"old")
    view.utime("old", 10**9, 10**9)
    run_command(["cp", "-u", "old", "new"], vfs=vfs)
    assert view.read_bytes("new") == b"new"
    run_command(["cp", "-u", "new", "old"], vfs=vfs)
    assert view.read_bytes("old") == b"new"
    r = run_command(["cp", "/dev/null", "empty"], vfs=vfs)
    assert r.status == 0 and view.read_bytes("empty") == b""
    r = run_command(["cp", "-r", "/dev/null", "dev"], vfs=vfs)
    assert r.stderr == b"cp: cannot create special file 'dev': Operation not permitted\n"


def test_cp_symlinks_relative_only_in_cwd() -> None:
    r = run_command(["cp", "-s", "a", "d/l"], files={"a": "x", "d/k": ""})
    assert r.stderr == b"cp: d/l: can make relative symbolic links only in current directory\n"


def test_mv_into_non_empty_directory() -> None:
    vfs = make_vfs({"x/e/q": "", "a/b": ""})
    run_command(["mkdir", "e"], vfs=vfs)
    r = run_command(["mv", "e", "x"], vfs=vfs)
    assert r.stderr == b"mv: cannot move 'e' to 'x/e': Directory not empty\n" and r.status == 1


def test_install_ownership_needs_root() -> None:
    r = run_command(["install", "-o", "root", "a", "b"], files={"a": "x"})
    assert r.status == 1
    assert r.stderr == b"install: cannot change ownership of 'b': Operation not permitted\n"
