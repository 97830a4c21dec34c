"""The static check and analyze: codes, statuses, report shape, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.check import ALLOWED, DENIED, INDETERMINATE, analyze, check
from sandbash.cli.app import main
from sandbash.policy import Action, Policy
from sandbash.vfs.facade import Vfs

P = Policy(
    {
        "allow": [
            "cat",
            "grep",
            "ls",
            "find",
            "xargs",
            "sh",
            "wc",
            "sort",
            "head",
            "cp",
            "mv",
            "ln",
            "mkdir",
            "touch",
            "awk",
            "sed",
            "tee",
            "rm",
            "bash",
        ],
        "deny": ["rm"],
    },
    paths=["/data:ro", "/workspace:rw"],
    mode="remediation",
)
RO = Policy(paths=["/data:ro", "/workspace:rw"], mode="read-only")
W = "/workspace"


@pytest.mark.parametrize(
    ("script", "status", "codes"),
    [
        ("cat /data/a", ALLOWED, []),
        ("echo hi > /workspace/out", ALLOWED, []),
        ("cat /secret/k", DENIED, ["path_not_allowed"]),
        ("echo x > /data/a", DENIED, ["path_not_allowed"]),
        ("rm /workspace/x", DENIED, ["command_not_allowed"]),
        ("curl http://example.com", DENIED, ["command_not_allowed"]),
        ("frobnicate", DENIED, ["command_not_allowed"]),  # not on the allow list
        ("cat $f", INDETERMINATE, ["requires_execution"]),
        ("$cmd /data/a", INDETERMINATE, ["requires_execution"]),
        ('eval "$x"', INDETERMINATE, ["requires_execution"]),
        ("source /data/lib.sh", INDETERMINATE, ["requires_execution"]),
        ("cd /workspace; cat notes", INDETERMINATE, ["requires_execution"]),
        ("cat notes; cd /workspace", DENIED, ["path_not_allowed"]),  # before the cd: /home/user/notes
        ("cat /data/*.txt", ALLOWED, []),
        ("cat /secret/*", DENIED, ["path_not_allowed", "path_not_allowed"]),
        ("if false; then cat /secret/k; else cat /data/a; fi", DENIED, ["path_not_allowed"]),
        ("while false; do rm x; done", DENIED, ["command_not_allowed", "path_not_allowed"]),
        ("x=$(cat /secret/k)", DENIED, ["path_not_allowed"]),
        ("cat <(cat /secret/k)", DENIED, ["path_not_allowed"]),
        ("bash -c 'cat /secret/k'", DENIED, ["path_not_allowed"]),
        ("eval 'cat /secret/k'", DENIED, ["path_not_allowed"]),
        ("echo /data/a | xargs cat", INDETERMINATE, ["requires_execution"]),
        ("xargs rm < /data/list", DENIED, ["command_not_allowed", "requires_execution"]),
        ("find /data -name '*.txt' -exec cat {} \\;", ALLOWED, []),
        ("find /data -exec rm {} +", DENIED, ["command_not_allowed", "path_not_allowed"]),
        ("find / -name x", DENIED, ["path_not_allowed"]),
        ("awk 'BEGIN { system(\"cat /secret/k\") }'", DENIED, ["path_not_allowed"]),
        ("awk '{ print > \"/data/out\" }' /data/a", DENIED, ["path_not_allowed"]),
        ("sed -n 'w /data/copy' /data/a", DENIED, ["path_not_allowed"]),
        ("sed -i s/a/b/ /data/a", DENIED, ["path_not_allowed", "path_not_allowed"]),
        # the link may already exist when ln looks at its destination (through it), and when cat reads
        ("ln -s /secret /workspace/l; cat /workspace/l/k", INDETERMINATE, ["requires_execution"] * 2),
        ("cp /data/a /workspace/", ALLOWED, []),
        ("mv /data/a /workspace/", DENIED, ["path_not_allowed"]),
        ("exec 3> /data/x", DENIED, ["path_not_allowed"]),
        ("cat /data/a > /dev/null 2>&1", ALLOWED, []),
        ("f() { cat /secret/k; }", DENIED, ["path_not_allowed"]),  # every function body is checked
        ("trap 'cat /secret/k' EXIT", DENIED, ["path_not_allowed"]),
        ("PATH=/tmp:$PATH cat /data/a", INDETERMINATE, ["requires_execution"]),
        ('printf -v "$name" %s 1', INDETERMINATE, ["requires_execution"]),
        ("echo ${!ref}", INDETERMINATE, ["requires_execution"]),
        ('for f in /data/*.csv; do wc -l "$f"; done', ALLOWED, []),
        ("[ -f /secret/k ] && echo yes", DENIED, ["path_not_allowed"]),
        ("[[ -d /workspace ]]", ALLOWED, []),
        ("cat /data/a; rm -rf /", DENIED, ["command_not_allowed", "path_not_allowed"]),
    ],
)
def test_check_codes(script: str, status: str, codes: list[str]) -> None:
    report = check(script, P)
    assert report.status == status, report.to_text()
    assert sorted(i.code for i in report.issues) == sorted(codes), report.to_text()


@pytest.mark.parametrize(
    ("script", "status", "codes"),
    [
        ("cat /data/a", ALLOWED, []),
        ("touch /workspace/x", DENIED, ["write_in_read_only_mode"]),
        ("echo > /workspace/x", DENIED, ["write_in_read_only_mode"]),
        ("echo > /dev/null", ALLOWED, []),
        ("mkdir -p /workspace/d", DENIED, ["write_in_read_only_mode"]),
    ],
)
def test_read_only_mode(script: str, status: str, codes: list[str]) -> None:
    report = check(script, RO)
    assert (report.status, [i.code for i in report.issues]) == (status, codes), report.to_text()


def test_denial_beats_uncertainty_and_unknown_commands() -> None:
    r = check("cat $x /secret/k", P)
    assert r.status == DENIED and {i.code for i in r.issues} == {"path_not_allowed", "requires_execution"}
    r = check("frobnicate", Policy())
    assert r.status == INDETERMINATE and [i.code for i in r.issues] == ["unknown_command"]
    r = check("f() { :; }; f", Policy(["cat"]))
    assert r.status == ALLOWED


def test_no_policy_allows_everything_known() -> None:
    assert check("rm -rf / ; cat /etc/passwd > /x", Policy()).status == ALLOWED


def test_sites_positions_and_json() -> None:
    r = check("cat /data/a\n  rm x | head\n", P)
    sites = [(s.name, s.line, s.column, s.status) for s in r.sites]
    assert sites == [("cat", 1, 1, ALLOWED), ("rm", 2, 3, DENIED), ("head", 2, 10, ALLOWED)]
    data = json.loads(r.to_json())
    assert data["status"] == DENIED and data["sites"][1]["issues"][0]["code"] == "command_not_allowed"
    assert data["sites"][0]["args"] == ["/data/a"]
    assert r.exit_code == 1 and "status: denied" in r.to_text()


def test_redirect_targets_and_args_in_the_report() -> None:
    r = check("sort < /data/in > /workspace/out 2>&1 $x", P)
    site = r.sites[0]
    assert site.args == [None]
    assert site.redirects == [
        {"op": "<", "target": "/data/in", "mode": "read"},
        {"op": ">", "target": "/workspace/out", "mode": "write"},
    ]


def test_syntax_error() -> None:
    r = check("cat /data/a\nif then fi\n", P)
    assert r.status == INDETERMINATE and r.errors[0].code == "syntax_error" and r.errors[0].line == 2


# substitutions bash parses only as they run, whose text does not parse: they run nothing (their
# child reports the error and exits 2) and the script goes on, so they leave the verdict alone
UNPARSED = [
    ("echo `if`; cat /data/a", ALLOWED, 2),
    ("x=`cat /data/a; )`; cat /data/b", ALLOWED, 1),
    ("echo $((cat /data/a; fi) ) | wc -l", ALLOWED, 1),
    ('echo "`rm -rf /data; )`" x', ALLOWED, 1),
    ("echo `if`; rm /data/a", DENIED, 2),
    ("f() { echo `case`; }; f; $cmd", INDETERMINATE, 1),
]


@pytest.mark.parametrize(("script", "status", "line"), UNPARSED)
def test_an_unparsable_substitution_runs_nothing(script: str, status: str, line: int) -> None:
    r = check(script, P)
    assert r.status == status, r.to_dict()
    assert not r.errors
    notes = [w for w in r.warnings if "command substitution does not parse" in w]
    assert len(notes) == 1 and notes[0].startswith(f"line {line}:"), r.warnings
    assert all(s.name != "rm" or s.status == DENIED for s in r.sites)
    # what the check says runs is what runs: the substitution's child reports the error, nothing more
    bash = Bash(policy=P, files={"/data/a": "a\n", "/data/b": "b\n"})
    ran = bash.exec(script)
    assert "command substitution: line" in ran.stderr and "syntax error" in ran.stderr, ran.stderr
    assert bash.exec("cat /data/a /data/b").stdout == "a\nb\n"


def test_decide_in_the_check() -> None:
    asked: list[Action] = []

    def decide(a: Action) -> bool:
        asked.append(a)
        return not (a.kind == "shell:exec" and "--force" in a.argv)

    p = Policy(decide=decide)
    assert check("ls -l", p).status == ALLOWED
    assert check("ls --force", p).status == DENIED
    assert check("ls $x", p).status == INDETERMINATE
    assert all(a.dry_run for a in asked)


def test_check_follows_symlinks_in_the_filesystem() -> None:
    vfs = Vfs()
    view = vfs.view("/")
    view.mkdir("/data", parents=True)
    view.write_bytes("/data/a", b"A")
    view.symlink("/secret/k", "/data/link")
    bash = Bash(
        fs=vfs,
        files={"/secret/k": "K"},
        policy=Policy(paths=["/data:ro", "/workspace:rw"], mode="remediation"),
    )
    r = bash.check("cat /data/link")
    assert r.status == DENIED and "/secret/k" in r.issues[0].message
    assert bash.check("cat /data/a").status == ALLOWED


def test_analyze() -> None:
    a = analyze("f() { grep x /a > /b; }\nf; $tool --x; sort <<EOF\nq\nEOF\ncat < in")
    d = a.to_dict()
    assert d["functions"] == ["f"]
    assert d["commands"] == ["cat", "f", "grep", "sort"]
    assert d["redirects"] == [
        {"op": ">", "target": "/b", "mode": "write"},
        {"op": "<", "target": "in", "mode": "read"},
    ]
    assert d["opaque"] is True
    assert analyze("ls -l | wc -l").opaque is False


def test_cli_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text(
        'paths = ["/data:ro", "/home/user:rw"]\nmode = "remediation"\n[commands]\ndeny = ["rm"]\n'
    )
    assert main(["--check", "--policy", str(policy), "-c", "cat /data/x"]) == 0
    assert main(["--check", "--policy", str(policy), "-c", "rm /data/x"]) == 1
    assert main(["--check", "--policy", str(policy), "-c", "cat $x"]) == 3
    capsys.readouterr()
    assert main(["--check", "--json", "--policy", str(policy), "-c", "rm /data/x"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "denied" and out["policy"]["deny"] == ["rm"]
    bad = tmp_path / "bad.toml"
    bad.write_text("mode = 'x'")
    assert main(["--check", "--policy", str(bad), "-c", ":"]) == 2


def test_cli_policy_applies_to_runs(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text('commands = ["echo"]\n')
    assert main(["--policy", str(policy), "-c", "echo ok; cat /x"]) == 126
    out, err = capfd.readouterr()
    assert out == "ok\n" and "cat: policy denied this command [policy: commands.allow]" in err


@pytest.mark.parametrize(
    ("argv", "effects"),
    [
        (["sort", "-o", "out", "in"], [("read", "in"), ("create", "out")]),
        (["uniq", "in", "out"], [("read", "in"), ("create", "out")]),
        (["cp", "-r", "a", "b"], [("stat", "b"), ("read", "a"), ("create", "b|b/a")]),
        (["mv", "a", "d/"], [("stat", "d/"), ("rename", "a"), ("rename", "d/|d/a")]),
        (["ln", "-s", "/t", "l"], [("stat", "l"), ("symlink", "l")]),
        (["rm", "-rf", "x"], [("delete", "x")]),
        (["rmdir", "-p", "a/b"], [("delete", "a/b"), ("delete", "a")]),
        (["unlink", "x"], [("delete", "x")]),
        (["link", "a", "b"], [("stat", "b"), ("create", "b"), ("link", "a")]),
        (["mknod", "-m", "600", "p", "c", "1", "3"], [("create", "p")]),
        (["chmod", "-R", "755", "d"], [("chmod", "d")]),
        (["touch", "-r", "ref", "f"], [("stat", "ref"), ("create", "f")]),
        (["mkdir", "-p", "d/e"], [("create", "d/e")]),
        (["tee", "-a", "f"], [("create", "f")]),
        (["gzip", "f"], [("read", "f"), ("create", "f.gz"), ("delete", "f")]),
        (["gunzip", "-k", "f.gz"], [("read", "f.gz"), ("create", "f")]),
        (["zcat", "f.gz"], [("read", "f.gz")]),
        (["tar", "czf", "a.tgz", "d"], [("create", "a.tgz"), ("read", "d")]),
        (["tar", "-xf", "a.tar", "-C", "out"], [("read", "a.tar"), ("create", "out")]),
        (["unzip", "-d", "o", "a.zip"], [("read", "a.zip"), ("create", "o")]),
        (["zip", "-r", "a.zip", "d"], [("create", "a.zip"), ("read", "d")]),
        (["split", "in", "p"], [("read", "in"), ("create", "paa")]),
        (["mktemp", "-p", "/w"], [("create", "/w/tmp.XXXXXXXXXX")]),
        (["curl", "-o", "f", "-d", "@body", "https://x/"], [("create", "f"), ("read", "body")]),
        (["wget", "-P", "dl", "https://x/a.zip"], [("create", "dl/a.zip")]),
        (["grep", "-r", "x", "d"], [("list", "d")]),
        (["grep", "-f", "pats", "x"], [("read", "pats"), ("read", "x")]),
        (["rg", "x"], [("list", ".|")]),
        (["jq", "--slurpfile", "v", "f.json", ".", "in.json"], [("read", "f.json"), ("read", "in.json")]),
        (["date", "-r", "f"], [("stat", "f")]),
        (["head", "-5", "f"], [("read", "f")]),
        (["stat", "-L", "f"], [("stat", "f")]),
        (["du", "-s"], [("list", ".")]),
        (["diff", "-r", "a", "b"], [("read", "a"), ("read", "b")]),
        (["test", "-f", "x"], [("stat", "x")]),
        (["xargs", "-a", "list", "rm"], [("read", "list")]),
        (["find", ".", "-newer", "ref", "-delete"], [("list", "."), ("stat", "ref"), ("delete", ".")]),
        # od's offset operands are no files (`od FILE +N`, `od FILE N`, --traditional's OFFSET LABEL),
        # unless an option of the modern form (-t, -j, -N, -A, -w...) makes every operand a file
        (["od", "-c", "x", "+1"], [("read", "x")]),
        (["od", "x", "10"], [("read", "x")]),
        (["od", "+2b"], []),
        (["od", "--traditional", "x", "10", "20"], [("read", "x")]),
        (["od", "-t", "x1", "x", "+1"], [("read", "x"), ("read", "+1")]),
        (["od", "x", "1.5"], [("read", "x"), ("read", "1.5")]),
    ],
)
def test_command_models(argv: list[str], effects: list[tuple[str, str]]) -> None:
    from sandbash.check.wrappers import model

    facts = model(argv[0], argv[1:])
    assert facts is not None
    got = [(e.action, "|".join("?" if p is None else p for p in e.paths)) for e in facts.effects]
    assert got == effects


def test_wrapper_models() -> None:
    from sandbash.check.wrappers import model

    def sub(argv: list[str]) -> list[list[str | None]]:
        facts = model(argv[0], argv[1:])
        assert facts is not None
        return facts.commands

    assert sub(["env", "-i", "A=1", "cat", "f"]) == [["cat", "f"]]
    assert sub(["timeout", "-s", "KILL", "5", "cat", "f"]) == [["cat", "f"]]
    assert sub(["nice", "-n", "5", "cat"]) == [["cat"]]
    assert sub(["stdbuf", "-oL", "-e", "0", "rm", "f"]) == [["rm", "f"]]
    assert sub(["xargs", "-n1", "rm", "-f"]) == [["rm", "-f", None]]
    assert sub(["xargs", "-I", "{}", "cp", "{}", "d"]) == [["cp", None, "d"]]
    assert sub(["xargs"]) == [["echo", None]]
    facts = model("bash", ["-c", "cat f", "name"])
    assert facts is not None and facts.scripts == ["cat f"]
    facts = model("sed", ["e date"])
    assert facts is not None and facts.scripts == ["date"]
    facts = model("awk", ['{ print | "sort"; system($0) }'])
    assert facts is not None and facts.scripts == ["sort", None]
