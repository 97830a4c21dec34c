"""Adapter tests run each framework's real client library; the model service
is replaced by an in-process HTTP handler (the library's own transport hook),
so requests and responses go through the library's real serialization."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Reply = Callable[[dict[str, Any]], dict[str, Any]]


class ScriptedModel:
    """Answers each POST with the next scripted reply; keeps the request bodies."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        import httpx2

        body = json.loads(request.content or b"{}")
        self.requests.append(body)
        reply = self.replies.pop(0)(body)
        return httpx2.Response(200, json=reply)
