"""`read` under a literal `IFS=TEXT` binding (issue 23, pf-read36): the compiled read
(fastread.read_code, herestring_read) splits its line with a splitter chosen when it is compiled
(posix/readfields.read_splitter) in place of split_read_fields' lookup of IFS's classes each
line. The splitters give what the general scan gives for every IFS and line, and the compiled
loops give the walker's results for every read shape, IFS, line and change made in the middle of
a loop; the same forms against bash are tests/spec/cases/pf-read36.txt."""

from __future__ import annotations

import itertools

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Policy
from sandbash.posix import readfields
from sandbash.posix.readfields import read_splitter, split_read_fields

from .walking import compiled_and_walked, held_change, started_argvs, walking

# IFS values of each kind: empty, white space only (one, several, repeated), one character that
# is not (a letter, a backslash, a repeated comma), and white space mixed with others
IFS_VALUES = ["", " ", "\t", " \t\n", "\n", ",", ":", ",,", "a", "\\", ", ", " ,", ",\t", ",:", ": \t"]


def _reference(text: str, ifs: str, count: int) -> list[str]:
    """The general scan's fields (what every way of split_read_fields must give)."""
    if not ifs:
        return [text] if text else []
    ws, other, ws_run, _ = readfields._ifs_split(ifs)
    return readfields._scan(ws, other, ws_run, text, count)


@pytest.mark.parametrize("ifs", IFS_VALUES)
def test_each_splitter_gives_the_general_scans_fields(ifs: str) -> None:
    split = read_splitter(ifs)
    checked = 0
    for n in range(6):
        for chars in itertools.product(" ,\t:a\\", repeat=n):
            text = "".join(chars)
            for count in (1, 2, 3, 4, 10**6):
                want = _reference(text, ifs, count)
                assert split(text, count) == want, (text, count)
                assert split_read_fields(text, [], ifs, count) == want, (text, count)
                checked += 1
    assert checked == 5 * sum(6**n for n in range(6))


@pytest.mark.parametrize("ifs", [" ", " \t\n", "\t"])
def test_a_long_line_of_white_space_fields_is_scanned(ifs: str) -> None:
    # (past _SPLIT_MAX a white-space IFS cuts by the scan: the same fields)
    text = " " + "ab  c\t " * 2000 + " "
    for count in (1, 2, 7, 10**6):
        assert read_splitter(ifs)(text, count) == _reference(text, ifs, count)


# lines of every shape for a separator: empty fields, separators at either end, several at the
# end, white space around them, backslashes (read without -r joins or keeps them), a tab
NASTY = [
    "",
    ",",
    ",,",
    "a",
    "a,",
    "a,,",
    ",a",
    "a,b",
    "a,b,",
    "a,b,,",
    "a,,b",
    "a,b,c",
    "a,b,c,",
    "a,b,c,d,",
    " a , b , c ",
    " , ",
    "a\\,b,c",
    "a,b\\",
    "a\tb:c d",
    ",a,",
    "x:y, z ,",
]
FILES = {
    "/d/n.txt": "".join(line + "\n" for line in NASTY * 100),
    "/d/f.csv": "".join(f"user{i},item{i % 7},{i % 5}\n" for i in range(2500)),
}
# the read forms under a literal binding, in a loop that reads the file (compiled and, past
# loopgen.PLAIN_STEPS, generated), each line's fields added to a string
LOOPS = [
    'while {ifs} read {r} a; do s+="[$a]"; done < /d/n.txt; echo "${{s: -300}}"',
    'while {ifs} read {r} a b; do s+="[$a|$b]"; done < /d/n.txt; echo "${{s: -300}}"',
    'while {ifs} read {r} a b c; do s+="[$a|$b|$c]"; done < /d/n.txt; echo "${{s: -300}}"',
    'while {ifs} read {r} -a f; do s+="${{#f[@]}}[${{f[*]}}]"; done < /d/n.txt; echo "${{s: -300}}"',
    'while {ifs} read {r}; do s+="[$REPLY]"; done < /d/n.txt; echo "${{s: -300}}"',
    'while read -r l; do {ifs} read {r} a b <<< "$l"; {ifs} read {r} -a f <<< "$l"; s+="[$a|$b]${{#f[@]}}<${{f[*]}}>"; done < /d/n.txt; echo "${{s: -300}}"',
    'mapfile -t ls < /d/n.txt; for l in "${{ls[@]}}"; do {ifs} read {r} -a f <<< "$l"; {ifs} read {r} x <<< "$l"; s+="${{#f[@]}}[${{f[-1]}}][$x]"; done; echo "${{s: -300}}"',
]
BINDINGS = ["IFS=,", "IFS=':'", "IFS=", "IFS=', '", "IFS=$'\\t'", "IFS='\\'"]


