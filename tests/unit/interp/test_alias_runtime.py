"""Aliases in $( ), backquotes, <( ) and >( ) expanded when the substitution runs (interp/aliasrun.py).

The behaviour against bash is in tests/spec/cases/fx_alias9_comsub.txt and fx_alias10_runtime.txt;
here: what only sandbash has (the policy and the audit see what the alias runs, the run-time
parses are cached per run and keyed on the aliases, read-time errors bash gives that a spec case
cannot hold since they end the script).
"""

from __future__ import annotations

import pytest

from sandbash import Audit, Bash, Policy
from sandbash.interp import aliasrun

DENIED = "policy denied this command"

# a denied command reached only through an alias inside a substitution, in each shape that runs
# a substitution's text: the function is read before the alias exists, so nothing but the
# run-time parse can find `cat`
HIDDEN = [
    'f() { x=$(c /data/a); echo "[$x]"; }',
    'f() { x=`c /data/a`; echo "[$x]"; }',
    'f() { x="$(echo $(c /data/a))"; echo "[$x]"; }',
    'f() { x=$(true\nc /data/a); echo "[$x]"; }',
    'f() { x=$(alias c2=c\nc2 /data/a); echo "[$x]"; }',
    'f() { read -r x < <(c /data/a); echo "[$x]"; }',
    'f() { : > >(c /data/a); wait $!; echo "[]"; }',
    'f() { read -r x <<E\n$(c /data/a)\nE\necho "[$x]"; }',
]


@pytest.mark.parametrize("body", HIDDEN)
def test_a_denied_command_behind_an_alias_in_a_substitution_is_refused_and_audited(body: str) -> None:
    bash = Bash(
        files={"/data/a": "SECRET\n"},
        policy=Policy(deny=["cat"], mode="remediation"),
        audit=Audit(),
    )
    r = bash.exec(f"shopt -s expand_aliases\n{body}\nalias c=cat\nf")
    assert "SECRET" not in r.stdout
    assert r.stdout.endswith("[]\n")
    assert DENIED in r.stderr
    decisions = [(e["action"], e["target"], e["decision"]) for e in r.events if e["kind"] == "decision"]
    assert ("shell:exec", "cat", "deny") in decisions
    assert ("shell:exec", "cat", "allow") not in decisions


def test_the_allowed_command_behind_the_alias_runs_and_is_audited() -> None:
    bash = Bash(files={"/data/a": "A\n"}, policy=Policy(["cat", "echo"], mode="remediation"), audit=Audit())
    r = bash.exec("shopt -s expand_aliases\nf() { echo $(c /data/a); }\nalias c=cat\nf")
    assert (r.stdout, r.exit_code) == ("A\n", 0)
    decisions = [(e["action"], e["target"], e["decision"]) for e in r.events if e["kind"] == "decision"]
    assert ("shell:exec", "cat", "allow") in decisions


@pytest.mark.parametrize(
    "script",
    [
        "alias lb='{ '\nf() { echo $(lb echo x; }); }\nf",
        "alias lb='{ '\necho <(lb echo x; })",
        "alias lb='{ '\necho $(echo $(lb echo x; }))",
    ],
)
def test_a_substitution_is_read_without_aliases_when_the_script_is_read(script: str) -> None:
    # bash: `}' is unexpected where the $( ) is read (its alias is not expanded there); a syntax
    # error inside $( ) stops `bash -c` with 127 (parse_comsub's FORCE_EOF), as Bash.exec does
    r = Bash().exec("shopt -s expand_aliases\n" + script)
    assert r.exit_code == 127
    assert "syntax error near unexpected token `}'" in r.stderr
    assert "x" not in r.stdout


def test_backquotes_are_parsed_when_they_run_with_the_alias() -> None:
    # bash parses `...` only when it runs: with the alias the braces match
    r = Bash().exec("shopt -s expand_aliases\nalias lb='{ '\nf() { echo `lb echo x; }`; }\nf")
    assert (r.stdout, r.exit_code) == ("x\n", 0)


