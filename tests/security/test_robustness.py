"""Robustness: binary and malformed input gives a bash-like error or a limit,
never a Python exception (nor 'internal error', nor a hang).

Binary data, invalid UTF-8, NUL bytes (in scripts, data, arguments, names),
lone surrogates from a JSON-decoded tool call, extremely long lines, huge
words, out-of-range numbers, deep recursion in functions, `source` and
`eval`, and deeply nested data and programs for jq.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

BINARY = bytes(random.Random(7).randrange(256) for _ in range(20_000))
# a single 900 KB line (under the hardened 1 MB string cap)
LONG_LINE = "printf '%0900000d\\n' 0 | tr 0 a"
DEEP_JSON = "printf '[%.0s' $(seq 3000); printf ']%.0s' $(seq 3000)"
DEEP_OBJ = "printf '{\"a\":%.0s' $(seq 3000); echo 1; printf '}%.0s' $(seq 3000)"
NEST = "reduce range(5000) as $i (0; [.])"

BINARY_CMDS = {
    "cat": "cat | wc -c",
    "sort-uniq": "sort | uniq -c | wc -l",
    "grep": "grep -c .; grep -a x | wc -l",
    "sed": "sed -n l | tail -1",
    "awk": "awk '{n+=length($0)} END{print n}'",
    "jq": "jq . 2>&1 | head -2",
    "jq-raw": "jq -R . | wc -l",
    "read-loop": "while read -r l; do :; done; echo done",
    "tr-od": "tr a-z A-Z | od -c | tail -1",
    "cmdsub": "x=$(cat); echo ${#x}",
    "base64": "base64 | base64 -d | cmp - /dev/stdin; echo $?",
    "xargs-0": "xargs -0 echo | wc -c",
    "cut-rev-fold": "cut -c1-5 | rev | fold -w 3 | wc -l",
    "tac-nl-paste": "tac | nl | paste - - | wc -l",
    "strings": "strings | wc -l",
    "gzip": "gzip | gunzip | cmp - <(cat /dev/null); echo $?",
    "md5-sha": "md5sum; sha256sum",
    "comm-join": "comm - /dev/null | wc -l; join - /dev/null | wc -l",
    "column-fmt": "column | fmt | expand | wc -c",
    "iconv": "iconv -f utf-8 -t ascii 2>&1 | tail -c 80",
    "mapfile": "mapfile -t a; echo ${#a[@]}",
    "read-n": "read -r -n 100 x; echo ${#x}",
    "diff": "diff - /dev/null | wc -l",
    "split": "split -b 1000 - /tmp/p_; ls /tmp | wc -l",
    "tee-file": "tee /tmp/b > /dev/null; wc -c < /tmp/b; file /tmp/b 2>&1",
    "printf-q": "x=$(head -c 200); printf '%q\\n' \"$x\" | wc -c",
    "declare-p": "x=$(head -c 300); declare -p x | wc -c",
}

CASES: list[Any] = [param(f"binary-{k}", v, stdin=BINARY, expect=("result",)) for k, v in BINARY_CMDS.items()]
CASES += [
    # invalid UTF-8 in scripts (surrogateescape: raw bytes 0x80-0xff arrive as \udc80-\udcff)
    param(
        "bad-utf8-echo",
        "echo \udcff\udcfe; x=$'\\xc3\\x28'; echo ${#x} ${x^^} ${x:1} ${x//?/y}",
        expect=("result",),
    ),
    param("bad-utf8-names", "f\udcff(){ echo hi; }; f\udcff; \udcff=1; echo $?", expect=("result",)),
    param(
        "bad-utf8-case",
        "case $'\\xff' in $'\\xff') echo y;; esac; [[ $'\\xfe' == ? ]]; echo $?",
        expect=("result",),
    ),
    param("bad-utf8-arith", "echo $(( \udcff + 1 )); echo $((x\udcff))", expect=("result",)),
    param("bad-utf8-heredoc", "cat <<E\udcff\nbody \udcfe\nE\udcff\necho done", expect=("result",)),
    param(
        "bad-utf8-files",
        "touch $'\\xff\\xfe' \udcfd; ls | od -c | tail -2; rm $'\\xff\\xfe'; echo $'\\xff'*",
        expect=("result",),
    ),
    param(
        "bad-utf8-glob-pattern", "touch a; echo [\udcff-\udcfe]* *\udcff* ${x:-\udcff}", expect=("result",)
    ),
    param(
        "bad-utf8-regex",
        "[[ $'\\xff' =~ $'\\xff' ]]; echo $?; echo $'\\xffa' | grep -c $'\\xff'; "
        "echo $'\\xff' | sed $'s/\\xff/y/'; echo $'\\xff' | awk '/\\xff/'",
        expect=("result",),
    ),
    param(
        "bad-utf8-printf",
        "printf '%s %q %b %c\\n' $'\\xff' $'\\xfe' '\\xfd' $'\\xfc'; printf $'\\xff%s' x",
        expect=("result",),
    ),
    *[
        param(
            f"bad-utf8-option-{cmd}",
            f"{cmd} -$'\\xff' </dev/null; {cmd} --$'\\xfe' </dev/null; echo next",
            expect=("result",),
        )
        for cmd in ("uniq", "head", "sort", "ls")
    ],
    param(
        "bad-utf8-option-builtins",
        "set -$'\\xff'; declare -$'\\xff'; cd $'\\xff'; echo next",
        expect=("result",),
    ),
    param(
        "bad-utf8-jq",
        "printf '\"\\xff\\xfe\"' | jq . 2>&1; printf '{\"\\xff\":1}' | jq -c keys 2>&1",
        expect=("result",),
    ),
    param(
        "surrogate-escape-jq",
        "echo '\"\\ud800\"' | jq . 2>&1; echo '\"\\udc80x\"' | jq -r . | od -c | head -2",
        expect=("result",),
    ),
    param(
        "printf-unicode-out-of-range",
        "printf '\\U110000' | od -c; printf '\\UFFFFFFFF' | od -c",
        expect=("result",),
    ),
    param(
        "unicode-just-out-of-range",
        "echo -e '\\U110000' | od -c; echo $'\\U110000' | od -c",
        expect=("result",),
    ),
    param("echo-e-unicode-overflow", "echo -e '\\UFFFFFFFF' | od -c", expect=("result",)),
    param("printf-b-unicode-overflow", "printf '%b' '\\UFFFFFFFF' | od -c", expect=("result",)),
    param("ansi-c-quote-unicode-overflow", "x=$'\\UFFFFFFFF'; echo ${#x}", expect=("result",)),
    param("awk-char-out-of-range", "awk 'BEGIN{printf \"%c%c\", 1114112, -1}' | od -c", expect=("result",)),
    param(
        "jq-implode-out-of-range",
        "jq -n '[1114112] | implode' 2>&1; jq -n '[-1, 55296] | implode' 2>&1",
        expect=("result",),
    ),
    # NUL bytes in scripts, data and names
    param("nul-in-script", "echo a\0b; echo 'a\0b' \"c\0d\"; # comment \0\necho after", expect=("result",)),
    param("nul-in-function-name", "f\0o(){ echo x; }; f", expect=("result",)),
    param("nul-in-heredoc", "cat <<E\na\0b\nE\necho $?", expect=("result",)),
    param(
        "nul-in-data",
        "printf 'a\\0b\\n' | grep -a b | od -c; printf 'a\\0b\\n' | sed 's/\\x0/N/'; "
        "printf '%s\\0' c b a | sort -z | xargs -0 echo; printf 'x\\0y' | awk -v RS='\\0' '{print}'",
        expect=("result",),
    ),
    param(
        "nul-in-cmdsub",
        "x=$(printf 'a\\0b'); echo ${#x}; read -r y < <(printf 'c\\0d'); echo ${#y}",
        expect=("result",),
    ),
    param(
        "nul-in-names",
        "touch $'a\\x00b' 2>&1; echo > \"$(printf 'c\\0d')\" 2>&1; mkdir $'\\x00' 2>&1; ls",
        expect=("result",),
    ),
    param(
        "nul-in-array-keys",
        "declare -A m; m[$'a\\x00b']=1; m[$'\\x01']=2; declare -p m | od -c | tail -2",
        expect=("result",),
    ),
    # closed standard streams (>&-): a write error, as bash prints, never an exception
    param("closed-stdout-echo", "echo hi >&-; printf x >&-; echo $?", expect=("result",)),
    *[
        param(f"closed-stdout-builtin-{name}", f"{script} >&-; echo status=$?", expect=("result",))
        for name, script in [
            ("declare", "declare"),
            ("set", "set -o"),
            ("pwd", "pwd"),
            ("type", "type ls"),
            ("umask", "umask"),
        ]
    ],
    *[
        param(f"closed-stdout-command-{name}", f"{name} >&-; echo status=$?", expect=("result",))
        for name in ("date", "env")
    ],
    param("sigpipe-to-procsub", "echo hi > >(true); printf 31 > >(echo 0); echo next", expect=("result",)),
    param(
        "sigpipe-in-pipeline", "yes | head -1; seq 100000 | true; echo ${PIPESTATUS[@]}", expect=("result",)
    ),
    # arithmetic errors in word lists
    *[
        param(f"arith-error-in-{name}", script, expect=("result",))
        for name, script in [
            ("for", "for v in $((08)); do :; done; echo next"),
            ("case", "case $((1/0)) in *) ;; esac; echo next"),
            ("select", "select v in $((08)); do break; done; echo next"),
        ]
    ],
    param(
        "arith-error-elsewhere",
        "echo $((08)); x=($((1/0))); [[ $((08)) ]]; for ((i=08;;)); do :; done; echo next",
        expect=("result",),
    ),
    # API-level inputs: what a JSON tool call can carry
    param("api-args-nul", "echo", exec_kw={"args": ["a\0b", "c"]}, expect=("result",)),
    param(
        "api-env-nul",
        'echo "$A"; env | wc -l',
        exec_kw={"env": {"A": "x\0y", "B\0C": "z"}},
        expect=("result",),
    ),
    param("api-lone-surrogate-script", "echo \ud800 x", expect=("result",)),
    param("api-lone-surrogate-args", "echo", exec_kw={"args": ["\ud800"]}, expect=("result",)),
    param("api-lone-surrogate-env", 'echo "$A"', exec_kw={"env": {"A": "\udfff"}}, expect=("result",)),
    param("api-lone-surrogate-stdin", "cat", stdin="\ud800", expect=("result",)),
    # extremely long lines and huge words
    *[
        param(f"long-line-{k}", f"{LONG_LINE} | {v}", timeout=2)
        for k, v in {
            "sed": "sed 's/a/b/g' | wc -c",
            "awk": "awk '{print length}'",
            "grep": "grep -c a",
            "sort-uniq": "sort | uniq | cut -c1-3",
            "jq-raw": "jq -R length",
            "rev": "rev | wc -c",
            "fold": "fold -w 7 | wc -l",
            "tr": "tr a b | wc -c",
            "read": "{ read -r l; echo ${#l}; }",
            "base64": "base64 | base64 -d | wc -c",
            "od": "od -An -c | tail -1",
            "paste": "paste - - | wc -c",
            "cmdsub": "{ x=$(cat); echo ${#x}; }",
            "column": "column | wc -c",
            "xargs": "xargs -s 2000000 echo | wc -c",
        }.items()
    ],
    param(
        "huge-word-args",
        'x=$(printf \'%0200000d\' 0); test "$x" = "$x"; [[ $x == $x ]]; echo $?; '
        'printf \'%s\' "$x" | wc -c; echo "$x" "$x" | wc -c',
        timeout=2,
    ),
    param("huge-var-name", "eval \"$(printf 'a%.0s' $(seq 100000))=1\"; echo $?", timeout=2),
    param(
        "huge-function-name", "f=$(printf 'f%.0s' $(seq 100000)); eval \"$f(){ echo hi; }\"; $f", timeout=2
    ),
    param(
        "huge-path",
        "cd \"$(printf 'x%.0s' $(seq 5000))\"; echo > \"$(printf 'y%.0s' $(seq 5000))\"; "
        "cat \"$(printf 'z/%.0s' $(seq 3000))\"; ls \"$(printf '../%.0s' $(seq 3000))\"",
        timeout=2,
    ),
    param("huge-heredoc-delimiter", "d=$(printf 'E%.0s' $(seq 100000)); eval \"cat <<$d\nx\n$d\"", timeout=2),
    param("many-positional", "set -- $(seq 30000); echo $# ${30000}; shift 29999; echo $1", timeout=2),
    param(
        "many-args-to-command", "echo $(seq 20000) | wc -c; printf '%s\\n' $(seq 20000) | tail -1", timeout=2
    ),
    # out-of-range numbers everywhere
    param(
        "numbers-arith",
        "echo $((1<<99999999999)) $(( 10 ** 999999999 )) $((-9223372036854775808/-1)) "
        "$((-9223372036854775808%-1)); echo $((1/0)); echo $((2**-1)); x=$((2**63)); echo $((x*x))",
        expect=("result",),
    ),
    param(
        "numbers-widths",
        "echo a | fmt -w 999999999; echo abc | fold -w 99999999999; "
        "echo a | od -w999999999 | head -c 50; head -c 100 /dev/zero | base64 -w 999999999 | wc -c",
        expect=("result",),
    ),
    # widths past max_string_length are refused before the field is built
    *[
        param(f"width-{name}", script, expect=("result",))
        for name, script in [
            ("nl", "echo a | nl -w 999999999"),
            ("expand", "printf 'a\\tb\\n' | expand -t 999999999 | wc -c"),
            ("numfmt", "numfmt --padding=999999999 1 | wc -c"),
            ("date", "date +%999999999Y"),
        ]
    ],
    param(
        "numbers-counts",
        "echo x | head -c -99999999999999999999; seq 5 | tail -n +99999999999999999999; "
        "echo abc | cut -c 1-99999999999999999999; echo a b | sort -k 99999999999; "
        "seq 5 | head -n 99999999999999999999 | wc -l; echo a | split -a 999 - /tmp/x; ls /tmp | wc -c",
        expect=("result",),
    ),
    param(
        "numbers-printf",
        "printf '%d\\n' 99999999999999999999999; printf '%.99999f' 1 | wc -c; "
        "printf '%*.*f' -5 -5 1; printf '%b' '\\0777' | od -c; printf '%c' ''",
        expect=("result",),
    ),
    param(
        "numbers-builtins",
        "ulimit -n 99999999999999; umask 99999999; kill -99999999999 $$; "
        "trap '' 99999999999; shift 99999999999999999999; wait 99999999999999999999; fg 99999999999; "
        "read -t 99999999999999999999 x < /dev/null; read -n 99999999999999999999 y <<< abc; echo $y; "
        "return 99999999999999999999; exit 99999999999999999999",
        expect=("result",),
    ),
    param(
        "numbers-expansions",
        "a=(1 2 3); echo ${a[@]:99999999999999999999}; x=abc; "
        "echo ${x:99999999999999999999} ${x:0:99999999999999999999} ${x: -99999999999999999999:1}; "
        "y=( [99999999999999999999]=1 ); echo ${#y[@]}; let z=08; echo $z",
        expect=("result",),
    ),
    param(
        "numbers-tools",
        "expr 99999999999999999999 \\* 99999999999999999999; expr 9223372036854775807 + 1; "
        "expr substr abc 99999999999999999999 1; test 99999999999999999999 -gt 1; [[ 99999999999999999999 -gt 1 ]]; "
        "date -d @99999999999999999; touch -d @99999999999999999 /tmp/x; "
        "seq 1e308 1e308; sleep -- -1; echo $?",
        expect=("result",),
    ),
    param(
        "numbers-awk",
        'awk \'BEGIN{print substr("x", -1e18, 1e18); print 2^1e6; print length(sprintf("%c", -1)); '
        'print -0 "", 1e308*10, log(-1), int("1e999")}\'',
        expect=("result",),
    ),
    param(
        "numbers-jq",
        'jq -n \'pow(10;1000), (1e1000|tostring), (infinite|floor), "\\(1e308*10)", '
        '([range(10)] | .[1e18:]), ("abc" | .[1e300:]), ([limit(-1; 1,2)]), ("x" * -1), ([.[]?])\' 2>&1; '
        "jq -n '1e300 | todate' 2>&1; jq -n '999999999999 | strftime(\"%Y\")' 2>&1",
        expect=("result",),
    ),
    param(
        "numbers-bc",
        "bc <<< 'obase=1; 5' 2>&1; bc <<< 'ibase=99; 5' 2>&1; bc <<< 'sqrt(-1)' 2>&1; bc <<< '1/0' 2>&1",
        expect=("result",),
    ),
    param("bc-huge-scale", "bc <<< 'scale=999999999; 1/3' | wc -c", timeout=0.3),
    # deep recursion in functions, source, eval
    param(
        "recursion-function", "f(){ (( $1 > 0 )) && f $(( $1 - 1 )); }; f 10000", expect=("max_call_depth",)
    ),
    param("recursion-source", "echo '. /tmp/s' > /tmp/s; . /tmp/s", expect=("max_call_depth",)),
    param(
        "recursion-eval-string",
        'x=\'eval "$x"\'; eval "$x"',
        expect=("max_command_count", "max_call_depth", "timeout", "max_substitution_depth"),
    ),
    param(
        "recursion-eval-nested-quoting",
        's=echo; for i in $(seq 60); do s="eval $(printf \'%q\' "$s")"; done; $s hi',
        timeout=2,
    ),
    param("recursion-subshell", "f(){ (f); }; f", expect=("max_call_depth", "max_substitution_depth")),
    param(
        "recursion-cmdsub-eval",
        'x=\'$(eval echo "$x")\'; eval "echo $x"',
        expect=("max_substitution_depth", "max_call_depth"),
    ),
    param("recursion-bash-c", 'a=\'bash -c "$a"\'; export a; bash -c "$a"', expect=("max_call_depth",)),
    param("recursion-trap-debug", "trap 'echo x' DEBUG; f(){ f; }; f", expect=("max_call_depth",)),
    param("recursion-trap-err", "set -E; trap 'false' ERR; f(){ false; }; f", expect=("result",)),
    param("recursion-trap-return", "trap 'f' RETURN; f(){ :; }; f", expect=("result", "max_call_depth")),
    param(
        "recursion-alias",
        "shopt -s expand_aliases\nalias a='b'; alias b='a'\na; alias c='c c'\nc",
        expect=("result",),
    ),
    param(
        "recursion-nameref-chain",
        "for i in $(seq 200); do declare -n v$i=v$((i+1)); done; declare -n v201=v1; echo $v1",
        expect=("result",),
    ),
    param("recursion-arith-vars", "a=b+1; b=a+1; echo $((a))", expect=("result",)),
    param(
        "recursion-arith-var-chain",
        'for i in $(seq 200); do eval "v$i=v$((i-1))"; done; v0=v200; echo $((v200))',
        expect=("result",),
    ),
    param(
        "recursion-indirect-expansion",
        "x='${!x}'; eval \"echo $x\"; y='$((y))'; echo $((y))",
        expect=("result",),
    ),
    param(
        "recursion-prompt-command",
        'PROMPT_COMMAND=\'eval "$PROMPT_COMMAND"\'; eval "$PROMPT_COMMAND"',
        expect=("max_command_count", "max_call_depth", "timeout", "max_substitution_depth"),
    ),
    # deeply nested data and programs for jq (and friends)
    param("jq-deep-input", f"{DEEP_JSON} | jq -c . | wc -c", timeout=2),
    param("jq-deep-input-unclosed", "printf '[%.0s' $(seq 5000) | jq . 2>&1 | tail -1", timeout=2),
    param("jq-deep-object", f"{DEEP_OBJ} | jq '[paths] | length' | tail -1", timeout=2),
    param("jq-deep-roundtrip", f"{DEEP_JSON} | jq 'tostring | fromjson | tojson' | wc -c", timeout=2),
    param("jq-deep-argjson", f"jq -n --argjson x \"$({DEEP_JSON})\" '$x | length'", timeout=2),
    param("jq-deep-stream", f"{DEEP_JSON} | jq -c --stream . | wc -l", timeout=2),
    param("jq-built-deep", f"jq -n '{NEST} | flatten | length'", timeout=2),
    param("jq-built-deep-tojson", f"jq -n '{NEST} | tojson | length'", timeout=2),
    param("jq-built-deep-walk", f"jq -n '{NEST} | walk(.) | tojson | length'", timeout=2),
    param("jq-built-deep-recurse", f"jq -n '{NEST} | .. | numbers'", timeout=2),
    param("jq-built-deep-equal", f"jq -n '({NEST}) == ({NEST})'", timeout=2),
    param("jq-built-deep-sort", f"jq -n '[{NEST}, {NEST}] | sort | length'", timeout=2),
    param("jq-built-deep-paths", f"jq -n '[{NEST} | paths] | length'", timeout=2),
    param("jq-built-deep-output", f"jq -n '{NEST}' | tail -c 20"),
    param(
        "jq-built-deep-reduce-output",
        "jq -n '[range(100000)] | reduce .[] as $x (null; [.])' | head -c 100",
        timeout=2,
    ),
    param("jq-deep-setpath", "jq -n 'null | setpath([range(10000)]; 1) | tojson | length'"),
    param(
        "jq-deep-program",
        "jq -n \"$(printf '[%.0s' $(seq 1900))1$(printf ']%.0s' $(seq 1900))\" | tail -c 20",
        timeout=2,
    ),
    param("jq-long-pipe-program", "jq -n \"1$(printf '|.%.0s' $(seq 5000))\"", timeout=2),
    param("jq-deep-unary", "jq -n \"$(printf -- '-%.0s' $(seq 1900))1\" 2>&1 | tail -c 80", timeout=2),
    param("jq-deep-def-recursion", "jq -n 'def f(x): f([x]); f(1)'", expect=("max_call_depth", "timeout")),
    param(
        "awk-deep-expr",
        "awk \"BEGIN{print $(printf '(%.0s' $(seq 1900))1$(printf ')%.0s' $(seq 1900))}\" 2>&1 | tail -c 80",
        timeout=2,
    ),
    param(
        "awk-deep-unary",
        "awk \"BEGIN{print $(printf -- '-%.0s' $(seq 1900))1}\" 2>&1 | tail -c 80",
        timeout=2,
    ),
    param(
        "bc-deep-expr",
        "bc <<< \"$(printf '(%.0s' $(seq 1900))1$(printf ')%.0s' $(seq 1900))\" 2>&1 | tail -c 80",
        timeout=2,
    ),
    param(
        "arith-deep-runtime",
        "echo $(( $(printf '(%.0s' $(seq 1900))1$(printf ')%.0s' $(seq 1900)) )) 2>&1 | tail -c 80",
        timeout=2,
    ),
    param(
        "expr-deep-parens",
        "expr $(printf '( %.0s' $(seq 1900)) 1 $(printf ') %.0s' $(seq 1900)) 2>&1 | tail -c 80",
        timeout=2,
    ),
    param(
        "test-deep-bang",
        "test $(printf '! %.0s' $(seq 1900)) x; echo $?; "
        "[ $(printf '( %.0s' $(seq 1900)) x $(printf ') %.0s' $(seq 1900)) ]; echo $?",
        timeout=2,
    ),
    param(
        "find-deep-expression",
        "find / -maxdepth 1 $(printf '( %.0s' $(seq 1900)) -true $(printf ') %.0s' "
        "$(seq 1900)) | head -1; find / -maxdepth 0 $(printf -- '-not %.0s' $(seq 1900)) -true",
        timeout=2,
    ),
    param(
        "sed-deep-blocks",
        "sed \"$(printf '{%.0s' $(seq 1900))p$(printf '}%.0s' $(seq 1900))\" <<< x",
        timeout=2,
    ),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_malformed_input_ends_cleanly")


@pytest.mark.parametrize("case", CASES)
def test_malformed_input_ends_cleanly(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])


def test_concurrent_first_use_of_commands() -> None:
    """Pipeline stages import their command modules lazily, from several
    threads at once: in fresh interpreters this must never raise the import
    system's _DeadlockError (seen once while writing this suite:
    `echo a | grep | sed | awk | sort | uniq | tr | cut | head | wc` in a fresh
    process, _ModuleLock('sandbash.commands.textbasic'))."""
    code = (
        "from sandbash import Bash\n"
        "r = Bash(limits='hardened').exec(\"echo a | grep -E a | sed s/a/b/ | awk '{print}' | sort | uniq | "
        "tr a b | cut -c1 | head -1 | wc -l | rev | tac | nl | od -c | base64 | fold\", limits={'timeout': 20})\n"
        "assert r.exit_code == 0, r\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        for _ in range(3)
    ]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()[-2000:]
