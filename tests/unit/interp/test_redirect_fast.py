"""Redirections through the table of file operators (Redirections._apply_file), literal
targets taken without the expander, and the Vfs walk under them: the same output and messages as
bash 5.2 (each row checked against /bin/bash), compiled and walked, with the descriptors restored
after each command, the descriptor limit still enforced, and the policy still asked (and audited)
about every file every redirection opens."""

from __future__ import annotations

import pytest

import sandbash.interp.evaluator as evaluator_module
from sandbash import Bash, ExecutionLimitError
from sandbash.audit import Audit, ListSink
from sandbash.policy import Policy

# (script, its stdout; stderr is sent there with 2>&1 where a row checks a message)
CASES = [
    ("echo a > f; cat f", "a\n"),
    ("echo a >> f; echo b >> f; cat f", "a\nb\n"),
    ("echo a > f; echo b 1> f; cat f", "b\n"),
    ("echo a >| f; cat f", "a\n"),
    ("printf 'x\\ny\\n' > f; read -r l < f; echo $l", "x\n"),
    ("echo ab > f; exec 3<> f; read -r -n 1 c <&3; echo -n Z >&3; exec 3>&-; cat f", "aZ\n"),
    ("echo err 2> e >&2; cat e", "err\n"),
    ("{ echo o; echo e >&2; } > o 2> e; cat o e", "o\ne\n"),
    ("echo x 5> f; echo st=$?; wc -c < f", "x\nst=0\n0\n"),
    ("echo q > 'a b'; cat 'a b'", "q\n"),
    ('n=f; echo q > "$n"1; cat f1', "q\n"),
    ("echo q > f\\*; cat 'f*'", "q\n"),
    ("touch a.txt; echo q > *.txt; cat a.txt", "q\n"),
    ("touch a.t b.t; { echo q > *.t; } 2>&1; echo st=$?", "bash: line 1: *.t: ambiguous redirect\nst=1\n"),
    ("echo q > nomatch*; cat 'nomatch*'", "q\n"),
    (
        "set -o noclobber; echo a > f; { echo b > f; } 2>&1; echo b >| f; cat f",
        "bash: line 1: f: cannot overwrite existing file\nb\n",
    ),
    ("set -o noclobber; echo a >> f; echo b >> f; cat f", "a\nb\n"),
    ("exec 3> f; echo via3 >&3; exec 3>&-; cat f", "via3\n"),
    ("exec {v}> f; echo via >&$v; exec {v}>&-; cat f", "via\n"),
    ("echo k > f; exec {v}< f; read -r x <&$v; echo $x", "k\n"),
    ("echo out > /dev/stdout", "out\n"),
    ("echo err 2>&1 > /dev/stderr", "err\n"),
    ("echo gone > /dev/null; cat < /dev/null; echo st=$?", "st=0\n"),
    ("mkdir d; { echo x > d; } 2>&1; echo st=$?", "bash: line 1: d: Is a directory\nst=1\n"),
    ("{ cat < nope; } 2>&1; echo st=$?", "bash: line 1: nope: No such file or directory\nst=1\n"),
    ("{ echo x > ''; } 2>&1; echo st=$?", "bash: line 1: : No such file or directory\nst=1\n"),
    ("e=; { echo x > $e; } 2>&1; echo st=$?", "bash: line 1: $e: ambiguous redirect\nst=1\n"),
    ("echo x > f > g; cat f g", "x\n"),
    ("echo x 2>&1 > f | cat; cat f", "x\n"),
    ("f() { echo in-f; }; f > o; cat o", "in-f\n"),
    ("for i in 1 2; do echo $i; done > o; cat o", "1\n2\n"),
    ("echo x >&- 2>/dev/null; echo st=$?", "st=1\n"),
    ("echo s &> f; cat f; echo t &>> f; cat f", "s\ns\nt\n"),
    ("exec 3>&1; echo via-dup >&3", "via-dup\n"),
    ("echo x > f; : < f > g; wc -c < g", "0\n"),
    ("echo hi > f; cat <> f", "hi\n"),
    ("echo hi > f; read -r x <> f; echo $x", "hi\n"),
    ("echo hi > f; cat 0<> f", "hi\n"),
]


