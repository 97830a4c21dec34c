"""Cruvero's network rule on 127.0.0.1: curl and wget run only when the operator
enabled the network (an allow-list and SANDBASH_ALLOW_NETWORK) and the call says
`allow_network: true`."""

from __future__ import annotations

import pytest

from sandbash.agent.adapters.cruvero import cruvero_tool
from sandbash.audit import Audit

from .netfixtures import Server, local_config


@pytest.mark.parametrize(
    "switch, network, call, runs",
    [
        ("1", True, True, True),
        ("1", True, None, False),
        ("1", True, False, False),
        ("0", True, True, False),
        (None, True, True, False),
        ("1", False, True, False),
    ],
)
def test_network_needs_the_operator_and_the_call(
    server: Server, switch: str | None, network: bool, call: bool | None, runs: bool
) -> None:
    env = {} if switch is None else {"SANDBASH_ALLOW_NETWORK": switch}
    tool = cruvero_tool(network=local_config(server) if network else None, environ=env, audit=Audit())
    for script in (f"curl -s {server.url}/c -o /dev/null", f"wget -q -O /dev/null {server.url}/w"):
        args = {"command": script} | ({} if call is None else {"allow_network": call})
        out = tool.run(args)
        assert (out.exit_code == 0) is runs, out.text()
        if not runs:
            assert out.exit_code in (126, 127)  # not allowed (policy) or not present for this call
    assert server.paths() == (["/c", "/w"] if runs else [])


def test_network_in_a_session(server: Server) -> None:
    tool = cruvero_tool(
        network=local_config(server), environ={"SANDBASH_ALLOW_NETWORK": "yes"}, audit=Audit()
    )
    assert tool.run({"command": f"curl -s {server.url}/a >/dev/null", "session_id": "s"}).exit_code == 127
    out = tool.run(
        {"command": f"curl -s {server.url}/b >/dev/null", "session_id": "s", "allow_network": True}
    )
    assert out.exit_code == 0 and server.paths() == ["/b"]
