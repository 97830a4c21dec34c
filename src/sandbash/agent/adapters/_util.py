"""What the adapters share: reading SDK objects or plain dicts alike."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def field(obj: object, name: str, default: Any = None) -> Any:
    """`obj[name]` for a mapping, `obj.name` for an SDK model; `default` when absent."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)
