"""The policy decides on what really runs (docs/threat-model.md, section Commands).

T-CMD-1 retargeting: a name the policy allows runs another program (hash table, PATH, aliases,
        functions, wrappers); the gate, the audit log, `decide` and `check()` see the real one.
T-CMD-2 shebang interpreters are commands of their own.
T-CMD-3 one identity per implementation: a rule covers every spelling (and deny every program
        running the denied engine).
T-CMD-4 check() never says `allowed` for code hidden in variable contents.
T-CMD-5 exec(args=...) go to the first command that runs, as arguments.
T-CMD-6 check() under its own deadline.
Each class has the issue's cases and variants of our own.
"""

from __future__ import annotations

import io
import tarfile

import pytest

from sandbash import Bash
from sandbash.check import ALLOWED, DENIED, INDETERMINATE, check
from sandbash.policy import Action, Policy
from sandbash.vfs.facade import Vfs

GRANTS = ["/data:ro", "/workspace:rw"]
DENY_RM = Policy(deny=["rm"], paths=GRANTS, mode="remediation", name="deny-rm")
ALLOW_CAT = Policy(
    ["cat", "ls", "echo", "find", "xargs", "env", "timeout", "bash", "chmod", "mkdir", "printf", "tar"],
    paths=GRANTS,
    mode="remediation",
    name="allow-cat",
)
VICTIM = "/workspace/victim"


def sandbox(policy: Policy) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/workspace/bin"):
        view.mkdir(d, parents=True)
    view.write_bytes("/data/a.txt", b"alpha\nbeta\n")
    view.write_bytes("/data/lib.sh", b"echo sourced\n")
    view.write_bytes(VICTIM, b"precious\n")
    return Bash(fs=vfs, cwd="/workspace", policy=policy)


def exists(bash: Bash, path: str) -> bool:
    bash.vfs.gate = None  # look without asking the policy
    return bash.vfs.view("/").exists(path)


def refusals(events: list[dict[str, object]]) -> set[str]:
    return {
        str(e["target"])
        for e in events
        if e["kind"] == "decision" and e["decision"] == "deny" and e["action"] == "shell:exec"
    }


# ---------------------------------------------------------------- T-CMD-1 retargeting

RETARGET = [
    "hash -p /bin/rm cat; cat /workspace/victim",
    "hash -p /usr/bin/rm ls; ls /workspace/victim",
    "hash -p /bin/rm cat; command cat /workspace/victim",
    "hash -p /bin/rm cat; exec cat /workspace/victim",
    "f() { cat /workspace/victim; }; hash -p /bin/rm cat; f",
    "hash -p /bin/rm cat; eval 'cat /workspace/victim'",
    "hash -p /bin/rm cat; builtin eval 'cat /workspace/victim'",
    "hash -p /bin/rm cat; (cat /workspace/victim)",
    "hash -p /bin/rm cat; echo x | cat /workspace/victim",
    "hash -p /bin/rm cat; x=$(cat /workspace/victim)",
    "shopt -s expand_aliases\nalias cat=rm\ncat /workspace/victim",
    "printf '#!/bin/rm -f\\n' > bin/cat; chmod +x bin/cat; PATH=/workspace/bin:$PATH; cat /workspace/victim",
    "printf '#!/bin/rm -f\\n' > bin/cat; chmod +x bin/cat; PATH=/workspace/bin cat /workspace/victim",
    # more wrappers and shapes
    "hash -p /bin/rm cat; exec -a other cat /workspace/victim",
    "hash -p /bin/rm cat; ! cat /workspace/victim",
    "hash -p /bin/rm cat; time cat /workspace/victim",
    "hash -p /bin/rm cat; trap 'cat /workspace/victim' EXIT",
    "hash -p /bin/rm cat; echo <(cat /workspace/victim)",
    "hash -p /bin/rm ca''t; \"cat\" /workspace/victim",
    "hash -p /bin/rm cat; cat /workspace/victim &\nwait",
]


