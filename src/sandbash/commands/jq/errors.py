"""Exceptions that carry jq's control flow and failures."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class JqError(Exception):
    """A jq runtime error; `value` is what `try ... catch` receives."""

    def __init__(self, value: Any) -> None:
        super().__init__(value)
        self.value = value


class BreakSignal(Exception):
    """`break $label`: unwinds to the `label` whose token matches."""

    def __init__(self, token: object) -> None:
        super().__init__()
        self.token = token


class HaltSignal(Exception):
    """`halt` / `halt_error`: stop the program with a status."""

    def __init__(self, status: int, message: Any = None, has_message: bool = False) -> None:
        super().__init__(status)
        self.status = status
        self.message = message
        self.has_message = has_message


class CompileError(Exception):
    """A syntax or compile error; `message` is the text after `jq: error: `."""

    def __init__(self, message: str, location: str = "", pos: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.pos = pos
