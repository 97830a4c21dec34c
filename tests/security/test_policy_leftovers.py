"""Code that runs from variable contents, and lookups after PATH changes (issue 15).

- `x='a[$(cmd)]'; echo $((x))` runs cmd in bash whether or not `a` exists; `${x@P}` runs the
  command substitutions in x's value (prompt expansion, `shopt promptvars`). Both run here as in
  bash, and only through the executor: the policy decides, the audit log records, and the static
  check reports the site as needing the run.
- `unset PATH` (directly, through a nameref) and a local PATH going out of scope empty the hash
  table as in bash; with PATH unset bash looks in the current directory only. The gate decides
  on that same lookup.
Each behaviour is compared with real bash on harmless commands; the policy cases use `rm`.
"""

from __future__ import annotations

import pytest

from realtools import needs_bash, real_bash
from sandbash import Bash
from sandbash.check import ALLOWED, check
from sandbash.policy import Policy
from sandbash.vfs.facade import Vfs

GRANTS = ["/workspace:rw"]
DENY_RM = Policy(deny=["rm"], paths=GRANTS, mode="remediation", name="deny-rm")
VICTIM = "/workspace/victim"


def sandbox(policy: Policy | None = DENY_RM) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    view.mkdir("/workspace", parents=True)
    view.write_bytes(VICTIM, b"precious\n")
    return Bash(fs=vfs, cwd="/workspace", policy=policy)


def victim_exists(bash: Bash) -> bool:
    bash.vfs.gate = None  # look without asking the policy
    return bash.vfs.view("/").exists(VICTIM)


def refused(events: list[dict[str, object]]) -> set[str]:
    return {
        str(e["target"])
        for e in events
        if e["kind"] == "decision" and e["decision"] == "deny" and e["action"] == "shell:exec"
    }


# ---------------------------------------------------------------- code in values

HIDDEN = [
    # the array named in the subscript does not exist: bash still expands the subscript
    "x='a[$(rm /workspace/victim)]'; echo $((x))",
    "unset a; x='a[$(rm /workspace/victim)]'; (( x )); echo $?",
    "read x <<< 'b[$(rm /workspace/victim)]'; y=$(( x + 1 ))",
    "x='a[`rm /workspace/victim`]'; echo $(( x ))",
    "a=(1); x='a[$(rm /workspace/victim)]'; echo $((x))",
    # prompt expansion of a value
    "x='$(rm /workspace/victim)'; echo \"${x@P}\"",
    "x='`rm /workspace/victim`'; y=${x@P}",
    "read x <<< '$(rm /workspace/victim)'; echo ${x@P}",
    "PS1='\\u $(rm /workspace/victim)'; p=${PS1@P}",
    "x='$(rm /workspace/victim)'; echo ${unset_y:-${x@P}}",
    "x='$(rm /workspace/victim)'; y=(${x@P})",
    'f() { local v="$1"; echo "${v@P}"; }; f \'$(rm /workspace/victim)\'',
]


@pytest.mark.parametrize("script", HIDDEN)
def test_hidden_code_runs_only_through_the_gate(script: str) -> None:
    bash = sandbox()
    r = bash.exec(script)
    assert victim_exists(bash), r.stderr
    assert "rm" in refused(r.events), (r.stdout, r.stderr)
    assert "policy denied this command" in r.stderr
    report = bash.check(script)
    assert report.status != ALLOWED, report.to_text()


def test_allowed_hidden_code_runs_and_is_audited() -> None:
    bash = sandbox(Policy(paths=GRANTS, mode="remediation", name="all"))
    r = bash.exec("x='$(rm /workspace/victim)'; echo \"[${x@P}]\"")
    assert r.stdout == "[]\n" and not victim_exists(bash)
    ran = [
        e for e in r.events if e["kind"] == "decision" and e["action"] == "shell:exec" and e["target"] == "rm"
    ]
    assert ran and ran[0]["decision"] == "allow"


def test_check_names_the_prompt_expansion() -> None:
    report = check('x=$1; echo "${x@P}"', DENY_RM)
    assert report.status != ALLOWED
    assert "prompt string" in report.to_text()
    # a literal prompt with no substitution in any value stays allowed
    assert check('echo "${HOME@Q}" ${#x}', DENY_RM).status == ALLOWED