@pytest.mark.parametrize("script", RETARGET)
@pytest.mark.parametrize("policy", [DENY_RM, ALLOW_CAT], ids=["deny-rm", "allow-cat"])
def test_retargeted_name_is_decided_as_what_runs(script: str, policy: Policy) -> None:
    bash = sandbox(policy)
    r = bash.exec(script)
    assert exists(bash, VICTIM), r.stderr
    assert "policy denied this command" in r.stderr
    assert "rm" in refusals(r.events), r.events
    assert bash.check(script).status != ALLOWED


@pytest.mark.parametrize(
    "script",
    [
        # a program (env, xargs, find, timeout) searches PATH itself: the shell's hash table is not its
        "hash -p /bin/rm cat; echo /workspace/victim | xargs cat",
        "hash -p /bin/rm cat; env cat /workspace/victim",
        "hash -p /bin/rm cat; timeout 5 cat /workspace/victim",
        "hash -p /bin/rm cat; find /workspace -name victim -exec cat {} \\;",
        "hash -p /bin/rm cat; echo /workspace/victim | xargs -I{} cat {}",
        "hash -p /bin/rm cat; find /workspace -name victim -execdir cat {} \\;",
        "hash -p /bin/rm cat; env -i cat /workspace/victim",
        "hash -p /bin/rm cat; env -S 'cat /workspace/victim'",
        "hash -p /bin/rm cat; timeout -k 1 5 cat /workspace/victim",
        # command -p searches the standard path, not the hash table
        "hash -p /bin/rm cat; command -p cat /workspace/victim",
        "hash -p /bin/rm cat; command -p cat /dev/null; cat /workspace/victim",  # and rehashes the name
        # assigning PATH empties the hash table (a temporary assignment, read and printf -v too)
        "hash -p /bin/rm cat; PATH=$PATH; cat /workspace/victim",
        "hash -p /bin/rm cat; PATH=/usr/bin:/bin cat /workspace/victim",
        "hash -p /bin/rm cat; PATH=$PATH true; cat /workspace/victim",
        "hash -p /bin/rm cat; PATH+=''; cat /workspace/victim",
        'hash -p /bin/rm cat; read PATH <<< "$PATH"; cat /workspace/victim',
        'hash -p /bin/rm cat; printf -v PATH %s "$PATH"; cat /workspace/victim',
    ],
)
def test_hash_table_is_the_shells_own(script: str) -> None:
    """As bash: these run the real `cat` (checked against bash 5.2 with `hash -p /bin/echo cat`)."""
    bash = sandbox(DENY_RM)
    r = bash.exec(script)
    assert r.stdout == "precious\n" and "rm" not in refusals(r.events), r.stderr
    assert bash.check(script).status != DENIED


def test_hashed_name_audit_and_decide_see_the_real_program() -> None:
    seen: list[Action] = []

    def decide(a: Action) -> bool | None:
        seen.append(a)
        return None

    bash = sandbox(Policy(deny=["rm"], paths=GRANTS, mode="remediation", decide=decide))
    r = bash.exec("hash -p /bin/head cat; cat /workspace/victim")
    assert r.stdout == "precious\n"
    assert [(a.target, a.argv) for a in seen if a.kind == "shell:exec"][-1] == ("head", ("cat", VICTIM))
    events = [e for e in r.events if e["kind"] == "decision" and e["action"] == "shell:exec"]
    assert events[-1]["target"] == "head" and events[-1]["argv"] == ["cat", VICTIM]
    r = bash.exec("hash -p /bin/rm cat; cat /workspace/victim")
    assert "cat runs rm" in r.stderr and r.exit_code == 126


