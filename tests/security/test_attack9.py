"""A code-reading attacker's pass over HEAD (sec-attack9): each attempt kept as a test.

Commands (T-CMD-1): a denied command reached through indirection (wrappers, `eval`, `source`,
traps, coprocesses, child shells, awk/sed/jq, aliases, functions, hot loops) never runs: each script
first runs without a policy to show it does remove the victim, then under a deny list (and an
allow list) that must refuse it and leave the victim.
Files (T-FS-*): writes through a read-only grant and reads of an ungranted tree, by links, renames,
descriptors opened before a `cd`, `..`/`/./`/trailing slashes, the runtimes: nothing changes, no
secret shows.
Memory and time: inputs, expansions and values that grew without a charge (found here and fixed):
a whole-input read of an endless pipe (`yes | tr -d '\\n' | bc`, diff, iconv, sha1sum -c, split -n,
sqlite3, `yes | bash`), `${a[@]/pat/$long}` over many elements, awk records rebuilt with a long
OFS, fields holding copies, split/patsplit into huge arrays, jq walks of values made of shared parts
(flatten, tostream, sort keys, messages quoting a value). Each runs in secharness's forked child
and must end with a named limit, on time, within max_memory's resident growth, compiled and walked.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, param, pooled, verify_bomb

from sandbash import Bash
from sandbash.interp import evaluator as evaluator_module
from sandbash.policy import Policy
from sandbash.vfs.facade import Vfs

GRANTS = ["/data:ro", "/workspace:rw", "/tmp:rw"]
DENY_RM = Policy(deny=["rm"], paths=GRANTS, mode="remediation", name="deny-rm")
ALLOW = Policy(
    [
        "cat",
        "echo",
        "find",
        "xargs",
        "env",
        "timeout",
        "bash",
        "chmod",
        "printf",
        "awk",
        "sed",
        "nice",
        "nohup",
    ],
    paths=GRANTS,
    mode="remediation",
    name="allow-list",
)
VICTIM = "/workspace/victim"


def sandbox(policy: Policy | None) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data/sub", "/workspace/bin", "/secret/d"):
        view.mkdir(d, parents=True)
    view.write_bytes("/data/a.txt", b"alpha\n")
    view.write_bytes("/data/sub/b.txt", b"beta\n")
    view.write_bytes("/secret/key", b"SECRETKEY\n")
    view.write_bytes(VICTIM, b"precious\n")
    return Bash(fs=vfs, cwd="/workspace", policy=policy)


def exists(bash: Bash, path: str) -> bool:
    bash.vfs.gate = None  # look without asking the policy
    return bash.vfs.view("/").exists(path)


@pytest.fixture(params=[False, True], ids=["compiled", "walked"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", request.param)
    return bool(request.param)


def refused_rm(events: list[dict[str, object]]) -> bool:
    return any(
        e["kind"] == "decision"
        and e["decision"] == "deny"
        and e["action"] == "shell:exec"
        and e["target"] == "rm"
        for e in events
    )


# ------------------------------------------------------------------ commands

INDIRECT = [
    "command rm /workspace/victim",
    "exec rm /workspace/victim",
    "env rm /workspace/victim",
    "env -S 'rm /workspace/victim'",
    "env -- A=1 rm /workspace/victim",
    "echo /workspace/victim | xargs rm",
    "xargs -a <(echo /workspace/victim) rm",
    "find /workspace -name victim -exec rm {} +",
    "find /workspace -name victim -execdir rm {} \\;",
    "nice -n 5 nohup rm /workspace/victim",
    "timeout -s KILL 5 rm /workspace/victim",
    "time rm /workspace/victim",
    "eval 'rm /workspace/victim'",
    "echo 'rm /workspace/victim' > s; source s",
    "source /dev/stdin <<< 'rm /workspace/victim'",
    ". <(echo 'rm /workspace/victim')",
    "printf '#!/bin/bash\\nrm /workspace/victim\\n' > s; chmod +x s; ./s",
    "printf 'rm /workspace/victim\\n' > s; chmod +x s; ./s",
    "trap 'rm /workspace/victim' EXIT",
    "trap 'rm /workspace/victim' DEBUG; :",
    "trap 'rm /workspace/victim' ERR; false",
    "trap 'rm /workspace/victim' USR1; kill -USR1 $$",
    "coproc rm /workspace/victim; wait",
    "bash -c 'rm /workspace/victim'",
    "sh -c 'rm /workspace/victim'",
    "echo 'rm /workspace/victim' | bash",
    "bash <<< 'rm /workspace/victim'",
    "f(){ rm /workspace/victim; }; export -f f; env bash -c f",
    "awk 'BEGIN{system(\"rm /workspace/victim\")}'",
    'awk \'BEGIN{print "x" | "rm /workspace/victim"}\'',
    "awk 'BEGIN{\"rm /workspace/victim\" | getline x}'",
    "echo x | sed 'e rm /workspace/victim'",
    "echo 'rm /workspace/victim' | sed e",
    "echo x | sed 's/x/rm \\/workspace\\/victim/e'",
    "enable -n echo; echo() { rm /workspace/victim; }; echo",
    'a=(rm /workspace/victim); "${a[@]}"',
    'set -- rm /workspace/victim; "$@"',
    "x=$'r\\x6d'; $x /workspace/victim",
    "mapfile -C 'rm /workspace/victim #' -c 1 < /data/a.txt",
    "f(){ rm /workspace/victim; }; compgen -F f x",
    "PS4='$(rm /workspace/victim)'; set -x; :",
    "x='a[$(rm /workspace/victim)]'; echo $((x))",
    "x='$(rm /workspace/victim)'; echo ${x@P}",
    "history -s 'rm /workspace/victim'; fc -s",
    "shopt -s expand_aliases; alias ls='rm /workspace/victim'; eval ls",
    "shopt -s expand_aliases\nalias cat=rm\nf(){ cat /workspace/victim; }; f",
    # a loop made hot (compiled) before the command word changes
    "for i in $(seq 300); do x=echo; [ $i = 300 ] && x=rm; $x /workspace/victim >/dev/null; done",
    'f(){ "$@"; }; for i in 1 2 3; do f true; done; f rm /workspace/victim',
    "while read c; do $c /workspace/victim; done <<< rm",
]


@pytest.mark.parametrize("policy", [DENY_RM, ALLOW], ids=["deny-rm", "allow-list"])
@pytest.mark.parametrize("script", INDIRECT)
def test_indirection_runs_no_refused_command(script: str, policy: Policy, walker: bool) -> None:
    free = sandbox(None)
    free.exec(script)
    assert not exists(free, VICTIM), "the attack does nothing even without a policy"
    bash = sandbox(policy)
    r = bash.exec(script)
    assert exists(bash, VICTIM), r.stderr
    assert refused_rm(r.events) or "policy denied" in r.stderr, (r.stderr, r.events)


# ------------------------------------------------------------------ files

WRITES = [
    "ln -s /data/a.txt l; echo x > l",
    "ln -s /data l; echo x > l/new",
    "ln -s ../data l; echo x > l/sub/b.txt",
    "ln /data/a.txt h; echo x > h",
    "cp -l /data/a.txt h; echo x > h",
    "mkdir d; mv -T d /data/sub",
    "mv /data/sub /workspace/s",
    "sed -i s/alpha/X/ /data/a.txt",
    "ln -s /data/a.txt l; sed -i --follow-symlinks s/alpha/X/ l",
    "truncate -s 0 /data/a.txt",
    "echo x >| /data/a.txt",
    "exec 3<> /data/a.txt; cd /; echo X >&3",
    "cd /data/sub; echo x > ../a.txt",
    "mkdir w; ln -s /data w/l; cd -P w/l; echo x > ./a.txt",
    "mkdir -p x/y; ln -s /data x/y/l; echo x > x/y/l/../../../data/a.txt",
    "echo x > /data/./a.txt",
    "echo x > //data//a.txt",
    "echo x > /workspace/../data/a.txt",
    "dd if=/dev/zero of=/data/a.txt count=1 conv=notrunc",
    "echo x | tee -a /data/a.txt",
    "sort -o /data/a.txt /data/a.txt",
    "find /data -name a.txt -fprint /data/a.txt",
    "echo x | sed 'w /data/new'",
    'awk \'BEGIN{print "x" > "/data/new"}\'',
    "mkdir t; ln -s /data t/l; tar -cf t.tar t; rm -r t; tar -xf t.tar; echo x > t/l/a.txt",
    'lua -e \'os.rename("/data/a.txt","/workspace/z")\'',
    'node -e \'require("fs").writeFileSync("/data/a.txt","x")\'',
    "sqlite3 :memory: \"vacuum into '/data/v.db'\"",
    "exec 5</data; cd /dev/fd/5 && echo x > a.txt",
]

READS = [
    "ln -s /secret/key l; cat l",
    "ln -s /secret l; cat l/key",
    "echo $(< /secret/key)",
    "mapfile a < /secret/key; echo $a",
    "source /secret/key",
    "realpath /secret/key; readlink -f /secret/key",
    "echo /secret/*; compgen -f /secret/",
    "cd -P /secret; pwd; ls",
    "exec 3</secret/key; cat /dev/fd/3",
    "grep -r SECRET /",
    "sed 'r /secret/key' /data/a.txt",
    "jq --rawfile x /secret/key -n '$x'",
    "awk 'BEGIN{while((getline l < \"/secret/key\")>0) print l}'",
    "sqlite3 :memory: \"select readfile('/secret/key')\"",
    "bash -v /secret/key",
    "history -r /secret/key; history",
    "[[ $(</secret/key) == S* ]] && echo SECRET-guessed",
    "cd /data; ln -s /secret s 2>&1; cat s/key",
]


def _tree(bash: Bash) -> dict[str, bytes | None]:
    bash.vfs.gate = None
    view = bash.vfs.view("/")
    out: dict[str, bytes | None] = {}
    for top in ("/data", "/secret"):
        for path, _dirs, files in view.walk(top):
            out[path] = None
            for name in files:
                out[f"{path}/{name}"] = view.read_bytes(f"{path}/{name}")
    return out


@pytest.mark.parametrize("script", WRITES + READS)
def test_grants_hold_every_name_of_a_file(script: str, walker: bool) -> None:
    before = _tree(sandbox(None))
    bash = sandbox(Policy(paths=GRANTS, mode="remediation"))
    r = bash.exec(script)
    assert "SECRET" not in r.stdout + r.stderr, r.stdout + r.stderr
    assert _tree(bash) == before, r.stderr


# python3 runs in a child process: Monty is not fork-safe, and a Monty started in this (pytest's)
# process would make python3 refuse to start in the children the security harness forks later
PY_WRITES = [
    'python3 -c \'open("/data/a.txt","w").write("x")\'',
    "python3 -c 'print(open(\"/secret/key\").read())'",
]


@pytest.mark.parametrize("script", PY_WRITES)
def test_grants_hold_for_the_python_runtime(script: str) -> None:
    import subprocess
    import sys
    from pathlib import Path

    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import test_attack9 as t\n"
        "from sandbash.policy import Policy\n"
        "before = t._tree(t.sandbox(None))\n"
        "bash = t.sandbox(Policy(paths=t.GRANTS, mode='remediation'))\n"
        f"r = bash.exec({script!r})\n"
        "print('SECRET' in r.stdout + r.stderr, t._tree(bash) == before, 'PermissionError' in r.stderr)\n"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    # (no secret seen, nothing changed, and python3 itself ran: the policy's refusal is its PermissionError)
    assert got.stdout.split() == ["False", "True", "True"], got.stdout + got.stderr


# ------------------------------------------------------------------ memory and time

MEM = ("max_memory",)
ENDLESS = "yes | tr -d '\\n'"  # one line that never ends
LONG = "$(head -c 900000 /dev/zero | tr '\\0' a)"  # 900 KB (hardened: max_string_length 1 MB)
DAG = "reduce range(40) as $i ([]; [., .])"  # 40 arrays, 2**40 paths


def bomb(case_id: str, script: str, expect: tuple[str, ...] = MEM, timeout: float = 4.0) -> Any:
    return param(
        case_id,
        script,
        timeout=timeout,
        expect=expect,
        overrides={"max_command_count": 10_000_000, "max_loop_iterations": 10_000_000, "max_work": 10**9},
    )


BOMBS = [
    # whole-input reads of a pipe (Ctx.read_input / read_all), each a caller of its own
    bomb("diff-stdin", f"{ENDLESS} | diff - /dev/null | wc -c"),
    # bc reads a line at a time (d22f4ac), like sqlite3: a line that never ends is max_string_length
    bomb("bc-stdin", f"{ENDLESS} | bc | wc -c", ("max_string_length",)),
    bomb("dc-stdin", f"{ENDLESS} | dc | wc -c", ("max_string_length",)),  # a line at a time, as bc
    bomb("iconv-stdin", f"{ENDLESS} | iconv -f utf8 -t utf16 | wc -c"),
    bomb("sha1sum-check", f"{ENDLESS} | sha1sum -c"),
    bomb("md5sum-check", f"{ENDLESS} | md5sum -c"),
    # split -n needs the input's size: a pipe is refused at once, as GNU split does (3725602), nothing held
    bomb("split-chunks", f"{ENDLESS} | split -n 2 -", ("result",)),
    bomb("split-chunks-fifo", f"{ENDLESS} | split -n 2 /dev/stdin", ("result",)),
    bomb("yq-stdin", f"{ENDLESS} | yq . | wc -c"),
    bomb("pr-stdin", f"{ENDLESS} | pr | wc -c"),
    bomb("sed-r-stdin", f"{ENDLESS} | sed 'r /dev/stdin' <(echo x) | wc -c"),
    bomb("zip-names", f"{ENDLESS} | zip -@ z.zip"),
    bomb("sqlite3-line", f"{ENDLESS} | sqlite3 :memory: | wc -c", ("max_string_length",)),
    bomb("sqlite3-statement", "yes | sqlite3 :memory: | wc -c", ("max_string_length",)),
    bomb("bash-stdin", f"{ENDLESS} | bash", ("max_input_size",)),
    bomb("bash-stdin-lines", "yes | bash", ("max_input_size",)),
    bomb("bash-s", f"{ENDLESS} | bash -s", ("max_input_size",)),
    bomb("bash-new-stdin", f"printf 'exec 0< <({ENDLESS})\\necho hi\\n' > s; bash < s", ("max_input_size",)),
    bomb("bash-s-new-stdin", f"printf 'exec 0< <({ENDLESS})\\necho hi\\n' | bash -s", ("max_input_size",)),
    # an operator applied to each element: each result within max_string_length, the list not
    bomb("patsub-elements", 'a=( $(seq 20000) ); b=( "${a[@]/*/${a[*]}}" )'),
    bomb("patsub-prefix", 'a=( $(seq 20000) ); x=${a[*]}; echo "${a[@]/#/$x}" | wc -c'),
    bomb("xform-elements", 'a=( $(seq 19000) ); x=${a[*]}; b=( ${a[@]/*/$x} ); b=( "${b[@]@Q}" )'),
    # awk: a record rebuilt with a long OFS, fields holding copies, huge splits
    bomb("awk-ofs", f"awk 'BEGIN{{OFS=\"'\"{LONG}\"'\"; $1000=1; print}}' | wc -c", ("max_string_length",)),
    bomb(
        "awk-ofs-nf", f"awk 'BEGIN{{OFS=\"'\"{LONG}\"'\"; NF=1000; print}}' | wc -c", ("max_string_length",)
    ),
    bomb(
        "awk-fields",
        'awk \'BEGIN{s=sprintf("%*c", 900000, "a"); for(i=1;i<=200;i++) $i=s; print length($0)}\'',
    ),
    bomb(
        "awk-split-chars",
        'awk \'BEGIN{s=sprintf("%*c", 900000, "a"); print split(s, a, "")}\'',
        ("max_array_elements",),
    ),
    bomb(
        "awk-patsplit",
        'awk \'BEGIN{s=sprintf("%*c", 900000, "a"); print patsplit(s, a, /./)}\'',
        ("max_array_elements",),
    ),
    # jq: walks of a value made of shared parts
    bomb("jq-flatten", f"jq -n '{DAG} | flatten | length'", ("timeout", "max_work")),
    bomb("jq-tostream", f"jq -n '{DAG} | tostream | length' | wc -l", ("max_memory", "timeout", "max_work")),
    bomb("jq-sort", f"jq -n '{DAG} | [., .] | sort | length'", ("result",)),  # a shared part keyed once
    bomb("jq-group", f"jq -n '{DAG} | group_by(.) | length'", ("result",)),
    bomb("jq-min", f"jq -n '{DAG} | min | length'", ("max_memory", "timeout", "max_work")),
    bomb("jq-inside", f"jq -n '{DAG} | inside(.)'", ("timeout", "max_work")),
    # (an answer, not a limit: a wall-clock deadline a loaded host can reach first is left far off)
    bomb("jq-csv-message", f"jq -n '{DAG} | @csv'", ("result",), timeout=15.0),
    bomb("jq-debug", f"jq -n '{DAG} | debug | length'", ("max_string_length",)),
    bomb("jq-error", f"jq -n '{DAG} | error'", ("max_string_length",)),
    bomb("jq-sh", f"jq -n '{DAG} | @sh'", ("result",), timeout=15.0),
    bomb("jq-json-format", f"jq -n '{DAG} | @json | length'", ("max_string_length",)),
]


@pytest.fixture(scope="module", params=[False, True], ids=["compiled", "walked"])
def bomb_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    walked = request.param
    specs: dict[str, dict[str, Any]] = {}
    for p in BOMBS:
        case = p.values[0]
        specs[case["id"]] = {
            "script": case["script"],
            "limits": case["profile"],
            "overrides": {**case["overrides"], "timeout": case["timeout"]},
        }
    mp = pytest.MonkeyPatch()
    mp.setattr(evaluator_module, "TREE_WALKER", walked)  # the children are forked from here
    try:
        return pooled(f"attack9-bombs-{walked}", specs)
    finally:
        mp.undo()


@pytest.mark.parametrize("case", BOMBS)
def test_growth_is_charged(case: dict[str, Any], bomb_outcomes: dict[str, Outcome]) -> None:
    out = bomb_outcomes[case["id"]]
    if case["expect"] == ("result",):
        # a message quoting the value shows its start only, a shared part is keyed once: nothing held
        assert out.kind == "result", out.describe()
        assert out.extra["peak_rss"] < (64 << 20) + (150 << 20), out.describe()
        return
    verify_bomb(case, out)


ORDINARY = [
    ("printf 'a b\\n' | diff - <(printf 'a c\\n') | wc -l", "4\n"),
    ("echo '2^10' | bc", "1024\n"),
    ("printf 'select 1;\\nselect\\n2;\\n' | sqlite3 :memory:", "1\n2\n"),
    ("printf 'echo hi\\n' | bash", "hi\n"),
    (
        "printf \"create table t(x);\\ninsert into t values('a;\\nb');\\nselect\\n*\\nfrom t;\\n\" | sqlite3",
        "a;\nb\n",
    ),
    ("echo 'echo two' > f2; printf 'echo one\\nexec 0< f2\\necho lost\\n' | bash", "one\ntwo\n"),
    ('a=(x y); echo "${a[@]/x/zz}" "${a[@]@Q}"', "zz y 'x' 'y'\n"),
    (
        "echo 'a b c' | awk 'BEGIN{OFS=\"-\"}{$5=\"e\"; print; NF=2; print; $2=1.5; print}'",
        "a-b-c--e\na-b\na-1.5\n",
    ),
    (
        'awk \'BEGIN{n=split("abc", a, ""); m=patsplit("x1y22", b, /[0-9]+/); print n, a[3], m, b[2]}\'',
        "3 c 2 22\n",
    ),
    (
        "jq -cn '[3,[1],{\"a\":1},null,[1]] | sort, unique, (group_by(type)|length), min'",
        '[null,3,[1],[1],{"a":1}]\n[null,3,[1],{"a":1}]\n4\nnull\n',
    ),
    (
        "jq -cn '[[1,[2]],3] | flatten, [tostream]'",
        "[1,2,3]\n[[[0,0],1],[[0,1,0],2],[[0,1,0]],[[0,1]],[[1],3],[[1]]]\n",
    ),
    ("jq -n '[1,2] | error' 2>&1; jq -n '{\"a\":\"bbbbbbbbbbbbbb\"} | @csv' 2>&1", None),
]


@pytest.mark.parametrize(("script", "expected"), ORDINARY)
def test_ordinary_use_is_unaffected(script: str, expected: str | None, walker: bool) -> None:
    r = Bash(limits="hardened").exec(script)
    if expected is None:  # jq's messages quote the start of the value, as jq
        assert r.stdout == (
            "jq: error (at <unknown>) (not a string): [1,2]\n"
            'jq: error (at <unknown>): object ({"a":"bbbbb...) cannot be csv-formatted, only array\n'
        ), r.stdout
        return
    assert (r.stdout, r.exit_code) == (expected, 0), r.stderr


# ------------------------------------------------------------------ builtins on hot paths

# a denied builtin stays refused however it is reached, also once its loop or function is compiled
BUILTIN_ROUTES = {
    "printf": [
        "printf x > /w/p",
        "builtin printf x > /w/p",
        "command printf x > /w/p",
        "for i in $(seq 300); do printf x > /w/p; done",
        "f(){ printf x > /w/p; }; for i in $(seq 300); do f; done",
        "printf -v v x; echo $v > /w/p",
    ],
    "echo": [
        "for i in $(seq 300); do echo x > /w/p; done",
        "f(){ echo x; }; for i in $(seq 300); do f > /w/p; done",
        'x=$(echo x); echo "$x" > /w/p',
    ],
    "eval": [
        "eval 'echo x > /w/p'",
        "builtin eval 'echo x > /w/p'",
        "e=eval; $e 'echo x > /w/p'",
        "for i in $(seq 300); do [ $i = 300 ] && eval 'echo x > /w/p'; done",
        "shopt -s expand_aliases\nalias ev=eval\nev 'echo x > /w/p'",
        "trap \"eval 'echo x > /w/p'\" EXIT",
    ],
    "source": [
        "echo 'echo x > /w/p' > /w/s; for i in $(seq 300); do :; done; for i in 1; do . /w/s; done",
        "echo 'echo x > /w/p' > /w/s; s=.; $s /w/s",
        "echo 'echo x > /w/p' > /w/s; builtin source /w/s",
    ],
}


@pytest.mark.parametrize(
    ("denied", "script"), [(name, s) for name, scripts in BUILTIN_ROUTES.items() for s in scripts]
)
def test_denied_builtin_stays_refused_on_every_route(denied: str, script: str, walker: bool) -> None:
    vfs = Vfs()
    vfs.view("/").mkdir("/w", parents=True)
    bash = Bash(fs=vfs, policy=Policy(deny=[denied], paths=["/w:rw"], mode="remediation"))
    r = bash.exec(script)
    vfs.gate = None
    view = vfs.view("/")
    written = view.read_bytes("/w/p") if view.exists("/w/p") else b""
    assert b"x" not in written, r.stderr
    assert "policy denied this command" in r.stderr, r.stderr


# ------------------------------------------------------------------ tenancy

SETUP = r"""
shopt -s expand_aliases extglob nocasematch failglob; alias ll='echo LEAKED'
hash -p /bin/rm cat; trap 'echo LEAKED' EXIT RETURN ERR
umask 077; cd /tmp; export LEAK=LEAKED; set -o noclobber; IFS=:; PS4='LEAKED '
f(){ echo LEAKED; }; declare -gA m=([k]=LEAKED); enable -n echo; readonly R=LEAKED
for i in $(seq 300); do x=$((i * 2)); y=${x//2/LEAKED}; done
"""
PROBE = r"""
echo "umask=$(umask) cwd=$PWD leak=${LEAK-} ifs=[$IFS] ${m[k]-} ${R-}"
type ll f 2>&1; hash 2>&1; trap -p; enable | grep -c 'enable echo$'
shopt nocasematch extglob failglob | tr -s ' \t\n' ' '; echo
x=AB; case $x in ab) echo same;; *) echo differs;; esac; echo /no*match
for i in $(seq 300); do x=$((i * 2)); y=${x//2/ok}; done; echo $y
"""


def test_nothing_a_run_sets_reaches_another() -> None:
    """Two Bash objects and sessions of one, in threads: one sets everything a shell holds
    (options, aliases, hash table, traps, umask, cwd, env, functions, hot compiled loops), the
    others see a fresh shell each time, as a fresh process does."""
    import threading

    expected = Bash().exec(PROBE).stdout
    assert "LEAKED" not in expected
    a, b = Bash(), Bash()
    setter = a.session()
    setter.exec(SETUP)
    outs: list[str] = []

    def probe(run: Any) -> None:
        for _ in range(4):
            r = run(PROBE)
            outs.append(r.stdout + r.stderr)

    def churn() -> None:
        for _ in range(10):
            setter.exec(SETUP)

    threads = [
        threading.Thread(target=probe, args=(b.session().exec,)),
        threading.Thread(target=probe, args=(b.exec,)),
        threading.Thread(target=probe, args=(a.exec,)),
        threading.Thread(target=probe, args=(a.session().exec,)),
        threading.Thread(target=churn),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outs) == 16
    assert all(o == expected for o in outs), [o for o in outs if o != expected][:1]


# ------------------------------------------------------------------ devices read whole

DEVICE_WHOLE = [
    # a device never ends: read whole it is ENOMEM, reported as a file's error (these escaped the
    # callers as `sandbash: internal error (StreamError ...)` and ended the run)
    ("bash /dev/zero; echo st=$?", "st=126\n", "bash: /dev/zero: Cannot allocate memory\n"),
    ("bash /dev/urandom; echo st=$?", "st=126\n", "bash: /dev/urandom: Cannot allocate memory\n"),
    ("x=$(< /dev/zero); echo st=$?", "st=1\n", "bash: line 1: /dev/zero: Cannot allocate memory\n"),
    ("x=$(< /dev/urandom); echo st=$?", "st=1\n", "bash: line 1: /dev/urandom: Cannot allocate memory\n"),
    # and sqlite3 on a path with no database (a device, a new file) answers a query (was an
    # internal error: an empty database has no image to write back)
    ("sqlite3 /dev/zero 'select 1'; echo st=$?", "1\nst=0\n", ""),
    ("sqlite3 /tmp/new.db 'select 1'; echo st=$?", "1\nst=0\n", ""),
]


@pytest.mark.parametrize(("script", "out", "err"), DEVICE_WHOLE)
def test_a_device_read_whole_is_an_error(script: str, out: str, err: str, walker: bool) -> None:
    r = Bash().exec(script)
    assert (r.stdout, r.stderr) == (out, err)
