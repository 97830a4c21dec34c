"""sandbash: bash, in Python, in a sandbox.

from sandbash import Bash
result = Bash().exec("echo hello | tr a-z A-Z")
print(result.stdout)
"""

from typing import TYPE_CHECKING, Any

from .api import Bash, ExecResult, Session
from .errors import ExecutionCancelled, ExecutionLimitError, SandbashError
from .interp.runtime import Identity
from .limits import CancelToken, Limits

if TYPE_CHECKING:
    from .audit import Audit
    from .net.config import Credential, NetworkConfig
    from .policy import Policy

# imported on first use: a script run without a policy, an audit or the network does not need them
_LAZY = {
    "Audit": "audit",
    "Credential": "net.config",
    "NetworkConfig": "net.config",
    "Policy": "policy",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "Audit",
    "Bash",
    "CancelToken",
    "Credential",
    "ExecResult",
    "ExecutionCancelled",
    "ExecutionLimitError",
    "Identity",
    "Limits",
    "NetworkConfig",
    "Policy",
    "SandbashError",
    "Session",
]
__version__ = "0.1.0"