@pytest.mark.parametrize(
    "script",
    [
        "echo y | hash -p /bin/rm cat; cat /workspace/victim",  # a pipeline stage is a subshell
        "(hash -p /bin/rm cat); cat /workspace/victim",
        "x=$(hash -p /bin/rm cat); cat /workspace/victim",
        "hash -p /bin/rm cat & wait; cat /workspace/victim",
        "{ hash -p /bin/rm cat; } | cat; cat /workspace/victim",
        "coproc { hash -p /bin/rm cat; }; cat /workspace/victim",
    ],
)
def test_hash_in_a_subshell_stays_there(script: str) -> None:
    bash = sandbox(DENY_RM)
    r = bash.exec(script)
    assert r.stdout.endswith("precious\n") and "rm" not in refusals(r.events), r.stderr
    assert bash.check(script).status != DENIED, bash.check(script).to_text()


@pytest.mark.parametrize(
    "script",
    [
        "shopt -s lastpipe; echo y | hash -p /bin/rm cat; cat /workspace/victim",
        "shopt -s lastpipe\nfalse | true | hash -p /bin/rm cat\ncat /workspace/victim",
        "o=lastpipe; shopt -s $o; echo | hash -p /bin/rm cat; cat /workspace/victim",
        "f() { shopt -s lastpipe; }; f; echo | hash -p /bin/rm cat; cat /workspace/victim",
        "eval 'shopt -s lastpipe'; echo | hash -p /bin/rm cat; cat /workspace/victim",
    ],
)
def test_lastpipe_hash_reaches_the_shell(script: str) -> None:
    """With lastpipe the last stage runs in the shell: its hash table change stays."""
    bash = sandbox(DENY_RM)
    r = bash.exec(script)
    assert exists(bash, VICTIM) and "rm" in refusals(r.events), r.stderr
    assert bash.check(script).status != ALLOWED


def test_check_models_the_hash_table() -> None:
    assert check("hash -p /bin/rm cat; cat /f", DENY_RM).status == DENIED
    assert check("hash -p /bin/head cat; cat /data/a.txt", DENY_RM).status == ALLOWED
    # order only the run knows, a name only the run knows
    assert check("f() { cat /data/a.txt; }; hash -p /bin/rm cat; f", DENY_RM).status == INDETERMINATE
    assert check('hash -p /bin/rm "$1"; cat /data/a.txt', DENY_RM).status == INDETERMINATE
    # a child shell starts with an empty hash table
    assert check("hash -p /bin/rm cat; bash -c 'cat /data/a.txt'", DENY_RM).status == ALLOWED
    assert check("export PATH=/workspace/bin:$PATH; cat /data/a.txt", DENY_RM).status == INDETERMINATE
    assert check("read PATH; cat /data/a.txt", DENY_RM).status == INDETERMINATE


# ---------------------------------------------------------------- T-CMD-2 shebang interpreters

SHEBANG = [
    ("#!/bin/rm -f", "./s /workspace/victim"),
    ("#!/usr/bin/env rm", "./s /workspace/victim"),
    ("#!/usr/bin/rm", "/workspace/s /workspace/victim"),
    ("#!/bin/rm -f", "cp s bin/tool; PATH=/workspace/bin:$PATH; tool /workspace/victim"),
    ("#!/bin/rm -f", "echo /workspace/victim | xargs ./s"),
    ("#!/bin/rm -f", "find /workspace -name victim -exec ./s {} \\;"),
    ("#!/bin/rm -f", "env ./s /workspace/victim"),
    ("#!/bin/rm -f", "bash -c './s /workspace/victim'"),
    ("#!/bin/rm -f", "x=$(./s /workspace/victim)"),
    ("#!/bin/rm -f", "hash -p /workspace/s cat; cat /workspace/victim"),
]


@pytest.mark.parametrize(("line", "run"), SHEBANG)
def test_shebang_interpreter_is_gated(line: str, run: str) -> None:
    bash = sandbox(DENY_RM)
    script = f"printf '%s\\n' '{line}' > s; chmod +x s; {run}"
    r = bash.exec(script)
    assert exists(bash, VICTIM), r.stderr
    assert "rm" in refusals(r.events)
    assert bash.check(script).status != ALLOWED


