"""sandbash: bash, in Python, in a sandbox.

from sandbash import Bash
result = Bash().exec("echo hello | tr a-z A-Z")
print(result.stdout)
"""

import gc as _gc

from . import pycache as _pycache

_pycache.install()  # the package's own modules from their cached bytecode (pycache.py)

# The import makes ~100k long-lived objects and no garbage: the collector's passes over them while it
# ran freed nothing and cost ~4% of `sandbash -c 'echo hi'`. It is paused, and what the import made goes
# to the oldest generation at once (freeze then unfreeze moves objects without visiting them), where
# the next full collection looks at it as it would have; a program that froze objects itself is left as it is.
_collecting = _gc.isenabled()
_gc.disable()
try:
    from .api import Bash, ExecResult, Session
    from .errors import ExecutionCancelled, ExecutionLimitError, SandbashError
    from .interp.runtime import Identity
    from .limits import CancelToken, Limits
finally:
    if _collecting:
        if not _gc.get_freeze_count():
            _gc.freeze()
            _gc.unfreeze()
        _gc.enable()
del _collecting

TYPE_CHECKING = False  # (typing is ~2 ms of a start-up: its names are for the type checker only)
if TYPE_CHECKING:
    from typing import Any

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


def __getattr__(name: str) -> "Any":
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # (__import__ with a fromlist gives the submodule; the importlib package is not imported by a run)
    value = getattr(__import__(f"{__name__}.{module}", fromlist=[name]), name)
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
