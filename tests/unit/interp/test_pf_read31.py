"""`read` in loops (issue 23, pf-read31): the options that change nothing without a terminal
(-s, -e, -p PROMPT, -i TEXT) are read by the compiler's shapes (interp/fastread._read_options),
and the builtin keeps the parse of the option words it has seen (builtins/io._PARSED). The
spec table pf_read31_options.txt checks both against bash 5.2; here the compiled loops against
the walked builtin, and the parse kept against a fresh one."""

from __future__ import annotations

import random

import pytest

from sandbash import Bash, ExecutionLimitError
from sandbash.builtins import io as read_io
from sandbash.interp.fastread import _read_options
from sandbash.limits import Limits

from .walking import held_change, run_walked, walking


@pytest.mark.parametrize(
    ("words", "want"),
    [
        (["-rs", "x"], (True, None, ["x"], b"\n", 0, None)),
        (["-s", "-e", "x", "y"], (False, None, ["x", "y"], b"\n", 0, None)),
        (["-rsp", "P: ", "-a", "f"], (True, "f", [], b"\n", 0, None)),
        (["-pP: ", "-i", "text", "-r", "x"], (True, None, ["x"], b"\n", 0, None)),
        (["-e", "-d", "", "-u3", "x"], (False, None, ["x"], b"\0", 3, None)),
        (["-sr", "--", "-x"], (True, None, ["-x"], b"\n", 0, None)),
        (["-rp"], None),  # (-p's value missing: the builtin's message)
        (["-ri"], None),
        (["-rz", "x"], None),
        (["-rn", "1", "x"], (True, None, ["x"], b"\n", 0, (1, False))),
        (["-N3", "-n", "2", "-d", ",", "x"], (False, None, ["x"], b",", 0, (2, True))),
        (["-n", "0", "x"], None),  # (no count, a sign, a huge one: the builtin reads them)
        (["-n", "+2", "x"], None),
        (["-N", "1x", "x"], None),
        (["-n", "9999999999", "x"], None),
        (["-t", "1", "x"], None),  # (-t: the builtin's deadline)
    ],
)
def test_read_options_take_the_flags_without_a_terminal(
    words: list[str], want: tuple[object, ...] | None
) -> None:
    assert _read_options(words) == want


_OPTION_WORDS = [
    "-r", "-s", "-e", "-rs", "-sr", "-p '> '", "-p ''", "-i x", "-e -i y", "-rsp 'p: '",
    "-n 1", "-rn1", "-n 3", "-N 2", "-rN 4", "-n 2 -N 3", "-N 3 -n 2", "-d , -n 4", "-rd: -N 3",
]  # fmt: skip
_LINES = ["a,b c", "d\\,e f", " g  h ", "", "i\\", "j:k,l", "é,m", "n\\0o", "\\303p,\\303\\251"]


def _loop_script(rng: random.Random) -> str:
    text = "\\n".join(rng.choice(_LINES) for _ in range(rng.randrange(1, 6)))
    end = rng.choice(["\\n", ""])  # (a last line without a newline: status 1, still assigned)
    lines = [f"printf '{text}{end}' > in", rng.choice(["", "LC_ALL=C", "LC_ALL=C.UTF-8"])]
    for _ in range(6):
        opts = " ".join(rng.choice(_OPTION_WORDS) for _ in range(rng.randrange(1, 3)))
        prefix = rng.choice(["", "IFS=, ", "IFS= ", "IFS=: "])
        target = rng.choice(["x y", "x", "", "-a f", "x y z"])
        lines.append(
            "unset x y z f REPLY; n=0;"
            f" while {prefix}read {opts} {target}; do n=$((n+1));"
            ' echo "$n [${x-u}][${y-u}][${z-u}][${f[*]-u}][${REPLY-u}]"; done < in 2>&1;'
            ' echo "st=$? [${x-u}][${REPLY-u}]"'
        )
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(10))
def test_loops_with_terminal_only_options_are_the_builtins(seed: int) -> None:
    script = _loop_script(random.Random(seed))
    assert run_walked(script, False) == run_walked(script, True)