@pytest.mark.parametrize(
    "run",
    [
        # an interpreter that is a script is followed, as the kernel does (up to 4 levels)
        "printf '#!/workspace/s\\n' > t; chmod +x t; ./t /workspace/victim",
        "printf '#!/workspace/s\\n' > t; printf '#!/workspace/t\\n' > u; chmod +x t u; ./u /workspace/victim",
        # the one argument keeps its blanks: env -S splits it and runs rm through the gate
        "printf '#!/usr/bin/env -S rm -f\\n' > t; chmod +x t; ./t /workspace/victim",
        "printf '#!/usr/bin/env -S timeout 5 rm\\n' > t; chmod +x t; ./t /workspace/victim",
        "printf '#!/bin/env -S nice rm\\n' > t; chmod +x t; echo /workspace/victim | xargs ./t",
    ],
)
def test_interpreter_chains_are_gated(run: str) -> None:
    bash = sandbox(DENY_RM)
    script = f"printf '#!/bin/rm -f\\n' > s; chmod +x s; {run}"
    r = bash.exec(script)
    assert exists(bash, VICTIM), r.stderr
    assert "rm" in refusals(r.events), r.stderr
    assert bash.check(script).status != ALLOWED


@pytest.mark.parametrize(
    ("line", "out", "err", "status"),
    [
        # the kernel's reading: one argument, inner blanks kept, outer ones dropped
        ("#!/bin/echo a  b ", "a  b ./s x\n", "", 0),
        ("#!  /bin/echo   two words  ", "two words ./s x\n", "", 0),
        ("#!/usr/bin/env -S echo -n hi", "hi ./s x", "", 0),
        # never searched in PATH, and only /bin and /usr/bin hold the commands
        ("#!echo a", "", "bash: line 1: ./s: cannot execute: required file not found\n", 127),
        ("#!/workspace/bin/cat", "", "bash: line 1: ./s: cannot execute: required file not found\n", 127),
        ("#!/usr/local/bin/echo", "", "bash: line 1: ./s: cannot execute: required file not found\n", 127),
        ("#!/workspace/p0 a", "outer ./s x\n", "", 0),  # an interpreter without one: the shell runs the file
        ("#!/workspace/q0", "", "bash: ./s: /workspace/q0: bad interpreter: Permission denied\n", 126),
    ],
)
def test_interpreter_line_as_the_kernel_reads_it(line: str, out: str, err: str, status: int) -> None:
    bash = sandbox(Policy(paths=GRANTS, mode="remediation"))
    view = bash.vfs.view("/")
    view.write_bytes("/workspace/s", line.encode() + b"\necho outer $0 $1\n")
    view.write_bytes("/workspace/p0", b"echo plain\n")
    view.write_bytes("/workspace/q0", b"#!/bin/echo\n")
    for path, mode in (("/workspace/s", 0o755), ("/workspace/p0", 0o755), ("/workspace/q0", 0o644)):
        view.chmod(path, mode)
    r = bash.exec("./s x")
    assert (r.stdout, r.stderr, r.exit_code) == (out, err, status)


def test_interpreter_chain_depth() -> None:
    """The kernel follows four interpreters that are scripts; a fifth is ELOOP."""
    bash = sandbox(Policy(paths=GRANTS, mode="remediation"))
    r = bash.exec(
        "printf '#!/bin/echo zero\\n' > n0; for i in 1 2 3 4 5; do "
        'printf "#!/workspace/n$((i-1)) a$i\\n" > n$i; done; chmod +x n*; ./n4 x; ./n5 x'
    )
    assert r.stdout == "zero /workspace/n0 a1 /workspace/n1 a2 /workspace/n2 a3 /workspace/n3 a4 ./n4 x\n"
    assert r.stderr == "bash: ./n5: /workspace/n4: bad interpreter: Too many levels of symbolic links\n"
    assert r.exit_code == 126


def test_shebang_from_a_tar_archive() -> None:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        body = b"#!/bin/rm -f\n"
        info = tarfile.TarInfo("tool")
        info.size, info.mode = len(body), 0o755
        tar.addfile(info, io.BytesIO(body))
    bash = sandbox(DENY_RM)
    bash.vfs.view("/").write_bytes("/workspace/t.tar", data.getvalue())
    r = bash.exec("tar xf t.tar && ./tool /workspace/victim")
    assert exists(bash, VICTIM) and "rm" in refusals(r.events), r.stderr


