"""yq (mikefarah v4 conventions) on the jq engine: fixed expectations."""

from __future__ import annotations

import pytest

from sandbash.testing import run_command

FILES = {
    "f.yaml": "a: 1\nb:\n  - x\n  - y: 2\n",
    "multi.yaml": "a: 1\n---\na: 2\n",
    "g.json": '{"k": [1, 2]}',
    "c.toml": "[s]\nx = 1\nd = 2020-01-02\n",
}

CASES: list[tuple[list[str], str, str, int]] = [
    (
        ["."],
        "a: 1\nb:\n  c: [1, 2]\n  d: yes\nf: 1.0\nh: |\n  line1\n  line2\n",
        "a: 1\nb:\n  c:\n    - 1\n    - 2\n  d: yes\nf: 1.0\nh: |\n  line1\n  line2\n",
        0,
    ),
    ([".b.c[0]"], "b:\n  c: [1, 2]\n", "1\n", 0),
    ([".a"], "a: hello\n", "hello\n", 0),
    (["-o", "json", "."], "a: 1\n", '{\n  "a": 1\n}\n', 0),
    (["-o=json", "-I=0", "."], "a: {b: [1, x]}\n", '{"a":{"b":[1,"x"]}}\n', 0),
    (["-j", ".a"], "a: hello\n", '"hello"\n', 0),
    (["-o", "json", "-r", ".a"], "a: hello\n", "hello\n", 0),
    (["eval", ".b[1].y", "f.yaml"], "", "2\n", 0),
    ([".a", "multi.yaml"], "", "1\n---\n2\n", 0),
    (["-N", ".a", "multi.yaml"], "", "1\n2\n", 0),
    (
        ["-n", '.a.b = "123" | .c = "true" | .d = [] | .e = {} | .f = "has: colon" | .g = ""'],
        "",
        'a:\n  b: "123"\nc: "true"\nd: []\ne: {}\nf: "has: colon"\ng: ""\n',
        0,
    ),
    ([".", "g.json"], "", '{\n  "k": [\n    1,\n    2\n  ]\n}\n', 0),
    (["-o", "yaml", ".", "g.json"], "", "k:\n  - 1\n  - 2\n", 0),
    ([".", "c.toml"], "", "s:\n  x: 1\n  d: 2020-01-02\n", 0),
    ([".child"], "base: &b\n  x: 1\nchild:\n  <<: *b\n  y: 2\n", "x: 1\ny: 2\n", 0),
    ([".[] | select(.n > 1) | .name"], "- {name: a, n: 1}\n- {name: b, n: 2}\n", "b\n", 0),
    (["keys"], "z: 1\na: 2\n", "- z\n- a\n", 0),
    (['.a.b |= . + 1 | .c = "x"'], "a: {b: 1}\n", "a:\n  b: 2\nc: x\n", 0),
    (["with(.a; .c = 2)"], "a: {b: 1}\n", "a:\n  b: 1\n  c: 2\n", 0),
    (['. * {"a": {"c": 3}}'], "a: {b: 1}\n", "a:\n  b: 1\n  c: 3\n", 0),
    (["del(.a)"], "a: 1\nb: 2\n", "b: 2\n", 0),
    (['omit(["a"])'], "a: 1\nb: 2\n", "b: 2\n", 0),
    ([".a | to_yaml"], "a: {b: 1}\n", "b: 1\n", 0),
    ([".a | tag, kind"], "a: x\n", "!!str\nscalar\n", 0),
    (["-o", "props", "."], "a: {b: 1, c: [x]}\n", "a.b = 1\na.c.0 = x\n", 0),
    ([".a | from_yaml | .b"], 'a: "b: 5"\n', "5\n", 0),
    ([".a + 1, .b * 3"], "a: 1e3\nb: 1.0\n", "1001\n3\n", 0),
    (
        ["-o", "json", "-I", "0", "."],
        "a: 2020-01-01\nb: on\nc: 0x10\nd: ~\n",
        '{"a":"2020-01-01","b":"on","c":16,"d":null}\n',
        0,
    ),
    ([".a"], 'a: "multi\\nline"\n', "multi\nline\n", 0),
    (["."], 'a: "multi\\nline"\n', "a: |-\n  multi\n  line\n", 0),
    (["-e", ".b"], "a: 1\n", "null\n", 1),
    (["-e", ".a"], "a: 1\n", "1\n", 0),
    ([".a |"], "a: 1\n", "", 1),
    (["."], "a: [\n", "", 1),
    ([".", "missing.yaml"], "", "", 1),
    (["--version"], "", "yq (https://github.com/mikefarah/yq/) version v4.44.3\n", 0),
]


