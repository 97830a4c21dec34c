"""mount: the sandbox's mount table in util-linux's format; mounting is refused."""

from __future__ import annotations

import pytest

from sandbash.commands.context import CommandExit, Ctx
from sandbash.commands.mountcmd import cmd_mount
from sandbash.limits import Budget, Limits
from sandbash.stdio.streams import BufferWriter, BytesReader
from sandbash.testing import make_vfs
from sandbash.vfs.facade import Vfs
from sandbash.vfs.memory import MemoryFs


def _vfs() -> Vfs:
    vfs = make_vfs()
    vfs.tree.mount("/mnt/data", MemoryFs(), read_only=True)
    vfs.tree.mount("/srv", MemoryFs(), source="/host/secret/dir", fstype="hostfs")
    return vfs


def mount(*args: str) -> tuple[str, str, int]:
    # called directly: `mount` is registered by the lead (registry.py)
    out, err = BufferWriter(), BufferWriter()
    ctx = Ctx(
        "mount", list(args), BytesReader(b""), out, err, _vfs().view("/home/user"), {}, Budget(Limits())
    )
    try:
        status = cmd_mount(ctx)
    except CommandExit as e:
        status = e.status
    return out.getvalue().decode(), err.getvalue().decode(), status


TABLE = (
    "sandbox on / type tmpfs (rw,relatime)\n"
    "udev on /dev type devtmpfs (rw,relatime)\n"
    "sandbox on /mnt/data type tmpfs (ro,relatime)\n"
    "hostfs on /srv type hostfs (rw,relatime)\n"
)


@pytest.mark.parametrize(
    "args, out, err, status",
    [
        ([], TABLE, "", 0),
        (["-l"], TABLE, "", 0),
        (["-t", "devtmpfs"], "udev on /dev type devtmpfs (rw,relatime)\n", "", 0),
        (["-t", "notmpfs,hostfs"], "udev on /dev type devtmpfs (rw,relatime)\n", "", 0),
        (["-a"], "", "", 0),
        (["x"], "", "mount: x: can't find in /etc/fstab.\n", 1),
        (["-o", "ro", "/dev/sda1", "/mnt"], "", "mount: /mnt: must be superuser to use mount.\n", 32),
        (["a", "b", "c"], "", "mount: bad usage\nTry 'mount --help' for more information.\n", 1),
        (["-q"], "", "mount: invalid option -- 'q'\nTry 'mount --help' for more information.\n", 1),
        (["-V"], "mount from util-linux 2.38.1 (libmount 2.38.1: namespaces, assert, debug)\n", "", 0),
    ],
)
def test_mount(args: list[str], out: str, err: str, status: int) -> None:
    assert mount(*args) == (out, err, status)


def test_host_paths_never_shown() -> None:
    assert "/host" not in mount()[0]
