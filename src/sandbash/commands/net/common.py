"""What curl and wget share: the configuration, the client, input files, waiting."""

from __future__ import annotations

import base64
import time

from ...net.config import NetworkConfig
from ...net.errors import NetError, TimedOut
from ..context import CommandExit, Ctx


def network_config(ctx: Ctx) -> NetworkConfig:
    """The embedding program's grant; without one the executor hides curl and wget,
    so reaching this without it (a direct call) is refused the same way."""
    cfg = ctx.net
    if cfg is None:
        ctx.stderr.write(f"bash: {ctx.name}: command not found\n".encode())
        raise CommandExit(127)
    return cfg


def basic_auth(userpass: str) -> str:
    user, _, password = userpass.partition(":")
    token = f"{user}:{password}".encode("utf-8", "surrogateescape")
    return "Basic " + base64.b64encode(token).decode("ascii")


def timed_out(ctx: Ctx, e: NetError) -> None:
    """A timeout caused by the run's own deadline ends the run, not just the transfer."""
    if isinstance(e, TimedOut):
        ctx.budget.check_time()


def wait(ctx: Ctx, seconds: float) -> None:
    """Sleep between retries without outliving the run's deadline or a cancel."""
    end = time.monotonic() + seconds
    while True:
        ctx.budget.check_time()
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.1, max(ctx.budget.remaining(), 0.0)))