def test_shebang_decide_sees_the_interpreter() -> None:
    seen: list[Action] = []
    bash = sandbox(
        Policy(
            paths=GRANTS,
            mode="remediation",
            decide=lambda a: seen.append(a) or (False if a.target == "rm" else None),
        )
    )
    r = bash.exec("printf '#!/bin/rm -f\\n' > s; chmod +x s; ./s victim")
    assert r.exit_code == 126 and exists(bash, VICTIM)
    assert ("rm", ("/bin/rm", "-f", "./s", "victim")) in [(a.target, a.argv) for a in seen]


def test_shell_shebang_needs_the_shell() -> None:
    bash = sandbox(Policy(["cat", "printf", "chmod", "s"], paths=GRANTS, mode="remediation"))
    r = bash.exec("printf '#!/bin/bash\\necho in\\n' > s; chmod +x s; ./s")
    assert r.exit_code == 126 and "bash" in refusals(r.events) and r.stdout == ""
    bash = sandbox(Policy(["cat", "printf", "chmod", "s", "c", "bash"], paths=GRANTS, mode="remediation"))
    r = bash.exec(
        "printf '#!/bin/bash\\necho in\\n' > s; chmod +x s; ./s; printf '#!/bin/cat\\nhi\\n' > c; "
        "chmod +x c; ./c"
    )
    assert r.stdout == "in\n#!/bin/cat\nhi\n", r.stderr


# ---------------------------------------------------------------- T-CMD-3 one identity per implementation

SPELLINGS = [
    ("source", ". /data/lib.sh"),
    ("declare", "typeset x=1"),
    ("declare", "f() { local x=1; }; f"),
    ("typeset", "declare x=1"),
    ("mapfile", "readarray a < /data/a.txt"),
    ("readarray", "mapfile a < /data/a.txt"),
    ("awk", "gawk 'BEGIN { print 1 }'"),
    ("awk", "mawk 'BEGIN { print 1 }'"),
    ("awk", "nawk 'BEGIN { print 1 }'"),
    ("gawk", "awk 'BEGIN { print 1 }'"),
    ("grep", "egrep a /data/a.txt"),
    ("grep", "fgrep a /data/a.txt"),
    ("grep", "rg a /data/a.txt"),
    ("grep", "/usr/bin/egrep a /data/a.txt"),
    ("grep", "command fgrep a /data/a.txt"),
    ("grep", "env egrep a /data/a.txt"),
    ("grep", "echo a | xargs egrep a"),
    ("egrep", "grep a /data/a.txt"),
    ("gzip", "zcat x.gz"),
    ("gzip", "gunzip x.gz"),
    ("gzip", "tar czf t.tgz /data"),
    ("zcat", "gzip /workspace/victim"),
    ("xz", "unxz x.xz"),
    ("xz", "xzcat x.xz"),
    ("bzip2", "bunzip2 x.bz2"),
    ("bzip2", "bzcat x.bz2"),
    ("ls", "dir /data"),
    ("ls", "vdir /data"),
    ("test", "[ 1 = 1 ]"),
    ("[", "test 1 = 1"),
    ("bash", "sh -c 'echo hi'"),
    ("base64", "basenc --base64 /data/a.txt"),
    ("diff", "sdiff /data/a.txt /data/a.txt"),
    ("md5sum", "cksum -a md5 /data/a.txt"),
]


@pytest.mark.parametrize(("denied", "script"), SPELLINGS)
def test_deny_covers_every_spelling(denied: str, script: str) -> None:
    bash = sandbox(Policy(deny=[denied], paths=GRANTS, mode="remediation"))
    r = bash.exec(script)
    assert r.exit_code == 126, (r.stdout, r.stderr)
    assert "policy denied this command" in r.stderr
    assert bash.check(script).status == DENIED