@pytest.mark.parametrize("ifs", BINDINGS)
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("r", ["-r", ""])
def test_a_read_under_a_literal_binding_does_what_the_walker_does(ifs: str, loop: str, r: str) -> None:
    script = loop.format(ifs=ifs, r=r) + '; echo "[$IFS]" ${IFS+set}; declare -p IFS'
    compiled, walked = compiled_and_walked(script, files=FILES)
    assert compiled == walked
    assert compiled[2] == 0 and len(compiled[0]) > 300


# what the binding, or a name read into, becomes in the middle of a loop; what a function called
# in the body and a trap see of IFS
CHANGED = [
    # IFS changed globally, made readonly (the binding then fails), unset, a reference
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && IFS=:; done < /d/f.csv; echo [$x] [$IFS]",
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && readonly IFS; done < /d/f.csv; echo $? [$x]",
    "while IFS=, read -r -a a; do x=${a[1]}; [ $a = user2200 ] && readonly IFS; done < /d/f.csv; echo $? [$x]",
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && unset IFS; done < /d/f.csv; echo [$x] ${IFS-unset}",
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && declare -n IFS=z; done < /d/f.csv; echo [$x] [$z]",
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && declare -i IFS; done < /d/f.csv; echo $? [$x]",
    # a name read into becomes a reference to IFS, an integer, readonly, an array, assoc
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && declare -n b=IFS; done < /d/f.csv; echo [$x] [$IFS]",
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && declare -i b; done < /d/f.csv; echo $? [$x]",
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && readonly b; done < /d/f.csv; echo $? [$x]",
    "while IFS=, read -r -a f; do x=${f[2]}; [ $f = user2200 ] && declare -A f; done < /d/f.csv; echo $? [$x]",
    "while IFS=, read -r -a f; do x=${f[2]}; [ $f = user2200 ] && readonly f; done < /d/f.csv; echo $? [$x]",
    "while IFS=, read -r -a f; do x=${f[2]}; [ $f = user2200 ] && declare -n f=IFS; done < /d/f.csv; echo $? [$x] [$IFS]",
    # a function called in the body, a DEBUG trap and set -x: IFS as they see it
    'f() { y+="[$IFS]"; }; while IFS=, read -r a b; do f; done < /d/f.csv; echo ${#y} ${y:0:9}',
    "while IFS=, read -r a b; do [ $a = user2490 ] && trap 'echo \"D[$IFS]\"' DEBUG; done < /d/f.csv",
    "while IFS=, read -r a b; do [ $a = user2495 ] && set -x; done < /d/f.csv 2>&1",
    "while IFS=: read -r a; do [ $a = user2498,item4,3 ] && { declare -p IFS; }; done < /d/f.csv",
    # inside a function with IFS local, and the binding on a local IFS
    "g() { local IFS=:; while IFS=, read -r a b; do x=$b; done < /d/f.csv; echo [$x] [$IFS]; }; g",
    "g() { local a b; while IFS=, read -r a b c; do x=$c; done < /d/f.csv; echo [$x] [$a]; }; g; echo [$a]",
]


