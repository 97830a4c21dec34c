"""The prologue the host commands share (hostinfo/common.parse_flags): --help prints the usage
and ends with status 0 before anything is read (even with no /proc), a flag the command does not
declare is refused, and the commands that take no operand name the first extra one."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.host import HostAccess

USAGE_HEADS = {
    "uptime": "Usage: uptime [-p|-s]\n",
    "free": "Usage: free [-b|-k|-m|-g|-h] [-t]\n",
    "df": "Usage: df [-h] [-i] [PATH]...\n",
    "ps": "Usage: ps [-e|-A] [-f] [-p PIDLIST] [-o FIELDS]\n",
    "ss": "Usage: ss [OPTION]...\n",
    "ping": "Usage: ping [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [-4|-6] [-q] HOST\n",
    "ip": "Usage: ip",
}


def _no_proc() -> Bash:
    return Bash(host=HostAccess(proc_path="/nonexistent/proc", sys_path="/nonexistent/sys"))


@pytest.mark.parametrize("name", sorted(USAGE_HEADS))
@pytest.mark.parametrize("form", ["--help", "--help x y", "-q --help"])
def test_help_comes_first(name: str, form: str) -> None:
    if form.startswith("-q") and name != "ping":
        form = "--help"  # -q is ping's own flag
    r = _no_proc().exec(f"{name} {form}")
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.startswith(USAGE_HEADS[name]) and r.stdout.endswith("\n")


@pytest.mark.parametrize("name", ["ps", "ss"])
def test_help_lists_every_flag(fixture_bash: Bash, name: str) -> None:
    out = fixture_bash.exec(f"{name} --help").stdout
    assert out.count("\n  -") + out.count("\n      --") >= 4


@pytest.mark.parametrize(
    "script, err",
    [
        ("uptime x", "uptime: extra operand 'x'\n"),
        ("uptime -p x y", "uptime: extra operand 'x'\n"),
        ("free x", "free: extra operand 'x'\n"),
        ("free -h -- -t", "free: extra operand '-t'\n"),
        ("uptime -z", "uptime: unknown shorthand flag: 'z' in -z\n"),
        ("free --kilo", "free: unknown flag: --kilo\n"),
        ("df --help=x", None),
        ("ps -p", "ps: flag needs an argument: 'p' in -p\n"),
        ("ps -fp", "ps: flag needs an argument: 'p' in -p\n"),
        ("ps --pid", "ps: flag needs an argument: --pid\n"),
        ("ping -c", "ping: flag needs an argument: 'c' in -c\n"),
        ("ping host --count", "ping: flag needs an argument: --count\n"),
    ],
)
def test_extra_operands_and_unknown_flags(fixture_bash: Bash, script: str, err: str | None) -> None:
    r = fixture_bash.exec(script)
    if err is None:  # --help=VALUE: pflag reads a boolean value; not "false" is on
        assert r.exit_code == 0 and r.stdout.startswith("Usage: df")
        return
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", err)