def _run(script: str, walker: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    result = Bash().exec(script)
    return result.stdout, result.exit_code


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
@pytest.mark.parametrize(("script", "want"), CASES)
def test_redirection_output_as_bash(
    script: str, want: str, walker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(script, walker, monkeypatch)[0] == want


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
@pytest.mark.parametrize(
    "redir", ["> f", ">> f", ">| f", "< f", "<> f", "3> f", "> /dev/null", "< /dev/null", "> d"]
)
def test_descriptors_are_restored_after_each_command(
    redir: str, walker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = f"mkdir d; : > f; for i in 1 2 3; do echo $i {redir}; echo after$i; done 2>/dev/null; echo end"
    out, status = _run(script, walker, monkeypatch)
    assert [line for line in out.splitlines() if not line.isdigit()] == ["after1", "after2", "after3", "end"]
    assert status == 0


@pytest.mark.parametrize(
    "script", ["exec 7>f", ": 9>f", "echo x 3>a 4>b 5>c", "exec 3<>f 4>>g 5<f", "cat 99999<f"]
)
@pytest.mark.parametrize("walker", [False, True])
def test_a_descriptor_past_the_limit_is_a_bad_descriptor(
    script: str, walker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As bash past `ulimit -n` (which shows max_file_descriptors): that redirection fails, status
    1, and the run goes on; no descriptor at or past the limit is ever open."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    bash = Bash(limits={"max_file_descriptors": 5})
    for runs, text in ((1, f"{script}; echo st=$?"), (3, f"for i in 1 2 3; do {script}; echo st=$?; done")):
        r = bash.exec(f": > f; {text}")
        assert [line for line in r.stdout.splitlines() if line.startswith("st=")] == ["st=1"] * runs, r.stdout
        assert r.stderr.count("Bad file descriptor") == runs, r.stderr


@pytest.mark.parametrize(
    "script", ["for i in 1 2 3 4 5 6; do exec {fd}>f; done", "for ((;;)); do : {fd}>/dev/null; done"]
)
def test_the_descriptor_limit_still_holds(script: str) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits={"max_file_descriptors": 12}).exec(script)
    assert "max_file_descriptors" in str(e.value)


def test_every_redirection_is_decided_and_audited() -> None:
    sink = ListSink()
    bash = Bash(policy=Policy(paths=["/home:rw", "/data:ro"]), audit=Audit([sink]), files={"/data/x": "d"})
    result = bash.exec(
        "for i in 1 2 3; do echo $i >> f; done; echo x > /data/x; echo y > /etc/z; "
        "cat < /data/x; : > /dev/null; : < /dev/null; cat f"
    )
    assert result.stdout == "d1\n2\n3\n"
    assert result.stderr == (
        "bash: line 1: /data/x: Permission denied [policy: paths.read-only]\n"
        "bash: line 1: /etc/z: Permission denied [policy: paths.no-grant]\n"
    )
    events = [e.to_dict() for e in sink.events if e.kind == "decision"]
    opened = [
        (e["action"], e["target"], e["decision"])
        for e in events
        if e["action"] in ("fs:create", "fs:write", "fs:read") and e["target"] != "/usr/local/bin/cat"
    ]
    assert opened == [
        ("fs:create", "/home/user/f", "allow"),
        ("fs:write", "/home/user/f", "allow"),
        ("fs:write", "/home/user/f", "allow"),
        ("fs:write", "/data/x", "deny"),
        ("fs:create", "/etc/z", "deny"),
        ("fs:read", "/data/x", "allow"),
        ("fs:write", "/dev/null", "allow"),
        ("fs:read", "/dev/null", "allow"),
        ("fs:read", "/home/user/f", "allow"),
    ]


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
def test_reading_a_directory(walker: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """`< dir` opens a directory the user may read (the command's reads fail) and is refused one
    it may not (bash 5.2 as a non-root user, checked with `su nobody`: root reads any)."""
    script = (
        "mkdir d d2 d3; chmod 000 d; chmod 333 d2; "
        "{ cat < d; echo st=$?; cat < d3; echo st=$?; : < d2; echo st=$?; : < d3/; echo st=$?; "
        ": <> d3; echo st=$?; } 2>&1"
    )
    assert _run(script, walker, monkeypatch)[0] == (
        "bash: line 1: d: Permission denied\nst=1\ncat: -: Is a directory\nst=1\n"
        "bash: line 1: d2: Permission denied\nst=1\nst=0\nbash: line 1: d3: Is a directory\nst=1\n"
    )
