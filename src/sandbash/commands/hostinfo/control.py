"""systemctl (through the embedder's service backend) and sudo (the elevation marker): each
action is decided by the run's gate (`Gate.service`, `Gate.elevation`: the policy's rules, then
`decide`, recorded as audit events) before anything reaches the embedder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ...host.elevation import ElevationRefused, ElevationRequest, elevated_env
from ...host.services import SERVICE_ACTIONS, SERVICE_WRITES, ServiceError, ServiceStatus, UnitNotFound
from ..context import CommandExit, Ctx
from ..options import CommandSpec
from ..record import Effects, declare
from .common import fail, host

# what the static check reads: no options, the command from the first operand on
SUDO_SPEC = CommandSpec(
    "sudo",
    "COMMAND [ARG]...",
    "run an elevatable command through the embedder",
    stop_at_operand=True,
    add_help=False,
)
SYSTEMCTL_USAGE = f"""Usage: systemctl COMMAND UNIT
Control the systemd units this policy grants (exact unit and action pairs).
Commands: {", ".join(SERVICE_ACTIONS)}
start, stop, restart and reload need remediation mode.
"""


class _Decision(Protocol):
    allowed: bool
    rule: str
    reason: str


class _Gate(Protocol):
    """The run's policy gate (sandbash.policy.Gate), handed over in the context."""

    def service(self, unit: str, action: str, argv: Sequence[str]) -> _Decision: ...

    def elevation(self, argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> _Decision: ...


def _gate(ctx: Ctx) -> _Gate:
    gate = ctx.extra.get("gate")
    if gate is None:  # host mode always has a policy (HostAccess.configure makes one): refuse
        raise fail(ctx, "no policy decides host actions here", 126)
    return gate  # type: ignore[no-any-return]


@declare("systemctl", effects=Effects.NONE, host_only=True, summary="control the granted systemd units")
def cmd_systemctl(ctx: Ctx) -> int:
    words = [a for a in ctx.args if a not in ("--no-pager", "--quiet", "-q", "--no-legend")]
    quiet = any(a in ("--quiet", "-q") for a in ctx.args)
    if words[:1] in (["--help"], ["-h"]):
        ctx.out(SYSTEMCTL_USAGE)
        return 0
    odd = [a for a in words if a.startswith("-")]
    if odd:
        raise fail(ctx, f"unrecognized option '{odd[0]}'")
    if len(words) < 2:
        raise fail(ctx, "expected a command and a unit: systemctl COMMAND UNIT")
    action, units = words[0], words[1:]
    if action not in SERVICE_ACTIONS:
        raise fail(ctx, f"unknown command verb '{action}' (allowed: {', '.join(SERVICE_ACTIONS)})")
    backend = host(ctx).service_backend
    status = 0
    for name in units:
        unit = name if "." in name else f"{name}.service"  # as systemctl completes a bare name
        decision = _gate(ctx).service(unit, action, [ctx.name, *ctx.args])
        if not decision.allowed:
            ctx.error(f"{action} {unit}: not allowed by policy [policy: {decision.rule}] ({decision.reason})")
            status = max(status, 126)
            continue
        if backend is None:
            raise fail(ctx, "service control is not configured (no service backend)")
        status = max(status, _one(ctx, backend, action, unit, quiet))
    return status


def _one(ctx: Ctx, backend: object, action: str, unit: str, quiet: bool) -> int:
    try:
        if action in SERVICE_WRITES:
            backend.act(unit, action)  # type: ignore[attr-defined]
            return 0
        st: ServiceStatus = backend.status(unit)  # type: ignore[attr-defined]
    except UnitNotFound as e:
        if action in SERVICE_WRITES:
            ctx.stderr.write(f"Failed to {action} {unit}: {e}\n".encode())
            return 5
        if action == "status":
            ctx.stderr.write(f"{e}\n".encode())
            return 4
        if not quiet:
            ctx.out("inactive\n" if action == "is-active" else "not-found\n")
        return 3 if action == "is-active" else 4
    except ServiceError as e:
        ctx.stderr.write(f"{e}\n".encode())
        return 1
    except Exception as e:  # the embedder's backend broke (a D-Bus error): a message, never a traceback
        ctx.error(f"{action} {unit}: the service backend failed: {type(e).__name__}: {e}")
        return 1
    if action == "is-active":
        if not quiet:
            ctx.out(st.active_state + "\n")
        return 0 if st.active_state == "active" else 3
    if action == "is-enabled":
        if not quiet:
            ctx.out(st.enabled + "\n")
        return 0 if st.enabled in ("enabled", "static", "alias") else 1
    _status(ctx, st)
    return 0 if st.active_state == "active" else 3


def _status(ctx: Ctx, st: ServiceStatus) -> None:
    dot = "●" if st.active_state != "failed" else "×"
    lines = [f"{dot} {st.unit}" + (f" - {st.description}" if st.description else "")]
    where = f"{st.fragment_path}; " if st.fragment_path else ""
    lines.append(f"     Loaded: {st.load_state} ({where}{st.enabled})")
    since = f" since {st.since}" if st.since else ""
    lines.append(f"     Active: {st.active_state} ({st.sub_state}){since}")
    if st.main_pid:
        lines.append(f"   Main PID: {st.main_pid}")
    ctx.out("\n".join(lines) + "\n")


@declare("sudo", effects=Effects.NOHUP, spec=SUDO_SPEC, host_only=True)
def cmd_sudo(ctx: Ctx) -> int:
    """`sudo COMMAND [ARG]...` (its words are read raw; SUDO_SPEC tells the check where COMMAND is)."""
    args = list(ctx.args)
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        ctx.stderr.write(b"usage: sudo COMMAND [ARG]...\n")
        return 1
    if args[0].startswith("-"):
        raise fail(
            ctx, f"option '{args[0]}' is not supported (sudo is an elevation marker: sudo COMMAND [ARG]...)"
        )
    name = args[0]
    env = elevated_env(ctx.env)  # judged and handed over as sudo would run it
    decision = _gate(ctx).elevation(args, ctx.cwd, env)
    if not decision.allowed:
        ctx.error(f"{name}: {decision.reason} [policy: {decision.rule}]")
        return 126
    elevate = host(ctx).elevate
    if elevate is None:
        raise fail(ctx, "elevation is not configured (no elevation callback)")
    request = ElevationRequest(tuple(args), ctx.cwd, env)
    try:
        result = elevate(request)
    except ElevationRefused as e:
        raise fail(ctx, f"{name}: elevation refused: {e}") from None
    except Exception as e:  # the embedder's callback failed: say so, never a traceback
        raise fail(ctx, f"{name}: elevation failed: {type(e).__name__}: {e}") from None
    ctx.checkpoint()
    ctx.out(result.stdout)
    ctx.stderr.write(result.stderr)
    if not 0 <= result.status <= 255:
        raise CommandExit(1)
    return result.status