@pytest.mark.parametrize(
    ("allow", "script", "ok"),
    [
        (["grep"], "egrep a /data/a.txt", True),
        (["grep"], "fgrep -x alpha /data/a.txt", True),
        (["grep"], "rg a /data/a.txt", False),  # a front end of its own
        (["gzip"], "zcat /dev/null", True),
        (["zcat"], "gzip -c /data/a.txt", False),  # a spelling allows itself only
        (["zcat"], "gunzip -c /dev/null", False),
        (["awk"], "gawk 'BEGIN { print 1 }'", True),
        (["gawk"], "awk 'BEGIN { print 1 }'", False),
        (["ls"], "dir /data", True),
        (["bash"], "sh -c 'echo hi'", True),
        (["sh"], "bash -c 'echo hi'", False),
    ],
)
def test_allow_covers_spellings_of_the_implementation_only(allow: list[str], script: str, ok: bool) -> None:
    bash = sandbox(Policy(allow, paths=GRANTS, mode="remediation"))
    r = bash.exec(script)
    assert ("policy denied this command" not in r.stderr) == ok, r.stderr
    assert (bash.check(script).status != DENIED) == ok


def test_decide_sees_the_implementation() -> None:
    seen: list[str] = []
    bash = sandbox(Policy(decide=lambda a: seen.append(a.target) or (False if a.target == "grep" else None)))
    for script in ("egrep a /data/a.txt", "fgrep a /data/a.txt", "/bin/grep a /data/a.txt"):
        assert bash.exec(script).exit_code == 126, script
    assert seen.count("grep") == 3
    assert bash.exec(". /data/lib.sh").stdout == "sourced\n" and "source" in seen


# ---------------------------------------------------------------- T-CMD-4 code hidden in variable contents

HIDDEN = [
    "x='a[$(rm /workspace/victim)]'; echo $((x))",
    "read x <<< 'a[$(rm /workspace/victim)]'; echo $((x + 1))",
    "read x <<< 'a[$(rm /workspace/victim)]'; [[ $x -eq 1 ]]",
    "read x <<< 'a[$(rm /workspace/victim)]'; (( x ))",
    "read x <<< 'a[$(rm /workspace/victim)]'; let y=x",
    "read i <<< 'a[$(rm /workspace/victim)]'; echo ${a[i]}",
    "x='a[$(rm /workspace/victim)]'; for ((i=x; i<1; i++)); do :; done",
    "x='a[$(rm /workspace/victim)]'; case $((x)) in *) ;; esac",
    "echo $(( $(echo 'a[$(rm /workspace/victim)]') + 1 ))",
    "printf -v 'a[$(rm /workspace/victim)]' %s 1",
    "read 'a[$(rm /workspace/victim)]' <<< 1",
    "declare 'a[$(rm /workspace/victim)]=1'",
    "f() { local 'a[$(rm /workspace/victim)]'=1; }; f",
    "export 'a[$(rm /workspace/victim)]=1'",
    "unset 'a[$(rm /workspace/victim)]'",
    "[[ -v 'a[$(rm /workspace/victim)]' ]]",
    "test -v 'a[$(rm /workspace/victim)]'",
    "[ -v 'a[$(rm /workspace/victim)]' ]",
    "declare -n r='a[$(rm /workspace/victim)]'; echo $r",
    "declare -i n; read v <<< 'a[$(rm /workspace/victim)]'; n=$v",
    "x='a[$(rm /workspace/victim)]'; y=${!x}",
    "x='a[$(rm /workspace/victim)]'; echo ${!x}",
    "read PS4 <<< '$(rm /workspace/victim)'; set -x; echo",
    "export PS4='$(rm /workspace/victim)'; set -x; echo",
    "declare PS4='$(rm /workspace/victim)'; set -x; echo",
    "printf -v PS4 %s '$(rm /workspace/victim)'; set -x; echo",
    "x='rm /workspace/victim'; trap \"$x\" EXIT",
    "command printf -v 'a[$(rm /workspace/victim)]' %s 1",
    # integer variables given names or expressions (the value is evaluated, not only run-time values)
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; declare -i y=x",
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; typeset -il y=1 z=x",
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; declare -i y; y+=x",
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; declare -i y; export y=x",
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; declare -ai y=(x)",
    "a=(1); read v <<< 'a[$(rm /workspace/victim)]'; declare -i i; for i in v; do :; done",
    "a=(1); mapfile -t m <<< 'a[$(rm /workspace/victim)]'; declare -i k=m",
    # keys of a compound array value are arithmetic
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; arr=([x]=1)",
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; arr+=([x]=1)",
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; f() { local -a arr=([x]=1); }; f",
    # namerefs read and write the variable they name
    "a=(1); read x <<< 'a[$(rm /workspace/victim)]'; declare -n ref=x; echo $((ref))",
    "a=(1); x=1; read y <<< 'a[$(rm /workspace/victim)]'; declare -n x=y; echo $((x))",
    "a=(1); read y <<< 'a[$(rm /workspace/victim)]'; declare -n r=q; declare -n q=y; echo $((r))",
    "a=(1); declare -n r=x; r='a[$(rm /workspace/victim)]'; echo $((x))",
    "a=(1); declare -n r=x; printf -v r %s 'a[$(rm /workspace/victim)]'; echo $((x))",
    "a=(1); declare -n r; r=x; read x <<< 'a[$(rm /workspace/victim)]'; echo $((r))",
    "a=(1); f() { local -n r=$1; echo $((r)); }; read v <<< 'a[$(rm /workspace/victim)]'; f v",
    # a name=value operand that is not written as an assignment word
    "a=(1); declare 'x=a[$(rm /workspace/victim)]'; echo $((x))",
    'a=(1); f() { local "x=a[\\$(rm /workspace/victim)]"; echo $((x)); }; f',
]


