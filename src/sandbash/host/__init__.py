"""Host mode: bounded inspection and remediation of the real machine under the policy.

`HostAccess` is the opt-in (`Bash(host=HostAccess(paths=["/var/log:ro"]))`); `procfs` is the
only module here that reads the host; `services` holds the backends the embedder provides
(systemctl's `ServiceBackend`, ping's `Pinger`) and a test backend; `elevation` the `sudo`
marker's callback types. Names load lazily: a command reading /proc through `host.procfs`
does not pull in `HostAccess` (and with it the policy and the interpreter's identity)."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..policy import ServiceGrant
    from .access import HostAccess
    from .elevation import Elevate, ElevationRefused, ElevationRequest, ElevationResult
    from .services import (
        Pinger,
        PingReply,
        PingRequest,
        ServiceBackend,
        ServiceError,
        ServiceStatus,
        TestServiceBackend,
        UnitNotFound,
    )

_WHERE = {
    "HostAccess": ".access",
    "ServiceGrant": "..policy",
    "Elevate": ".elevation",
    "ElevationRefused": ".elevation",
    "ElevationRequest": ".elevation",
    "ElevationResult": ".elevation",
    "Pinger": ".services",
    "PingReply": ".services",
    "PingRequest": ".services",
    "ServiceBackend": ".services",
    "ServiceError": ".services",
    "ServiceStatus": ".services",
    "TestServiceBackend": ".services",
    "UnitNotFound": ".services",
}
__all__ = [
    "Elevate",
    "ElevationRefused",
    "ElevationRequest",
    "ElevationResult",
    "HostAccess",
    "PingReply",
    "PingRequest",
    "Pinger",
    "ServiceBackend",
    "ServiceError",
    "ServiceGrant",
    "ServiceStatus",
    "TestServiceBackend",
    "UnitNotFound",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'sandbash.host' has no attribute {name!r}")
    return getattr(importlib.import_module(where, __name__), name)