def _counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts aliasrun reads again from here on (each _parse call's source)."""
    parses: list[str] = []
    original = aliasrun._parse

    def counting(*args: object) -> object:
        parses.append(str(args[1]))
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(aliasrun, "_parse", counting)
    return parses


def test_run_time_parses_are_cached_and_see_every_change(monkeypatch: pytest.MonkeyPatch) -> None:
    parses = _counting_parses(monkeypatch)
    script = (
        "shopt -s expand_aliases\nalias e='echo a'\nf() { echo $(e); }\n"
        "for i in 1 2 3; do f; done\n"
        "alias e='echo b'; f; f\n"
        "BASH_ALIASES[e]='echo c'; f\n"
        "shopt -s extglob; f\n"
        "unalias e; f 2>/dev/null; shopt -u expand_aliases; f 2>/dev/null"
    )
    r = Bash().exec(script)
    assert r.stdout == "a\na\na\nb\nb\nc\nc\n\n\n"
    # a, b, c and extglob; with no alias left, or expand_aliases off, the read-time body runs
    assert parses == ["e"] * 4


@pytest.mark.parametrize(
    ("script", "out", "reads"),
    [
        # a subshell's copy of the table shares its parent's parses until either changes
        ("f; (f; f); f", "a\n" * 4, 1),
        ("(alias e='echo s'; f); f; (f)", "s\na\na\n", 2),
        ("(alias e='echo s'; f); alias e='echo b'; f; (f)", "s\nb\nb\n", 2),
        # (the outer $( )'s own text is read again too: an alias exists)
        ("x=$(alias e='echo s'; f); echo $x; f", "s\na\n", 3),
        ("(unalias e; alias e='echo u'; f); f", "u\na\n", 2),
        ("(BASH_ALIASES[e]='echo s'; f); f", "s\na\n", 2),
        # defined again as it was: nothing to read again
        ("for i in 1 2 3; do alias e='echo a'; f; done", "a\n" * 3, 1),
        ("alias e='echo b'; f; alias e='echo a'; f; alias e='echo b'; f", "b\na\nb\n", 3),
        ("alias z='echo z'; f; unalias z; f; alias z='echo z'; f", "a\na\na\n", 3),
    ],
)
def test_a_parse_is_read_again_only_when_the_aliases_changed(
    monkeypatch: pytest.MonkeyPatch, script: str, out: str, reads: int
) -> None:
    parses = _counting_parses(monkeypatch)
    r = Bash().exec("shopt -s expand_aliases\nalias e='echo a'\nf() { echo $(e); }\n" + script)
    assert (r.stdout, r.stderr) == (out, "")
    assert len(parses) == reads


def test_a_restored_session_reads_with_its_own_aliases() -> None:
    one = Bash().session()
    one.exec("shopt -s expand_aliases; alias e='echo one'; f() { echo $(e); }")
    assert one.exec("f").stdout == "one\n"
    snap = one.snapshot()
    one.exec("alias e='echo changed'")
    assert one.exec("f").stdout == "changed\n"
    two = Bash().restore(snap)
    assert two.exec("f").stdout == "one\n"
    two.exec("alias e='echo two'")
    assert (two.exec("f").stdout, one.exec("f").stdout) == ("two\n", "changed\n")


def test_two_shells_or_sessions_never_share_a_parse() -> None:
    script = "shopt -s expand_aliases\nf() { echo $(e); }\nf"
    one = Bash().session()
    two = Bash().session()
    one.exec("shopt -s expand_aliases; alias e='echo one'")
    two.exec("shopt -s expand_aliases; alias e='echo two'")
    assert one.exec(script).stdout == "one\n"
    assert two.exec(script).stdout == "two\n"
    one.exec("alias e='echo again'")
    assert one.exec("f").stdout == "again\n"


def test_the_cache_is_bounded_by_the_text_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[aliasrun.ParseCache] = []

    class Spy(aliasrun.ParseCache):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(aliasrun, "ParseCache", Spy)
    big = "x" * 5000
    script = (
        f"shopt -s expand_aliases\nalias e='echo {big}'\n"
        + "".join(f"v=$(e {i}); " for i in range(400))  # 400 texts of 5 KB read: 2 MB
        + "echo ${#v}"
    )
    r = Bash().exec(script)
    assert r.stdout == f"{len(big) + 4}\n"
    assert len(made) == 1
    assert 0 < made[0].chars <= 1 << 20
    assert len(made[0].entries) < 400