@pytest.mark.parametrize("script", CHANGED)
def test_changes_mid_loop_are_the_walkers(script: str) -> None:
    compiled, walked = compiled_and_walked(script, files=FILES)
    assert compiled == walked


@pytest.mark.parametrize(
    ("script", "limits", "kind"),
    [
        # -a: more fields than an array may hold, through the splitter and the scan
        ("while IFS=, read -r -a f; do :; done < /d/big", {"max_array_elements": 1000}, "max_array_elements"),
        (
            "while IFS=', ' read -r -a f; do :; done < /d/big",
            {"max_array_elements": 1000},
            "max_array_elements",
        ),
        ('l=$(cat /d/big); IFS=, read -r -a f <<< "$l"', {"max_array_elements": 1000}, "max_array_elements"),
        ("while IFS=, read -r -a f; do :; done < /d/big", {"max_memory": 1_000_000}, "max_memory"),
        (
            "while IFS=, read -r a b; do x=$a; done < /d/f.csv",
            {"max_command_count": 3000},
            "max_command_count",
        ),
    ],
)
def test_the_limit_that_ends_the_walk_ends_the_compiled_read(
    script: str, limits: dict[str, int], kind: str
) -> None:
    files = {**FILES, "/d/big": "x," * 150_000 + "\n"}
    seen = []
    for walker in (False, True):
        with walking(walker), pytest.raises(ExecutionLimitError) as e:
            Bash(files=files).exec(script + "; echo after", limits=limits)  # type: ignore[arg-type]
        seen.append(e.value.limit)
    assert seen == [kind, kind]


# the here-string read as one step (fastread.herestring_read): each way it leaves its plain case,
# in a loop long enough to be compiled and generated, compared with the walker
HERE = [
    # IFS or the array with attributes, a reference, before the loop and in its middle
    'readonly IFS; while read -r l; do IFS=, read -r a b <<< "$l"; done < /d/f.csv; echo $? [$a] [$b]',
    'while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2200 ] && declare -n IFS=z; done < /d/f.csv; echo $? [$b]',
    'while read -r l; do IFS=, read -ra f <<< "$l"; [ $f = user2200 ] && readonly f; done < /d/f.csv; echo $? [${f[1]}]',
    'while read -r l; do IFS=, read -ra f <<< "$l"; [ $f = user2200 ] && declare -A f; done < /d/f.csv; echo $? [${f[1]}]',
    'while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2200 ] && declare -n b=IFS; done < /d/f.csv; echo [$a] [$IFS]',
    'while read -r l; do read -r a b <<< "$l"; [ $a = user2200,item2,0 ] && IFS=,; done < /d/f.csv; echo [$a] [$b]',
    # lines the builtin reads itself: backslashes without -r, past ASCII, a second line, empty
    'bs=\\\\; while read -r l; do IFS=, read a b <<< "${l%%,*}$bs,x${bs}q,$l"; s+="[$a|$b]"; done < /d/f.csv; echo "${s: -60}"',
    'while read -r l; do IFS=, read -r a b <<< "é$l"; s+="[$a|$b]"; done < /d/f.csv; echo "${s: -60}"',
    'while read -r l; do IFS=, read -r a b <<< "$l"$\'\\n\'"x,y"; s+="[$a|$b]"; done < /d/f.csv; echo "${s: -60}"',
    'while read -r l; do IFS=, read -r a b <<< ""; s+="[$a|$b]"; done < /d/f.csv; echo "${s: -60}"',
    # the word's expansion: a substitution, an error, a process substitution
    'while read -r l; do IFS=, read -r a b <<< "$(echo "$l")"; done < /d/f.csv; echo $? [$b] "$_"',
    'while read -r l; do IFS=, read -r a b <<< "${l:?gone}"; [ $a = user2200 ] && unset l; done < /d/f.csv; echo $? [$b]',
    "while read -r l; do IFS=, read -r a b <<< <(:); done < /d/f.csv; echo $? [${b%%[0-9]*}]",
    # the builtin hidden, traps, set -x, set -e, the descriptor limit
    'while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2200 ] && read() { echo fn; return 1; }; done < /d/f.csv | tail -n 2',
    'while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2200 ] && enable -n read; done < /d/f.csv; echo $? [$b]',
    'while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2497 ] && trap \'echo "D[$IFS]"\' DEBUG; done < /d/f.csv',
    'while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2498 ] && set -x; done < /d/f.csv 2>&1',
    'set -e; while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2200 ] && readonly b; done < /d/f.csv; echo no',
    'while read -r l; do IFS=, read -r a b <<< "$l"; [ $a = user2200 ] && ulimit -n 0; done < /d/f.csv; echo $? [$b]',
    # what it leaves: $_, $?, PIPESTATUS, a function's locals and IFS
    'g() { local a b IFS=:; while read -r l; do IFS=, read -r a b <<< "$l"; done < /d/f.csv; echo "[$a|$b] [$IFS] $_"; }; g; echo "[$a] ${PIPESTATUS[*]}"',
]


