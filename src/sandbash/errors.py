"""Exception types the embedding program sees, and the exit-status table.

| situation                         | status | in the API                    |
|-----------------------------------|--------|-------------------------------|
| syntax error                      | 2      | ExecResult                    |
| command not found                 | 127    | ExecResult                    |
| found but not executable          | 126    | ExecResult                    |
| refused by policy                 | 126    | ExecResult                    |
| killed by SIGPIPE                 | 141    | ExecResult                    |
| `timeout` command expired         | 124    | ExecResult                    |
| run past its wall-clock limit     | 124    | ExecutionLimitError           |
| any other run limit               | 126    | ExecutionLimitError           |
| cancelled by the embedding program| 130    | ExecutionCancelled            |
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .result import ExecResult


class SandbashError(Exception):
    """Base class of sandbash's public exceptions."""


class ExecutionLimitError(SandbashError):
    """A run went over a limit. `limit` names it (e.g. "max_loop_iterations",
    "timeout"), `value` is its bound, `result` holds the output produced so far."""

    def __init__(self, limit: str, value: float, result: ExecResult, message: str) -> None:
        super().__init__(message)
        self.limit = str(limit)  # a LimitKind reads as its plain name here (str() drops the enum type)
        self.value = value
        self.result = result
        self.message = message


class ExecutionCancelled(SandbashError):
    """The run was cancelled (CancelToken or asyncio cancellation)."""

    def __init__(self, result: ExecResult) -> None:
        super().__init__("sandbash: execution cancelled")
        self.result = result