@pytest.mark.parametrize(
    ("args", "stdin", "stdout", "status"), CASES, ids=[" ".join(a)[:50] for a, *_ in CASES]
)
def test_yq(args: list[str], stdin: str, stdout: str, status: int) -> None:
    r = run_command(["yq", *args], stdin=stdin.encode(), files=FILES)
    assert (r.stdout.decode(), r.status) == (stdout, status), r.stderr


def test_env_and_inplace() -> None:
    r = run_command(["yq", "-n", 'env("NAME"), strenv("NAME")'], env={"NAME": "v", "PATH": "/bin"})
    assert r.stdout == b"v\nv\n"
    r = run_command(["yq", "-i", ".a = 2", "f.yaml"], files=FILES)
    assert r.status == 0 and r.stdout == b""
    assert r.vfs.view("/home/user").read_bytes("f.yaml") == b"a: 2\nb:\n  - x\n  - y: 2\n"


def test_errors_are_reported() -> None:
    r = run_command(["yq", ".a |"], stdin=b"a: 1\n")
    assert r.stderr.startswith(b"Error: ")
    r = run_command(["yq", "--bogus", "."], stdin=b"a: 1\n")
    assert (r.status, r.stderr) == (1, b"Error: unknown flag: --bogus\n")


# yq's command line is Go pflag's grammar (declared for the one option parser): the wording of
# pflag's errors (spf13/pflag errors.go) as cobra prints them, `-o=json`, `-n=false`, bundles
OPTION_ROWS: list[tuple[list[str], str, str, int]] = [
    (["-n", "1"], "1\n", "", 0),
    (["-n=false", "."], "a: hello\n", "", 0),
    (["--null-input=f", "."], "a: hello\n", "", 0),
    (["-nz", "."], "", "Error: unknown shorthand flag: 'z' in -z\n", 1),
    (["-nzq", "."], "", "Error: unknown shorthand flag: 'z' in -zq\n", 1),
    (["--bogus=1", "."], "", "Error: unknown flag: --bogus\n", 1),
    (["--null", "1"], "", "Error: unknown flag: --null\n", 1),  # no prefixes in pflag
    (["-o"], "", "Error: flag needs an argument: 'o' in -o\n", 1),
    (["-no"], "", "Error: flag needs an argument: 'o' in -o\n", 1),
    (["--output-format"], "", "Error: flag needs an argument: --output-format\n", 1),
    (
        ["-I", "x", "."],
        "",
        'Error: invalid argument "x" for "-I, --indent" flag: strconv.ParseInt: parsing "x": invalid syntax\n',
        1,
    ),
    (
        ["--indent=", "."],
        "",
        'Error: invalid argument "" for "-I, --indent" flag: strconv.ParseInt: parsing "": invalid syntax\n',
        1,
    ),
    (
        ["-I", "99999999999999999999", "."],
        "",
        'Error: invalid argument "99999999999999999999" for "-I, --indent" '
        'flag: strconv.ParseInt: parsing "99999999999999999999": value out of range\n',
        1,
    ),
    (
        ["-n=maybe", "."],
        "",
        'Error: invalid argument "maybe" for "-n, --null-input" flag: strconv.ParseBool: '
        'parsing "maybe": invalid syntax\n',
        1,
    ),
    (["---x"], "", "Error: bad flag syntax: ---x\n", 1),
    (["--=x"], "", "Error: bad flag syntax: --=x\n", 1),
    (["-n=", "1"], "", "Error: unknown shorthand flag: '=' in -=\n", 1),
    (["-V", "--bogus"], "", "Error: unknown flag: --bogus\n", 1),  # cobra parses all flags, then runs
    (["-nV"], "yq (https://github.com/mikefarah/yq/) version v4.44.3\n", "", 0),
    (["-I=0x10", "-o=json", "-I", "010", "."], '{\n        "a": "hello"\n}\n', "", 0),  # ParseInt base 0
    (["-I", "1_0", "-ojson", "."], '{\n          "a": "hello"\n}\n', "", 0),
    (["-nI4", "-o=json", '{"a":1}'], '{\n    "a": 1\n}\n', "", 0),
    (["-o", "json", "eval", ".a"], '"hello"\n', "", 0),  # the subcommand after flags
    (["-j=false", ".a"], "hello\n", "", 0),
    (["-o", "yaml", "-j", ".a"], '"hello"\n', "", 0),  # --tojson wins over -o, whatever the order
]


@pytest.mark.parametrize(
    ("args", "stdout", "stderr", "status"), OPTION_ROWS, ids=[" ".join(a) for a, *_ in OPTION_ROWS]
)
def test_pflag_grammar(args: list[str], stdout: str, stderr: str, status: int) -> None:
    r = run_command(["yq", *args], stdin=b"a: hello\n")
    assert (r.stdout.decode(), r.stderr.decode(), r.status) == (stdout, stderr, status)
