"""`check` agrees with execution, on generated scripts:
- where `check` says `allowed`, running the script produces no policy refusal;
- a site `check` marks `denied` is refused when it runs (every generated site runs: only `;`,
  subshells, groups, `if true`, one-iteration loops, substitutions and called functions)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sandbash.check import ALLOWED, DENIED, CheckReport, SiteReport
from sandbash.policy import Policy

from .test_policy_table import sandbox

FILES = ["/data/a.txt", "/workspace/notes", "/secret/key", "/workspace/link"]
NEW = ["/workspace/new1", "/data/new1", "/secret/new1", "/dev/null", "/workspace/notes"]
DIRS = ["/data", "/workspace", "/secret", "/"]
MKDIRS = ["/workspace/d1", "/data/d1", "/secret/d1"]
NAMES = [
    "cat",
    "head",
    "wc",
    "grep",
    "ls",
    "sort",
    "touch",
    "mkdir",
    "cp",
    "rm",
    "find",
    "stat",
    "tr",
    "source",
    "declare",
    "awk",
    "gzip",
]

files = st.sampled_from(FILES)
atoms = st.one_of(
    st.builds(lambda p: f"cat {p}", files),
    st.builds(lambda p: f"head -1 {p}", files),
    st.builds(lambda p: f"wc -l {p}", files),
    st.builds(lambda p: f"grep -c a {p}", files),
    st.builds(lambda p: f"sort {p}", files),
    st.builds(lambda p: f"stat -c %s {p}", files),
    st.builds(lambda d: f"ls {d}", st.sampled_from(DIRS)),
    st.builds(lambda d: f"find {d} -name zz", st.sampled_from(DIRS)),
    st.builds(lambda w: f"touch {w}", st.sampled_from(NEW)),
    st.builds(lambda d: f"mkdir -p {d}", st.sampled_from(MKDIRS)),
    st.builds(lambda p, w: f"cp {p} {w}", files, st.sampled_from(NEW)),
    st.builds(lambda w: f"echo x > {w}", st.sampled_from(NEW)),
    st.builds(lambda w: f"echo x >> {w}", st.sampled_from(NEW)),
    st.builds(lambda p: f"[ -f {p} ]", files),
    st.builds(lambda p: f"tr a b < {p}", files),
    st.sampled_from(["curl -s http://x", "python3 -V", "echo ok", "true"]),
    # directories, globs, links, sub-commands: where only some things are known statically
    st.sampled_from(
        [
            "cd /data",
            "cd /workspace",
            "cd /",
            "cat a.txt",
            "cat notes",
            "cat ../secret/key",
            "cat /data/*",
            "wc -l /workspace/*",
            "ls /secret/*",
            'for f in /workspace/*; do cat "$f"; done',
            "ln -s /secret/key /workspace/l3",
            "cat /workspace/l3",
            "ln -s /secret /workspace/sd",
            "cat /workspace/sd/key",
            "mv /workspace/link /workspace/moved",
            "cat /workspace/moved",
            "echo /data/a.txt | xargs cat",
            "find /workspace -name notes -exec cat {} \\;",
            "find /workspace -exec cat {} +",
            "awk '{print}' /workspace/notes",
            "sed -n 1p /data/a.txt",
            "x=/secret/key; cat $x",
            "ls",
            "ls /workspace",
            "cp -r /workspace /data/w2",
        ]
    ),
    # other spellings of one implementation, retargeted names, code hidden in variable contents
    st.builds(lambda p: f"egrep -c a {p}", files),
    st.builds(lambda p: f"rg -c a {p}", files),
    st.builds(lambda d: f"dir {d}", st.sampled_from(DIRS)),
    # (not through /workspace/link: sandbash's gzip skips a symbolic link even with -c; GNU zcat reads it)
    st.builds(lambda p: f"zcat {p}", st.sampled_from(FILES[:3])),
    st.builds(lambda p: f"gawk 1 {p}", files),
    st.builds(lambda p: f"hash -p /bin/rm cat; cat {p}", files),
    st.builds(lambda p: f"hash -p /bin/head cat; cat {p}", files),
    # the hash table is the shell's own: programs search PATH, and assigning PATH empties it
    st.builds(
        lambda w, p: f"hash -p /bin/rm cat; {w} cat {p}", st.sampled_from(["env", "timeout 5", "nice"]), files
    ),
    st.builds(lambda p: f"hash -p /bin/rm cat; PATH=$PATH cat {p}", files),
    st.builds(lambda p: f'printf -v "a[$(rm {p})]" %s 1', files),
    st.builds(lambda p: f'read "a[$(cat {p})]" <<< 1', files),
    st.builds(lambda p: f'declare "a[$(wc -l {p})]=1"', files),
    st.builds(lambda p: f'export PS4="\\$(cat {p})"; set -x; true; set +x', files),
    st.builds(lambda p: f'[[ -v "a[$(head -1 {p})]" ]]', files),
    # integer variables, compound keys and namerefs evaluating a value read at run time
    st.builds(lambda p: f'a=(1); read x <<< "a[\\$(cat {p})]"; declare -i y=x', files),
    st.builds(lambda p: f'a=(1); read x <<< "a[\\$(rm {p})]"; arr=([x]=1)', files),
    # (in a subshell: wc's "N path" makes the subscript a syntax error, which ends the shell that
    # evaluates it, and the generated lines after it must run)
    st.builds(lambda p: f'a=(1); read x <<< "a[\\$(wc -l {p})]"; declare -n r=x; (echo $((r)))', files),
    st.builds(lambda p: f'a=(1); declare -n r=x; r="a[\\$(cat {p})]"; echo $((x))', files),
    st.sampled_from(
        [
            "typeset t=1",
            "readarray r < /data/a.txt",
            ". /workspace/notes",
            "[ -d /data ]",
            "printf '#!/bin/rm -f\\n' > /workspace/s; chmod +x /workspace/s; /workspace/s /workspace/notes",
            "printf '#!/usr/bin/env cat\\n' > /workspace/s; chmod +x /workspace/s; /workspace/s",
            "for i in 1 2; do echo $((i + 1)); done",
            "read n <<< 3; echo $((n))",
        ]
    ),
)


def wrap(atom: str, how: int, functions: bool) -> str:
    forms = [
        atom,
        f"( {atom} )",
        f"{{ {atom}; }}",
        f"if true; then {atom}; fi",
        f"for i in 1; do {atom}; done",
        f"x=$({atom})",
        f"echo y | {atom}",
        f"bash -c '{atom}'" if "'" not in atom else atom,
        f"eval '{atom}'" if "'" not in atom else atom,
    ]
    if functions:
        forms.append(f"f{how}() {{ {atom}; }}; f{how}")
    return forms[how % len(forms)]


@dataclass
class Gen:
    policy: Policy
    script: str


@st.composite
def generated(draw: st.DrawFn) -> Gen:
    kind = draw(st.sampled_from(["allow", "deny", "all"]))
    mode = draw(st.sampled_from(["read-only", "remediation"]))
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=len(NAMES)))
    if kind == "allow":
        policy = Policy(names + ["bash"], paths=["/data:ro", "/workspace:rw"], mode=mode)
    elif kind == "deny":
        policy = Policy(deny=names[:3], paths=["/data:ro", "/workspace:rw"], mode=mode)
    else:
        policy = Policy(paths=["/data:ro", "/workspace:rw"], mode=mode)
    # functions need no allow-list entry once the executor passes the command's kind
    functions = kind != "allow"
    parts = draw(st.lists(st.tuples(atoms, st.integers(0, 20)), min_size=1, max_size=4))
    script = "\n".join(wrap(a, h, functions) for a, h in parts)
    return Gen(policy, script)


def denials(events: list[dict[str, object]]) -> list[tuple[str, str]]:
    return [
        (str(e["action"]), str(e["target"]))
        for e in events
        if e["kind"] == "decision" and e["decision"] == "deny"
    ]


def runs(report: CheckReport, site: SiteReport) -> bool:
    """Whether the site surely runs: every site of the generated text does, unless a site it
    depends on (a wrapper, or the command whose words hold it) is refused first."""
    while site.parent is not None:
        site = report.sites[site.parent]
        if site.status == DENIED:
            return False
    return True


def _explain(report: CheckReport, script: str, events: list[dict[str, object]]) -> str:
    return f"\nscript:\n{script}\nreport:\n{report.to_text()}denials: {denials(events)}"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated())
@example(
    Gen(
        Policy(paths=["/data:ro", "/workspace:rw"], mode="read-only"),
        "hash -p /bin/rm cat; env cat /data/a.txt\ncat a.txt",
    )
)
@example(
    Gen(
        Policy(["bash", "cat", "head", "rm"], paths=["/data:ro", "/workspace:rw"], mode="remediation"),
        "hash -p /bin/rm cat; cat /workspace/link\nhead -1 /workspace/link",
    )
)
@example(
    Gen(
        Policy(deny=["cat"], paths=["/data:ro", "/workspace:rw"], mode="read-only"),
        'a=(1); read x <<< "a[\\$(wc -l /data/a.txt)]"; declare -n r=x; (echo $((r)))\ncat /data/a.txt',
    )
)
def test_check_agrees_with_execution(gen: Gen) -> None:
    bash = sandbox(gen.policy)
    report = bash.check(gen.script)
    # the check decides a removal on the name; the run's rm first finds that a missing name has
    # nothing to remove (`hash -p /bin/rm cat; cat a.txt`: "cannot remove 'a.txt': No such file"),
    # so a foreseen denial of deleting a path absent before the run need not come
    absent_deletes = {
        m.group(1)
        for s in report.sites
        for i in s.issues
        if (m := re.search(r": delete (/\S+): policy denied", i.message)) and not bash.fs.exists(m.group(1))
    }
    result = bash.exec(gen.script)
    refused = denials(result.events)
    if report.status == ALLOWED:
        assert not refused, _explain(report, gen.script, result.events)
    targets = {t for _, t in refused}
    # code only the run can evaluate (hidden in a variable name, ...) may change the filesystem before
    # a later site meets the path the check foresaw (`printf -v "a[$(rm link)]"; cat link`): then a
    # foreseen path denial need not come. Command-name denials do not depend on it.
    volatile = any(i.code == "requires_execution" for s in report.sites for i in s.issues)
    # an rm the policy lets run (`hash -p /bin/rm cat; cat link`) may remove the path a later site
    # was foreseen to be refused on (`head link`, a link to a path no grant covers): then the run
    # meets no such file instead of the refusal
    first_rm = next(
        (n for n, s in enumerate(report.sites) if s.target == "rm" and s.status != DENIED), len(report.sites)
    )
    # that code may also fail as bash fails it, ending the shell (`declare "a[$(wc -l f)]=1"`: an
    # arithmetic error in the subscript is fatal): then no later line runs, refused or not
    hidden_lines = [s.line for s in report.sites if any(i.code == "requires_execution" for i in s.issues)]
    ended_at = (
        min(hidden_lines)
        if hidden_lines and result.exit_code != 0 and f"line {min(hidden_lines)}: " in result.stderr
        else None
    )
    for n, site in enumerate(report.sites):
        if site.status != DENIED or not runs(report, site):
            continue
        if ended_at is not None and site.line > ended_at and site.target not in targets:
            continue
        codes = {i.code for i in site.issues}
        name_refused = "command_not_allowed" in codes
        if name_refused:
            assert site.target in targets, _explain(report, gen.script, result.events)
        elif codes & {"path_not_allowed", "write_in_read_only_mode"} and not volatile and n < first_rm:
            if refused or all(any(p in i.message for p in absent_deletes) for i in site.issues):
                continue
            raise AssertionError(_explain(report, gen.script, result.events))
    path_only_after_rm = all(
        n > first_rm or site.status != DENIED for n, site in enumerate(report.sites)
    ) and not any("command_not_allowed" in {i.code for i in site.issues} for site in report.sites)
    if report.status == DENIED and not volatile and not absent_deletes and not path_only_after_rm:
        assert refused, _explain(report, gen.script, result.events)
