"""`HostAccess`: the explicit opt-in to host mode (`Bash(host=HostAccess(...))`).

Granted host directories are mounted at their real paths over the in-memory sandbox (read-only
unless the grant is `:rw`; the policy's mode still decides writes: `:rw` writes need remediation
mode), everything else stays virtual, and the inspection commands (ps, ss, ip, free, systemctl,
sudo, ping; uname, uptime and df with the host's values) exist. Without a HostAccess none of this
is reachable.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..interp.runtime import Identity
from ..policy import PathGrant, Policy, ServiceGrant, normpath, path_grant_warnings
from .elevation import Elevate
from .procfs import ProcFs
from .services import Pinger, ServiceBackend

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..limits import Limits


@dataclass(frozen=True)
class HostAccess:
    """paths: grants such as "/var/log:ro", "/srv/app:rw" (rshell's syntax). proc_path/sys_path:
    where the inspection commands read (a recorded tree in tests). service_backend: what performs
    systemctl (the embedder's; `TestServiceBackend` for tests); allowed_services and
    elevatable_commands add to the policy's. elevate: the callback behind `sudo`. pinger: what
    sends ICMP echo requests for `ping` (refused without one)."""

    paths: tuple[str, ...] = ()
    proc_path: str = "/proc"
    sys_path: str = "/sys"
    service_backend: ServiceBackend | None = None
    allowed_services: tuple[ServiceGrant | str, ...] = ()
    elevatable_commands: tuple[str, ...] = ()
    elevate: Elevate | None = None
    pinger: Pinger | None = None
    self_pid: int | None = None  # the process `ps` shows the session of (default: this one)

    def __post_init__(self) -> None:
        for name in ("paths", "allowed_services", "elevatable_commands"):
            value = getattr(self, name)
            if isinstance(value, str):
                value = (value,)
            object.__setattr__(self, name, tuple(value))
        for spec in self.paths:
            PathGrant.parse(spec)  # a malformed grant is a configuration error now, not at run time
        for s in self.allowed_services:
            if not isinstance(s, ServiceGrant):
                ServiceGrant.parse(s)

    @property
    def procfs(self) -> ProcFs:
        return ProcFs(self.proc_path, self.sys_path, self_pid=self.self_pid)

    def grants(self) -> list[PathGrant]:
        return [PathGrant.parse(p) for p in self.paths]

    def roots(self) -> list[str]:
        """The granted roots that exist as directories (ALLOWED_PATHS, df)."""
        kind = ProcFs.path_kind
        return [g.path for g in self.grants() if kind(g.path) == "dir"]

    def configure(
        self, fs: Any, policy: Policy | None, identity: Identity | None, limits: Limits
    ) -> tuple[Any, Policy, Identity, list[str]]:
        """(filesystem, policy, identity, warnings) for a Bash in host mode: the grants mounted
        over `fs` (a MemoryFs by default), added to the policy's grants with the services and
        elevatable commands; the identity with the host's uname; rshell's grant warnings."""
        warnings = path_grant_warnings(self.paths, ProcFs.path_kind)
        ident = identity if identity is not None else Identity()
        fs = self._mount(fs, limits, ident.uid, ident.gid)
        base = policy if policy is not None else Policy()
        grants = None if base.grants is None else [*base.grants, *self.grants()]
        services = [*base.services, *self.allowed_services]
        elevatable = sorted({*(base.elevatable or ()), *self.elevatable_commands})
        policy = base.replace(paths=grants, services=services, elevatable_commands=elevatable)
        return fs, policy, host_identity(identity, self.procfs), warnings

    def _mount(self, fs: Any, limits: Limits, uid: int, gid: int) -> Any:
        from ..vfs import MountFs
        from ..vfs.facade import Vfs
        from ..vfs.memory import MemoryFs
        from ..vfs.quota import DiskQuota

        if fs is None:
            fs = MemoryFs(quota=DiskQuota(limits.max_filesystem_bytes, limits.max_filesystem_files))
        if isinstance(fs, Vfs):  # a ready Vfs: the grants go into its own mount table (a MountFs)
            self._mount_grants(fs.tree, uid, gid)
            return fs
        if not isinstance(fs, MountFs):
            fs = MountFs(fs)
        self._mount_grants(fs, uid, gid)
        return fs

    def _mount_grants(self, fs: Any, uid: int, gid: int) -> None:
        from ..vfs.overlay import OverlayFs
        from ..vfs.readwrite import ReadWriteFs

        for g in sorted(self.grants(), key=lambda g: len(g.path)):
            if ProcFs.path_kind(g.path) != "dir":
                continue  # skipped, with a warning (configure)
            host = ProcFs.real_path(g.path)
            backend = ReadWriteFs(host) if g.writable else OverlayFs(host, read_only=True)
            where = normpath(g.path)
            _make_parents(fs, where, uid, gid)
            fs.mount(where, backend, read_only=not g.writable)


def _make_parents(fs: Any, where: str, uid: int, gid: int) -> None:
    """The directories above a mount point, made in the sandbox's own filesystem first: else
    the mount shows them as empty read-only directories (a grant under /tmp would leave the
    sandbox's /tmp read-only)."""
    from ..vfs.errors import FsError

    path = ""
    for part in where.strip("/").split("/")[:-1]:
        path += "/" + part
        try:
            fs.mkdir(path, 0o755, uid, gid)
        except FsError:
            pass  # it exists (or cannot be made: the mount still shows it)


@dataclass(frozen=True, slots=True)
class HostIdentity(Identity):
    """The sandbox's user on the host's kernel: what uname, hostname, arch and nproc show."""

    kernel: str = "Linux"
    release: str = ""
    version: str = ""
    machine: str = ""
    os: str = "GNU/Linux"
    nproc: int = 1


def host_identity(base: Identity | None, procfs: ProcFs) -> Identity:
    """The identity the commands see in host mode: the sandbox's user, the host's uname."""
    from dataclasses import asdict

    ident = base if base is not None else Identity()
    u = procfs.uname()
    values = asdict(ident)
    for k in ("kernel", "release", "version", "machine", "os", "nproc"):
        values.pop(k, None)
    values["hostname"] = u.nodename
    return HostIdentity(
        **values,
        kernel=u.sysname,
        release=u.release,
        version=u.version,
        machine=u.machine,
        os="GNU/Linux" if u.sysname == "Linux" else u.sysname,
        nproc=procfs.cpu_count(),
    )