_PARSE_SCRIPT = r"""printf 'abcdef\nxy\nlast' > in
for n in 1 2 3 1 2; do read -r -n $n c < in; echo "$n<$c>"; done
n=0; while IFS= read -r -N 4 c; do n=$((n+1)); printf '%s<%q>\n' $n "$c"; done < in
for i in 1 2; do read -n -1 c < in; echo "st=$?"; read -t x c < in; echo "st=$?"; done 2>&1
for i in 1 2; do read -q c < in; echo "st=$?"; read -u 9 c; echo "st=$?"; done 2>&1
for a in x y x; do read -r -a $a -d c < in; done; echo "${x[*]} ${y[*]}"
while read -t 5 -n 3 -r -a w; do echo "${w[*]}"; done < in; echo "st=$?"
read -r --help 2>&1 | head -n 1; echo "st=${PIPESTATUS[0]}"
"""


def test_a_kept_parse_answers_as_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = Bash().exec(_PARSE_SCRIPT)
    monkeypatch.setattr(read_io, "_PARSED_TEXT", -1)  # (nothing kept: every call parses)
    read_io._PARSED.clear()
    fresh = Bash().exec(_PARSE_SCRIPT)
    assert read_io._PARSED == {}
    assert (kept.stdout, kept.stderr, kept.exit_code) == (fresh.stdout, fresh.stderr, fresh.exit_code)
    assert "5<ab>" not in kept.stdout and "1<a>\n2<ab>\n3<abc>\n1<a>\n2<ab>\n" in kept.stdout


def test_the_kept_parses_stay_few_and_short() -> None:
    read_io._PARSED.clear()
    r = Bash().exec(
        "printf 'a\\n' > in; for i in $(seq 300); do read -r -p \"$i\" x < in; done; echo $x;"
        ' p=$(printf "%300s" ""); read -r -p "$p" y < in; read -n 1 -p "$p$p" z < in; echo $y $z'
    )
    assert (r.stdout, r.exit_code) == ("a\na a\n", 0)
    assert 0 < len(read_io._PARSED) <= read_io._PARSED_MAX
    assert all(sum(map(len, key)) <= read_io._PARSED_TEXT for key in read_io._PARSED)
    for parsed in read_io._PARSED.values():  # (kept operands are a tuple: no caller can change them)
        assert type(parsed[1]) is tuple


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize("opts", ["-rs", "-e", "-rp '> '", "-s -i t", "-rs -n 2000", "-t 9 -r"])
def test_a_long_line_ends_on_max_string_length(opts: str, walker: bool) -> None:
    script = f'printf "%1990s\\n" "" > in; while IFS= read {opts} line; do :; done < in'
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(max_string_length=1000)).exec(script)
    assert info.value.limit == "max_string_length"


# one name or REPLY read a line (Variables.store_field): the value and the memory account as
# the walked builtin leaves them, for each kind of variable the name may be when the loop runs
_ONE_SETUPS = [
    "",  # (unset: store_fields' way makes it)
    "v=",
    "v=$(printf '%300s' x)",  # (a longer value shrinks)
    "v=é",
    "export v=1",
    "set -a; v=1",
    "declare -i v=0",
    "declare -l v=A",
    "declare -u v=a",
    "v=(x y z)",
    "w=1; declare -n v=w",
    "readonly v=1",
    'f() { local v=1; loop; echo "in $v"; }',
    'f() { local -i v=1; loop; echo "in $v"; }',
    "f() { loop; }",
]
_ONE_LINES = "a\\nbbbbbbbb\\n\\néééé\\n  sp  \\nx\\\\y\\n12\\nlast"


@pytest.mark.parametrize("setup", _ONE_SETUPS)
@pytest.mark.parametrize("read", ["IFS= read -r v", "read -r v", "read v", "IFS=, read -r v", "read -r"])
def test_one_name_read_in_a_loop_is_the_builtins(setup: str, read: str) -> None:
    target = "v" if read.endswith(" v") else "REPLY"
    loop = f'loop() {{ while {read}; do echo "[${{{target}}}]"; done < in; echo "st=$? [${{{target}}}]"; }}'
    run = "f" if setup.startswith("f()") else "loop"
    script = (
        f"printf '{_ONE_LINES}' > in; {loop}; {setup}\n{run} 2>&1; echo \"out [${{{target}}}]\";"
        f" declare -p {target} 2>&1 | head -c 80; echo; set +a"
    )
    results = []
    for walker in (False, True):
        out, held = held_change("x=1", script, walker)
        results.append((out, held))
    assert results[0] == results[1]
    assert results[0][0].startswith("[") or "readonly" in results[0][0]  # (the loop ran)


