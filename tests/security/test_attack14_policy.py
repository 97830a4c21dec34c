"""Attack round 14: the policy's left-overs.

An allow entry written as a path (`allow=["/usr/bin/jq"]`) allowed nothing, not even the path it
names, and said nothing: the executor passes the command it resolved (`jq`) and only a plain name
was compared. An allow entry is now read as a deny entry is (policy._own_command): a path in a
command directory names sandbash's command there, however the script spells it; any other path
names the script at that canonical path. Guards: such an entry allows no other command, and a deny
entry still wins.
"""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.policy import Policy
from sandbash.vfs.facade import Vfs

TOOL = "/workspace/bin/tool"
VICTIM = "/workspace/victim"


def sandbox(policy: Policy) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    view.mkdir("/workspace/bin", parents=True)
    view.write_bytes(TOOL, b"echo tool ran\n")
    view.write_bytes("/workspace/bin/other", b"echo other ran\n")
    view.write_bytes(VICTIM, b"precious\n")
    view.chmod(TOOL, 0o755)
    view.chmod("/workspace/bin/other", 0o755)
    return Bash(fs=vfs, cwd="/workspace", policy=policy)


# (allow entries, script, stdout the run must print)
ALLOWED_BY_PATH = [
    (["/usr/bin/jq"], "echo '{\"a\":1}' | jq .a", "1\n"),
    (["/usr/bin/jq"], "echo '[2]' | /usr/bin/jq '.[0]'", "2\n"),
    (["/usr/bin/jq"], "echo '[3]' | /bin/jq '.[0]'", "3\n"),
    (["/usr/bin/jq"], "echo '[4]' | command jq '.[0]'", "4\n"),
    (["/bin/cat"], "echo x | cat", "x\n"),
    (["/bin/cat"], "echo x | /usr/bin/cat", "x\n"),
    (["//bin/cat"], "echo x | cat", "x\n"),
    (["/bin/../bin/cat"], "echo x | cat", "x\n"),
    (["/bin/cat", "/usr/bin/env"], "echo x | env cat", "x\n"),
    (["/bin/grep"], "echo ab | egrep 'a|z'", "ab\n"),  # an implementation allows its spellings
    ([TOOL], "bin/tool", "tool ran\n"),
    ([TOOL], "./bin/tool", "tool ran\n"),
    ([TOOL], "cd bin; ./tool", "tool ran\n"),
    (["/workspace/bin/../bin/tool"], "/workspace/bin/tool", "tool ran\n"),
    (["/workspace//bin/tool"], "PATH=/workspace/bin; tool", "tool ran\n"),
]


@pytest.mark.parametrize(("allow", "script", "out"), ALLOWED_BY_PATH)
def test_allow_entry_written_as_a_path_allows_that_program(allow: list[str], script: str, out: str) -> None:
    r = sandbox(Policy(allow)).exec(script)
    assert (r.stdout, r.exit_code) == (out, 0), r.stderr


# (allow entries, script): each runs something the entries do not name
STILL_REFUSED = [
    (["/usr/bin/jq"], "echo x | cat"),
    (["/usr/bin/jq"], "jq -n 1 | /bin/cat"),
    (["/bin/cat"], "echo x | tac"),
    (["/bin/cat", "/usr/bin/env"], "env rm bin/tool"),
    (["/bin/egrep"], "echo a | grep a"),  # a spelling allows that spelling only
    (["/bin/grep"], "rg a bin"),  # a front end of its own is not reached
    ([TOOL], "bin/other"),
    (["/workspace/bin"], "bin/tool"),  # a directory is not its scripts
    (["/opt/jq"], "jq -n 1"),  # a path outside the command directories is a script, not jq
    (["/workspace/bin/tool"], "tool"),  # no PATH entry leads there: `tool` is not found
]


@pytest.mark.parametrize(("allow", "script"), STILL_REFUSED)
def test_allow_entry_by_path_allows_nothing_else(allow: list[str], script: str) -> None:
    r = sandbox(Policy(allow)).exec(script)
    assert r.exit_code in (126, 127), (r.stdout, r.stderr)
    assert "ran" not in r.stdout


def test_deny_wins_over_an_allow_entry_by_path() -> None:
    r = sandbox(Policy({"allow": ["/bin/cat", TOOL], "deny": ["cat", TOOL]})).exec("echo x | cat; bin/tool")
    assert r.stdout == ""
    assert r.stderr.count("[policy: commands.deny]") == 2


def test_check_agrees_with_an_allow_entry_by_path() -> None:
    b = sandbox(Policy(["/usr/bin/jq", "/bin/echo"]))
    assert b.check("echo '{}' | jq .").allowed
    assert b.check("echo x | cat").status == "denied"


# BASH_CMDS given whole (compound assignments, declare, a nameref) is the hash table, as in bash:
# `cat` then runs rm, and the gate decides on rm (it ran cat before, and the table was a copy)
RETARGETS = [
    "BASH_CMDS=([cat]=/bin/rm); cat victim",
    "BASH_CMDS+=([cat]=/bin/rm); cat victim",
    "BASH_CMDS=(cat /bin/rm); cat victim",
    "declare -A BASH_CMDS=([cat]=/bin/rm); cat victim",
    "declare -A BASH_CMDS+=([cat]=/bin/rm); cat victim",
    "declare 'BASH_CMDS[cat]=/bin/rm'; cat victim",
    "declare BASH_CMDS[cat]=/bin/rm; cat victim",
    "typeset -A BASH_CMDS=([cat]=/bin/rm); cat victim",
    "declare -g BASH_CMDS=([cat]=/bin/rm); cat victim",
    "export BASH_CMDS=([cat]=/bin/rm); cat victim",
    "declare -n r=BASH_CMDS; r[cat]=/bin/rm; cat victim",
    "f() { BASH_CMDS=([cat]=/bin/rm); }; f; cat victim",
    "f() { declare -g 'BASH_CMDS[cat]=/bin/rm'; }; f; cat victim",
    "hash -p /bin/r cat; BASH_CMDS[cat]+=m; cat victim",
    "hash -p /bin/r cat; BASH_CMDS+=([cat]+=m); cat victim",
    "declare -A BASH_CMDS; BASH_CMDS=([cat]=/bin/rm); cat victim",
]


@pytest.mark.parametrize(
    "policy", [Policy({"deny": ["rm"]}), Policy(["cat", "declare", "hash"])], ids=["deny", "allow"]
)
@pytest.mark.parametrize("script", RETARGETS)
def test_bash_cmds_given_whole_retargets_and_the_gate_decides_on_what_runs(
    policy: Policy, script: str
) -> None:
    b = sandbox(policy)
    r = b.exec(script + "; cat victim")
    assert "cat runs rm" in r.stderr, (r.stdout, r.stderr)
    assert r.stdout == "" and r.exit_code == 126, (r.stdout, r.stderr)


def test_a_local_bash_cmds_is_an_ordinary_variable() -> None:
    """`local -A BASH_CMDS=(...)` / `declare -A` in a function make a local (bash): cat stays cat."""
    r = sandbox(Policy({"deny": ["rm"]})).exec(
        "f() { local -A BASH_CMDS=([cat]=/bin/rm); cat victim; declare -A BASH_CMDS=([cat]=/bin/rm); cat victim; }; f"
    )
    assert (r.stdout, r.exit_code) == ("precious\nprecious\n", 0), r.stderr