@pytest.mark.parametrize("script", HIDDEN)
def test_check_never_allows_hidden_evaluation(script: str) -> None:
    bash = sandbox(DENY_RM)
    report = bash.check(script)
    assert report.status != ALLOWED, report.to_text()
    r = bash.exec(script)
    assert exists(bash, VICTIM), r.stderr  # whatever the run evaluates goes through the gate


@pytest.mark.parametrize(
    "script",
    [
        "for i in 1 2 3; do echo $((i * 2)); done",
        "i=0; while (( i < 3 )); do i=$((i + 1)); done; echo $i",
        "n=${#a[@]}; echo $((n + 1)) $((RANDOM % 2)) $(( $# + 1 ))",
        "x=HOME; y=${!x}",
        "declare -i n=5; n=n+1; echo $n",
        "declare -i n; for n in 1 2 3; do echo $n; done",
        "declare -n r=count; count=3; echo $((r + 1))",
        "arr=([0]=a [1]=b); i=1; echo ${arr[i]}",
        "x=5; declare -i y=x+1; echo $y",
    ],
)
def test_plain_arithmetic_stays_allowed(script: str) -> None:
    assert check(script, DENY_RM).status == ALLOWED


# ---------------------------------------------------------------- T-CMD-5 safe arguments


@pytest.mark.parametrize(
    ("script", "out"),
    [
        ("echo a", "a X\n"),
        ("echo a | cat", "a X\n"),
        ("echo a | cat; echo next", "a X\nnext\n"),
        ("(echo a); echo b", "a X\nb\n"),
        ("{ echo a; } | cat", "a X\n"),
        ("echo a & wait", "a X\n"),
        ("x=1; echo a", "a X\n"),
        ("x=$(echo in); echo a $x", "a in X\n"),
        ('f() { echo f "$@"; }; f', "f X\n"),
        ("if [[ 1 ]]; then echo a; fi", "a X\n"),
        ("if true; then echo a; fi", "a\n"),  # `true` runs first
        ("( (echo a) ); echo b", "a X\nb\n"),
    ],
)
def test_safe_args_go_to_the_first_command(script: str, out: str) -> None:
    r = Bash().exec(script, args=["X"])
    assert r.stdout == out, r.stderr