BASH_SAME = [
    # subscript substitutions run whether the array is set or not
    "x='a[$(echo ran >&2; echo 0)]'; echo $((x)) 2>&1",
    "x='a[$(echo ran; echo 1)]'; a=(5 6); echo $((x))",
    "unset a; x='a[$(echo ran >&2)]'; (( x )); echo $?",
    # prompt expansion: substitutions, arithmetic, parameters; $? is kept; quoting of what escapes insert
    "x='$(echo hi) `echo there` $((1+2)) ${#x}'; echo \"${x@P}\"",
    "x='$(exit 3)'; echo \"[${x@P}]\" $?",
    'x=\'a\\"b "q" \\\\"c\'; echo "${x@P}"',
    "x='$(echo a; echo b)'; echo \"${x@P}\"",
    "x='${undefined_var:-dflt}'; echo \"${x@P}\"",
    "x='\\\\$HOME \\044HOME'; HOME=/h; echo \"${x@P}\"",
    "x='\\\\\\\\'; echo \"${x@P}\"",
    "mkdir -p 'd$(echo X)' && cd 'd$(echo X)' && x='\\W'; echo \"${x@P}\"",
    "shopt -u promptvars; x='$(echo hi) ${HOME:+h}'; echo \"${x@P}\"",
    "x='$(echo out; echo err >&2)'; y=${x@P} 2>/dev/null; echo \"y=$y\"",
    "set -- a b; x='$1-$#'; echo \"${x@P}\"",
    "arr=('$(echo one)' '$(echo two)'); printf '%s\\n' \"${arr[@]@P}\"",
    # PATH and the hash table
    'hash -p /bin/echo cat; unset PATH; cat hello; echo "s=$?"; hash',
    'hash -p /bin/echo cat; unset -v PATH; PATH=/usr/bin:/bin; cat hello 2>/dev/null; echo "s=$?"',
    'declare -n r=PATH; hash -p /bin/echo cat; unset r; cat hello; echo "s=$?"',
    'f() { local PATH=/usr/bin:/bin; hash -p /bin/echo cat; }; f; cat hello 2>/dev/null; echo "s=$?"',
    "g() { local PATH=/usr/bin:/bin; hash -p /bin/echo cat; cat hello; }; g",
    'hash -p /bin/echo cat; PATH=/usr/bin:/bin true; cat hello 2>/dev/null; echo "s=$?"',
    'unset PATH; ls; echo "s=$?"; PATH=/usr/bin:/bin; ls',
    "unset PATH; /bin/echo full paths still run",
]


@needs_bash
@pytest.mark.parametrize("script", BASH_SAME)
def test_matches_bash(script: str) -> None:
    want_out, _, want_status = real_bash(script)
    r = Bash().exec(script)
    assert (r.stdout.encode(), r.exit_code) == (want_out, want_status), r.stderr


def test_path_unset_lookup_is_what_the_gate_decides() -> None:
    # a script named like a command in the current directory runs once PATH is unset: the gate
    # sees the script, and the commands inside it are gated again
    bash = sandbox()
    script = (
        "printf '#!/bin/bash\\nrm /workspace/victim\\n' > cat; chmod +x cat; "
        "hash -p /bin/echo cat; unset PATH; cat"
    )
    r = bash.exec(script)
    assert victim_exists(bash)
    assert "rm" in refused(r.events), r.stderr
    assert bash.check(script).status != ALLOWED
    decided = [e["target"] for e in r.events if e["kind"] == "decision" and e["action"] == "shell:exec"]
    assert "echo" not in decided  # the flushed hash entry is not what ran


def test_path_through_a_nameref_is_reported() -> None:
    for script in (
        "declare -n r=PATH; r=/workspace/bin; cat /workspace/victim",
        "declare -n r=PATH; unset r; cat /workspace/victim",
    ):
        report = check(script, DENY_RM)
        assert report.status != ALLOWED and "nameref 'r' names PATH" in report.to_text(), script
