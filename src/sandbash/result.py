"""`ExecResult`: what one run produced. Its own module, below `api`, `aio` and `errors`, which all
name it (it was in `api`, which made `api -> aio -> api` and `errors -> api` circles)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from .leanclass import dataclass, field


@dataclass
class ExecResult:
    """What a run produced. `stdout`/`stderr` are text (invalid UTF-8 shown
    as U+FFFD); the exact bytes are in `stdout_bytes`/`stderr_bytes`."""

    stdout_bytes: bytes
    stderr_bytes: bytes
    exit_code: int
    duration: float = 0.0
    events: list[dict[str, object]] = field(default_factory=list)

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.stderr_bytes.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def limit(self) -> str | None:
        """The limit that ended the run (as ExecutionLimitError.limit), from its events."""
        for event in reversed(self.events):
            if event.get("kind") == "limit":
                limit = event.get("limit")
                return limit if isinstance(limit, str) else None
        return None

    def __repr__(self) -> str:
        """Short: the exit code, the head of each stream with its size, the limit if one ended it."""

        def head(data: bytes) -> str:
            text = data[:_REPR_HEAD].decode("utf-8", "replace")
            if len(data) <= _REPR_HEAD:
                return repr(text)
            return f"{text!r}... ({len(data)} bytes)"

        limit = self.limit
        return (
            f"ExecResult(exit_code={self.exit_code}, stdout={head(self.stdout_bytes)}, "
            f"stderr={head(self.stderr_bytes)}" + (f", limit={limit!r}" if limit else "") + ")"
        )


_REPR_HEAD = 80  # bytes of each stream a repr shows