def test_safe_args_are_never_a_command_name() -> None:
    bash = sandbox(DENY_RM)
    r = bash.exec("x=1; echo done", args=["/workspace/victim"])
    assert r.stdout == "done /workspace/victim\n"
    r = bash.exec("x=1", args=["rm"])
    assert r.exit_code == 0 and "rm" not in refusals(r.events)


# ---------------------------------------------------------------- T-CMD-6 check deadline


def test_check_deadline_reports_indeterminate() -> None:
    script = "\n".join(f"cat /data/a.txt | grep x > /workspace/o{i}" for i in range(3000))
    report = check(script, ALLOW_CAT, deadline=0.0)
    assert report.status == INDETERMINATE
    assert [e.code for e in report.errors] == ["check_timeout"]
    assert "the check stopped after" in report.errors[0].message
    denied = script + "\nrm /workspace/victim"
    assert check(denied, DENY_RM, deadline=None).status == DENIED


def _chain(n: int) -> str:
    """Functions defined callers first, the last one changing the directory."""
    return "\n".join(f"f{i}() {{ f{i + 1}; }}" for i in reversed(range(n))) + f"\nf{n}() {{ cd /data; }}\n"


SHAPES = {
    "pipelines": "\n".join(f"cat /data/a.txt | grep x > /workspace/o{i}" for i in range(4000)),
    "one long line": "echo " + " ".join(f"w{i}" for i in range(60000)),
    "eval texts": "\n".join(f"eval 'cat /data/a.txt; ls /data/{i}'" for i in range(3000)),
    "substitutions": "\n".join(f"x{i}=$(cat /data/a.txt | head -{i})" for i in range(3000)),
    "function chain": _chain(3000) + "f0\n",
    "here-documents": "\n".join(f"cat <<E{i}\n$(ls /data/{i})\nE{i}" for i in range(3000)),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_check_deadline_holds_for_every_shape(shape: str) -> None:
    """Past its deadline the check stops wherever it is (parsing, walking, judging)."""
    report = check(SHAPES[shape], ALLOW_CAT, deadline=0.0)
    assert report.status == INDETERMINATE
    assert [e.code for e in report.errors] == ["check_timeout"]


def test_function_chain_is_linear() -> None:
    """Which functions change the directory is found once per body (it was a pass per link:
    3,000 functions took seconds); cwd after the call is unknown, so a relative path needs the run."""
    report = check(_chain(3000) + "f0\ncat a.txt\n", ALLOW_CAT, deadline=None)
    assert report.status == INDETERMINATE and report.sites[-1].name == "cat"
    assert check(_chain(3000) + "cat /data/a.txt\n", ALLOW_CAT, deadline=None).status == ALLOWED


@pytest.mark.parametrize("path", ["/usr/local/bin/cat", "/opt/bin/cat"])
def test_script_earlier_in_path_than_the_command(path: str) -> None:
    """A file already in the filesystem that PATH finds before the built-in command."""
    policy = Policy(deny=["rm"], paths=[*GRANTS, "/usr/local/bin:ro", "/opt:ro"], mode="remediation")
    bash = sandbox(policy)
    bash.vfs.gate = None
    view = bash.vfs.view("/")
    view.mkdir(path.rsplit("/", 1)[0], parents=True)
    view.write_bytes(path, b"#!/bin/rm -f\n")
    view.chmod(path, 0o755)
    env = {"PATH": "/opt/bin:/usr/local/bin:/usr/bin:/bin", "HOME": "/workspace"}
    report = check("cat /workspace/victim", bash.policy, fs=bash.vfs, env=env)
    assert report.status == INDETERMINATE, report.to_text()
    assert check("ls /data", bash.policy, fs=bash.vfs, env=env).status == ALLOWED
    r = bash.exec("cat /workspace/victim", env={"PATH": env["PATH"]})
    assert exists(bash, VICTIM) and "rm" in refusals(r.events), r.stderr
