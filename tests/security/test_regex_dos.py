"""Regular-expression denial of service: no pattern from a script may run a
backtracking engine past the run's deadline, in any command that takes one.

Patterns RE2 can express must run in linear time (they end at once). Those
it cannot (back-references, look-around, huge counted repetitions) may use
the `regex` fallback, but only with a timeout charged to the run's deadline:
they must end with the timeout limit (or a result) on time.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

A = "a" * 40 + "!"  # the classic evil subject: a long run then a mismatch
LONG = "a" * 3000
JS = f'"{A}"'

# Catastrophic for backtracking engines, linear for RE2.
LINEAR = ["(a+)+$", "(a|aa)+$", "(a|a?)+$", "(.*a){20}b", "^([a-z]+\\s?)*$"]


def _ere(cmd: str, pat: str) -> str:
    return f"echo {A} | {cmd} '{pat}'"


CASES: list[Any] = []
for i, pat in enumerate(LINEAR):
    bre = (
        pat.replace("(", "\\(")
        .replace(")", "\\)")
        .replace("+", "\\+")
        .replace("|", "\\|")
        .replace("?", "\\?")
    )
    bre = bre.replace("{20}", "\\{20\\}")
    CASES += [
        param(f"grep-E-{i}", _ere("grep -E", pat), expect=("result",)),
        param(f"grep-P-{i}", _ere("grep -P", pat), expect=("result",)),
        param(f"grep-bre-{i}", _ere("grep", bre), expect=("result",)),
        param(f"sed-E-{i}", f"echo {A} | sed -E 's/{pat}/x/'", expect=("result",)),
        param(f"sed-bre-{i}", f"echo {A} | sed -n '/{bre}/p'", expect=("result",)),
        param(
            f"awk-{i}",
            f"echo {A} | awk '{{print match($0, /{pat}/); gsub(/{pat}/, \"x\"); n=split($0, p, /{pat}/)}}'",
            expect=("result",),
        ),
        param(f"expr-{i}", f"expr {A} : '{bre}'", expect=("result",)),
        param(
            f"find-regex-{i}",
            f"touch /tmp/{A}; find /tmp -regextype posix-extended -regex '.*/{pat}'",
            expect=("result",),
        ),
        param(f"bash-regex-{i}", f"re='{pat}'; [[ {A} =~ $re ]]; echo $?", expect=("result",)),
        param(
            f"jq-{i}",
            f'echo \'{JS}\' | jq -c \'[test("{pat}"), ([match("{pat}"; "g")] | length), '
            f'sub("{pat}"; "x"), gsub("{pat}"; "x"), [scan("{pat}")], [splits("{pat}")]]\'',
            expect=("result",),
        ),
        param(f"rg-{i}", _ere("rg", pat), expect=("result",)),
    ]

CASES += [
    # The fallback must be charged to the deadline: with a 3 s timeout the run must end by ~4.5 s. (The
    # overshoot grows with CPU contention, so shorter timeouts give flaky results either way; the same
    # engine serves rg -P, grep -o, sed, jq gsub/capture/split and huge counted repeats.)
    param("overshoot-grep-E-backref", _ere("grep -E", "^(a|aa)+\\1$"), timeout=3),
    param("sed-bre-backref", f"echo {A} | sed -n '/^\\(a\\|aa\\)*\\1$/p'", timeout=0.3),
    param("sed-E-backref", f"echo {A} | sed -E 's/^(a|aa)+\\1$/x/'", timeout=0.3),
    param(
        "find-regex-backref",
        f"touch /tmp/{A}; find /tmp -regextype posix-extended -regex '.*/(a|aa)+\\1b'",
        timeout=0.3,
    ),
    param("bash-regex-backref", f"re='^(a|aa)+\\1$'; [[ {A} =~ $re ]]; echo $?", timeout=0.3),
    param("awk-no-backrefs", f"echo {A} | awk '/^(a|aa)+(a|aa)+$/'", expect=("result",)),
    # huge counted repetitions and huge patterns
    param("sed-nested-counts-backref", f"echo {A} | sed -E 's/(a{{1,1000}}){{1,1000}}\\1/x/'", timeout=0.3),
    param("grep-count-65535", _ere("grep -E", "x{0,65535}y{0,65535}")),
    param("grep-long-alternation", "p=$(seq -s '|' 1 20000); echo 5 | grep -cE \"^($p)$\"", timeout=2),
    param(
        "grep-many-patterns",
        "seq 1 10 | grep -c -f /tmp/p",
        timeout=0.3,
        files={"/tmp/p": "".join(f"a{i}\n" for i in range(200_000))},
    ),
    param(
        "grep-huge-pattern",
        "p=$(printf '%.0sa?' {1..2000})$(printf '%.0sa' {1..2000}); "
        'echo aaaaaaaaaaaaaaaaaaaaaaaa | grep -cE "$p"',
    ),
    param("grep-deep-groups", "echo x | grep -E \"$(printf '%.0s(' {1..1900})x$(printf '%.0s)' {1..1900})\""),
    param(
        "grep-P-deep-groups", "grep -P \"$(printf '%.0s(?:' {1..1900})x$(printf '%.0s)' {1..1900})\" <<< x"
    ),
    param("sed-deep-groups", "sed -E \"s/$(printf '%.0s(' {1..1900})x$(printf '%.0s)' {1..1900})/y/\" <<< x"),
    param("awk-deep-groups", "awk \"/$(printf '%.0s(' {1..1900})x$(printf '%.0s)' {1..1900})/\" <<< x"),
    param(
        "bash-regex-deep-groups",
        "[[ x =~ $(printf '%.0s(' {1..1900})x$(printf '%.0s)' {1..1900}) ]]; echo $?",
    ),
    param(
        "jq-deep-groups",
        "jq -n --arg p \"$(printf '%.0s(' {1..1900})x$(printf '%.0s)' {1..1900})\" '\"x\" | test($p)'",
    ),
    param(
        "invalid-patterns",
        "for p in '(' ')' '[' 'a{2,1}' '\\' '*a' 'a**' '(?<' '[[:foo:]]' 'x{99999}'; do "
        'echo x | grep -E "$p"; echo x | grep -P "$p"; echo x | sed -E "s/$p//"; [[ x =~ $p ]]; '
        'expr x : "$p"; jq -n --arg p "$p" \'"x" | test($p)\'; awk "/$p/" <<< x; done 2>&1 | wc -l',
    ),
    # long subjects
    param(
        "grep-long-line",
        "x=$(printf '%0900000d' 0 | tr 0 a); echo \"$x!\" | grep -cE '(a|aa)+$'",
        expect=("result",),
    ),
    param(
        "sed-long-line",
        "printf '%0900000d\\n' 0 | tr 0 a | sed -E 's/(a|aa)+b/x/' | wc -c",
        expect=("result",),
    ),
    param(
        "awk-long-line",
        "printf '%0900000d\\n' 0 | tr 0 a | awk '{print gsub(/(a|aa)+b/, \"x\")}'",
        expect=("result",),
    ),
    param("sed-global-many-matches", "printf '%0900000d\\n' 0 | sed 's/0/&&/g' | wc -c"),
    param("grep-o-many-matches", "printf '%0200000d\\n' 0 | grep -o 0 | wc -l", timeout=0.5),
    # globs, extglob, case and parameter patterns
    param(
        "extglob-case",
        f"shopt -s extglob\nx={'a' * 60}; case $x in +(a|aa)+(a|aa)b) echo y;; *) echo n;; esac",
        expect=("result",),
    ),
    param(
        "extglob-nested-stars",
        f"shopt -s extglob\nx={'a' * 60}; case $x in *(*(*(a)))b) echo y;; esac",
        expect=("result",),
    ),
    param(
        "extglob-cond",
        f"shopt -s extglob\nx={LONG}b; [[ $x == +(a|aa)+(a|aa)c ]]; echo $?",
        expect=("result",),
    ),
    param(
        "extglob-replace",
        f"shopt -s extglob\nx={'a' * 60}; echo ${{x//+(a|aa)+(a|aa)b/}}",
        expect=("result",),
    ),
    param(
        "extglob-negation",
        f"shopt -s extglob\nx={LONG}; [[ $x == !(*a*a*a*b) ]]; echo $?",
        expect=("result",),
        timeout=0.3,
    ),
    param(
        "extglob-many-alternatives",
        "shopt -s extglob\np=\"@($(seq -s '|' 1 5000))\"; [[ 4999 == $p ]]; echo $?",
        expect=("result",),
    ),
    param("glob-stars-cond", f"x={'a' * 60}; [[ $x == {'*a' * 30}*b ]]; echo $?", expect=("result",)),
    param("glob-stars-prefix", f"x={LONG}; echo ${{x##*a*a*a*a*a*b}} | wc -c", expect=("result",)),
    param("glob-stars-replace", f"x={LONG}; echo ${{x//*a*a*a*b/}} | wc -c", expect=("result",)),
    param("glob-stars-suffix-long", "x=$(printf '%0200000d' 0); echo ${x%%*0*0*0*1} | wc -c", timeout=2),
    param("glob-replace-every-char", "x=$(printf '%0200000d' 0); y=${x//0/ab}; echo ${#y}", timeout=2),
    param(
        "glob-files-stars", "touch /tmp/" + "a" * 60 + "; echo /tmp/" + "*a" * 30 + "*b", expect=("result",)
    ),
    param(
        "glob-files-extglob",
        "shopt -s extglob\ntouch /tmp/" + "a" * 60 + "; echo /tmp/+(a|aa)+(a|aa)b",
        expect=("result",),
    ),
    param(
        "glob-bracket-classes", f"x={LONG}; [[ $x == {'[[:alpha:]]*' * 20}! ]]; echo $?", expect=("result",)
    ),
    param(
        "case-many-patterns",
        "case 9999 in " + " | ".join(str(i) for i in range(3000)) + ") echo y;; esac",
        expect=("result",),
    ),
    param(
        "find-name-stars",
        "mkdir -p /d; touch /d/" + "a" * 60 + "; find /d -name '" + "*a" * 30 + "*b'",
        expect=("result",),
    ),
    param(
        "find-path-stars",
        "mkdir -p /d; touch /d/" + "a" * 60 + "; find /d -path '" + "*a" * 30 + "*b'",
        expect=("result",),
    ),
    param(
        "ls-ignore-stars",
        "mkdir -p /d; touch /d/" + "a" * 60 + "; ls -I '" + "*a" * 30 + "*b' /d",
        expect=("result",),
    ),
    param(
        "grep-include-stars",
        "mkdir -p /d; echo x > /d/" + "a" * 60 + "; grep -r --include='" + "*a" * 30 + "*b' x /d",
        expect=("result",),
    ),
    param(
        "tar-wildcards",
        "mkdir -p /d; touch /d/" + "a" * 60 + "; tar -cf /t.tar /d 2>/dev/null; tar -tf /t.tar "
        "--wildcards '" + "*a" * 30 + "*b'",
        expect=("result",),
    ),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_regex_ends")


@pytest.mark.parametrize("case", CASES)
def test_regex_ends(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])