@pytest.mark.parametrize("script", HERE)
def test_the_here_string_read_leaves_its_plain_case_as_the_walker(script: str) -> None:
    compiled, walked = compiled_and_walked(script, files=FILES)
    assert compiled == walked


def test_a_here_string_read_is_refused_and_audited_as_the_walkers() -> None:
    script = 'while read -r l; do IFS=, read -r a b <<< "$l"; done < /d/f.csv; echo $? [$b]'
    compiled, walked = compiled_and_walked(script, files=FILES, policy=Policy(deny=["read"]))
    assert compiled == walked and compiled[0] == "0 []\n"
    compiled_argvs, walked_argvs = started_argvs(script, files=FILES)
    assert compiled_argvs == walked_argvs
    assert compiled_argvs.count(("read", "-r", "a", "b")) == 2500


# an element replaced (Variables._store charges the difference of its texts first): each way an
# element is stored, growing, shrinking and keeping its length, in a loop
REPLACED = [
    "for i in {1..3000}; do (( m[k$((i % 7))] += i )); done",
    "for i in {1..3000}; do m[k$((i % 7))]=$(( ${m[k$((i % 7))]:-0} + i )); done",
    "for i in {1..3000}; do a[i % 5]=$(( a[i % 5] + i )); done",
    "for i in {1..3000}; do (( a[i % 5] += i )); done",
    "for i in {1..3000}; do m[k$((i % 3))]+=x; a[i % 4]+=y; done",
    "for i in {1..3000}; do m[k]=${m[k]%?}; m[k]+=zz; a[1]=$i; done",
]


@pytest.mark.parametrize("script", REPLACED)
def test_a_replaced_element_is_charged_what_it_adds(script: str) -> None:
    # (what the variables hold after the loop: the same compiled and walked, and the same as a
    # fresh run that stores the final values at once)
    setup = "declare -A m=([k]=abc); a=(1 2)"
    compiled = held_change(setup, script + "; declare -p m a | md5sum", False)
    walked = held_change(setup, script + "; declare -p m a | md5sum", True)
    assert compiled == walked
    with walking(False):
        session = Bash().session()
        session.exec(setup)
        final = session.exec(script + "; declare -p m a").stdout
        # (a fresh session given the final values at once holds as much)
        fresh = Bash().session()
        fresh.exec(setup)
        fresh.exec("unset m a; i=3000; " + final.replace("declare -A m", "declare -gA m"))
        assert vars_held(session.shell.state.vars) == vars_held(fresh.shell.state.vars)


def test_max_memory_refuses_a_growing_element_and_keeps_it() -> None:
    script = "declare -A m=([k]=); while :; do m[k]+=$(printf '%01000d' 0); done"
    seen = []
    for walker in (False, True):
        with walking(walker), pytest.raises(ExecutionLimitError) as e:
            Bash().exec(script, limits={"max_memory": 3_000_000})
        seen.append((e.value.limit, len(e.value.result.stdout)))
    assert seen[0] == seen[1] and seen[0][0] == "max_memory"