def test_one_name_read_ends_on_max_memory_as_walked() -> None:
    """A growing value read line by line stops on max_memory at the same line compiled and
    walked, the value of the line before kept."""
    script = (
        "for i in 1 2 3 4 5 6 7 8; do printf '%*s\\n' $((i * 400000)) x; done > in;"
        " n=0; while IFS= read -r v; do n=$((n+1)); done < in"
    )
    ends = []
    for walker in (False, True):
        with walking(walker):
            session = Bash(limits=Limits(max_memory=3_000_000)).session()
            with pytest.raises(ExecutionLimitError) as info:
                session.exec(script)
            assert info.value.limit == "max_memory"
            ends.append(session.exec('echo "$n ${#v}"').stdout)
    assert ends[0] == ends[1] and ends[0] != "8 0\n"  # (ended inside the loop, a value kept)


# mapfile without -n takes whole lines a chunk at a time (builtins/io._mapfile_block): the same
# limit ends the same runs as taking them one at a time (the block refused: the old way)
_MAPFILE_DATA = "".join(f"{i} line\n" for i in range(1, 20001))
_MAPFILE_SCRIPTS = [
    "mapfile -t a < big",
    "mapfile a < big",
    "mapfile -t -s 5000 a < big",
    "mapfile -t -d e a < big",
    'x=$(< big); mapfile -t a <<< "$x"',  # (a here-string's text is read a chunk at a time too)
    '{ mapfile -t a < big; echo "job ${#a[@]}"; } & wait',  # (a job's budget charges the run's)
]


def _mapfile_end(
    script: str, limits: Limits, per_line: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str]:
    with monkeypatch.context() as patch:
        if per_line:
            patch.setattr(read_io, "_mapfile_block", lambda *args: False)
        try:
            r = Bash(limits=limits, files={"big": _MAPFILE_DATA}).exec(script + '; echo "${#a[@]} ${a[-1]}"')
            return r.stdout, ""
        except ExecutionLimitError as e:
            return "", e.limit


@pytest.mark.parametrize("script", _MAPFILE_SCRIPTS)
@pytest.mark.parametrize(
    "limits",
    [
        Limits(),
        Limits(max_array_elements=3000),
        Limits(max_array_elements=14999),
        Limits(max_array_elements=20000),
        Limits(max_memory=2_000_000),
        Limits(max_memory=4_000_000),
        Limits(max_work=19_990),
        Limits(max_work=20_100),
        Limits(max_work=30_000),
        Limits(max_memory=3_000_000, max_array_elements=17000),
    ],
    ids=lambda lim: (
        repr({k: v for k, v in vars(lim).items() if v != getattr(Limits(), k)})
        if hasattr(lim, "__dict__")
        else str(lim)
    ),
)
def test_mapfile_blocks_end_where_lines_one_at_a_time_end(
    script: str, limits: Limits, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = _mapfile_end(script, limits, False, monkeypatch)
    assert blocks == _mapfile_end(script, limits, True, monkeypatch)
    assert blocks[0] or blocks[1]


@pytest.mark.parametrize("per_line", [False, True])
@pytest.mark.parametrize("tail", ["\n", "", "\nlast"])
def test_mapfile_of_a_line_past_max_string_length_ends_there(per_line: bool, tail: str) -> None:
    files = {"long": "a\n" + "b\n" * 5000 + "y" * 300_000 + tail}
    with pytest.MonkeyPatch.context() as patch:
        if per_line:
            patch.setattr(read_io, "_mapfile_block", lambda *args: False)
        with pytest.raises(ExecutionLimitError) as info:
            Bash(limits=Limits(max_string_length=100_000), files=files).exec("mapfile -t a < long")
    assert info.value.limit == "max_string_length"
