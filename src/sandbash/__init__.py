"""sandbash: bash, in Python, in a sandbox.

    from sandbash import Bash
    result = Bash().exec("echo hello | tr a-z A-Z")
    print(result.stdout)
"""

from .api import Bash, ExecResult, Session
from .audit import Audit
from .errors import ExecutionCancelled, ExecutionLimitError, SandbashError
from .interp.runtime import Identity
from .limits import CancelToken, Limits
from .net.config import Credential, NetworkConfig
from .policy import Policy

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
