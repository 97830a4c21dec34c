"""The backends the embedder provides in host mode, and what sandbash knows about them.

systemctl: the `ServiceBackend` protocol (D-Bus, the embedder's agent API) and a test backend;
sandbash never talks to systemd itself: it decides (`Policy.service_decision`), parses and prints.
ping: ICMP needs a raw socket, which sandbash never opens: the embedder's `Pinger` sends the echo
requests (`PingRequest` -> `PingReply`s). This module sits low (with the filesystem backends), so
commands and the policy both read its names."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

SERVICE_READS = ("status", "is-active", "is-enabled")
SERVICE_WRITES = ("start", "stop", "restart", "reload")  # need remediation mode
SERVICE_ACTIONS = SERVICE_READS + SERVICE_WRITES
UNIT_SUFFIXES = (".service", ".socket", ".timer", ".target", ".mount", ".path", ".slice", ".scope")


@dataclass(frozen=True)
class PingRequest:
    host: str  # as the script wrote it
    address: str  # the address it resolved to
    count: int
    interval: float
    timeout: float  # seconds to wait for each reply


@dataclass(frozen=True)
class PingReply:
    seq: int
    rtt_ms: float | None  # None: no reply in time
    ttl: int = 64
    size: int = 64


Pinger = Callable[[PingRequest], Iterable[PingReply]]


class ServiceError(Exception):
    """An action the backend could not perform; the message is shown after `systemctl: `."""


class UnitNotFound(ServiceError):
    pass


@dataclass(frozen=True)
class ServiceStatus:
    """What `systemctl status` shows about one unit."""

    unit: str
    description: str = ""
    load_state: str = "loaded"  # loaded | not-found | masked
    active_state: str = "inactive"  # active | inactive | failed | activating | deactivating
    sub_state: str = "dead"  # running | exited | dead | failed ...
    enabled: str = "disabled"  # enabled | disabled | static | masked
    fragment_path: str = ""
    main_pid: int | None = None
    since: str = ""  # as the backend formats it ("Wed 2026-12-02 06:00:00 UTC")


@runtime_checkable
class ServiceBackend(Protocol):
    def status(self, unit: str) -> ServiceStatus:
        """The unit's state; raises UnitNotFound for a unit the manager does not know."""
        ...

    def act(self, unit: str, action: str) -> None:
        """start | stop | restart | reload; raises ServiceError when the job fails."""
        ...


@dataclass
class TestServiceBackend:
    """An in-memory service manager for tests and examples: units with a state, actions that
    change it, and a record of every action asked (`calls`). `fail` names units whose jobs fail."""

    units: dict[str, ServiceStatus] = field(default_factory=dict)
    fail: set[str] = field(default_factory=set)
    calls: list[tuple[str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    __test__ = False  # not a pytest class

    @classmethod
    def with_units(cls, *units: ServiceStatus | str, fail: Iterable[str] = ()) -> TestServiceBackend:
        table = {}
        for u in units:
            st = (
                u
                if isinstance(u, ServiceStatus)
                else ServiceStatus(
                    u,
                    description=u.split(".")[0],
                    active_state="active",
                    sub_state="running",
                    enabled="enabled",
                    main_pid=1000,
                )
            )
            table[st.unit] = st
        return cls(table, set(fail))

    def status(self, unit: str) -> ServiceStatus:
        with self._lock:
            self.calls.append((unit, "status"))
            st = self.units.get(unit)
        if st is None:
            raise UnitNotFound(f"Unit {unit} could not be found.")
        return st

    def act(self, unit: str, action: str) -> None:
        with self._lock:
            self.calls.append((unit, action))
            st = self.units.get(unit)
            if st is None:
                raise UnitNotFound(f"Unit {unit} not found.")
            if unit in self.fail and action != "stop":
                self.units[unit] = replace(st, active_state="failed", sub_state="failed", main_pid=None)
                raise ServiceError(
                    f"Job for {unit} failed because the control process exited with error code."
                )
            if action == "stop":
                self.units[unit] = replace(st, active_state="inactive", sub_state="dead", main_pid=None)
            elif action in ("start", "restart"):
                pid = (st.main_pid or 1000) + 1 if action == "restart" or st.main_pid is None else st.main_pid
                self.units[unit] = replace(st, active_state="active", sub_state="running", main_pid=pid)
            elif action == "reload" and st.active_state != "active":
                raise ServiceError(f"Job for {unit} failed: unit is not active.")
