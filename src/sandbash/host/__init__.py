"""Host mode: bounded inspection and remediation of the real machine under the policy.

`HostAccess` is the opt-in (`Bash(host=HostAccess(paths=["/var/log:ro"]))`); `procfs` is the
only module here that reads the host; `services` holds the systemctl backend protocol and a
test backend; `elevation` the `sudo` marker's callback types."""

from ..policy import ServiceGrant
from .access import HostAccess, Pinger, PingReply, PingRequest
from .elevation import Elevate, ElevationRefused, ElevationRequest, ElevationResult
from .services import ServiceBackend, ServiceError, ServiceStatus, TestServiceBackend, UnitNotFound

__all__ = ["Elevate", "ElevationRefused", "ElevationRequest", "ElevationResult", "HostAccess", "PingReply",
           "PingRequest", "Pinger", "ServiceBackend", "ServiceError", "ServiceGrant", "ServiceStatus",
           "TestServiceBackend", "UnitNotFound"]
