"""Spellings that lag their best (issue 23, pf-var29): `a=(...)` / `read -a` replacing an indexed
array charges the change once when the new array is small (Variables.push_values,
SMALL_ARRAY_BYTES), as a scalar's store does, and the new array beside the old one when it is
large; the account stays exact and max_array_elements / max_memory end a run where they did."""

from __future__ import annotations

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Session
from sandbash.interp.variables import SMALL_ARRAY_BYTES
from sandbash.shvars.arrays import ELEMENT_OVERHEAD, elements_bytes

from .walking import walking

MB = 1 << 20


def held(sess: Session) -> int:
    return vars_held(sess.shell.state.vars)


def array_bytes(sess: Session, name: str) -> int:
    var = sess.shell.state.vars.find(name)
    assert var is not None
    return var.value.nbytes  # type: ignore[union-attr]


# replacements of every size against every other: empty, one field, small, wide, just under and
# over SMALL_ARRAY_BYTES (elements of 100 characters: 236 bytes each), large
SIZES = {
    "empty": "",
    "one": "x",
    "small": "a b c",
    "wide": "é ü ß",
    "under": " ".join(["y" * 100] * (SMALL_ARRAY_BYTES // (100 + ELEMENT_OVERHEAD))),
    "over": " ".join(["z" * 100] * (SMALL_ARRAY_BYTES // (100 + ELEMENT_OVERHEAD) + 1)),
    "large": " ".join(["w" * 50] * 2000),
}


@pytest.mark.parametrize("first", list(SIZES))
@pytest.mark.parametrize("second", list(SIZES))
@pytest.mark.parametrize(
    "spelling",
    [
        "a=($W)",  # an assignment of words
        'read -ra a <<< "$W"',  # read -a of a here-string (the compiled one, or the builtin)
        "IFS=' ' read -r -a a < <(printf '%s\\n' \"$W\")",  # read -a of a descriptor
        "mapfile -t a < <(printf '%s\\n' $W)",  # one value a line
    ],
)
def test_replacing_an_array_keeps_the_account_exact(first: str, second: str, spelling: str) -> None:
    sess = Bash().session()
    sess.exec(f"W1='{SIZES[first]}'; W2='{SIZES[second]}'; a=()")
    empty = held(sess)
    for w in ("W1", "W2", "W1", "W1"):
        sess.exec(spelling.replace("$W", "$" + w))
        var = sess.shell.state.vars.find("a")
        assert var is not None
        arr = var.value
        assert arr.nbytes == elements_bytes([arr.get(k) for k in range(len(arr))])  # type: ignore[union-attr]
        assert held(sess) - empty == arr.nbytes  # type: ignore[union-attr]
    sess.exec("a=()")
    assert held(sess) == empty


@pytest.mark.parametrize(
    "loop",
    [
        # the compiled read -a in a loop: lines of changing size in a global, a local, an exported array
        "while IFS=, read -r -a f; do :; done < /tmp/rows",
        "declare -ax f=(q); while read -ra f; do :; done < /tmp/rows",
        "g() { local -a f=(1 2 3); while IFS=, read -a f; do :; done < /tmp/rows; }; g",
        # the same array assigned and appended to in a loop
        'f=(); for ((i=0; i<300; i++)); do f=(x$i y "${f[0]}"); f+=(z); done',
        "f=(); for ((i=0; i<30; i++)); do f=($(printf 'v%.0s ' $(seq $((i * 20))))); done",
    ],
)
def test_array_replacements_in_loops_give_everything_back(loop: str) -> None:
    sess = Bash().session()
    rows = "a,b,c\n\né,x,yy\na,,b,c,dddd\n" + ",".join(["k" * 40] * 200) + "\nz \n"
    sess.exec(f"printf '%s' '{rows}' > /tmp/rows; unset f i")
    base = held(sess)
    for _ in range(3):
        sess.exec(loop)
        sess.exec("unset f i; unset -f g")
        assert held(sess) == base


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize(
    "store",
    [
        "while IFS=, read -r -a f; do :; done < in",  # the compiled read of a descriptor
        'while read -r l; do IFS=, read -ra f <<< "$l"; done < in',  # of a here-string
        'while read -r l; do IFS=,; f=($l); IFS=" "; done < in',  # words split from a line
        "while read -r l; do f=(${l//,/ }); done < in",  # words of a replacement
    ],
)
@pytest.mark.parametrize("limit", [3, 4, 5])
def test_array_replacements_keep_the_element_limit(walker: bool, store: str, limit: int) -> None:
    # lines of 1-5 fields: the run ends at the first line with more fields than the limit, the
    # array left as the line before made it
    script = f"printf '%s\\n' a a,b a,b,c a,b,c,d a,b,c,d,e > in; f=(old); {store}; echo done"
    with walking(walker):
        if limit >= 5:
            r = Bash().exec(script + '; echo "${#f[@]}"', limits={"max_array_elements": limit})
            # (bash's count: the loop's own read at the end of input leaves no element)
            assert (r.stdout, r.exit_code) == (
                "done\n0\n" if store.endswith("-a f; do :; done < in") else "done\n5\n",
                0,
            )
            return
        sess = Bash().session()
        with pytest.raises(ExecutionLimitError) as info:
            sess.exec(script, limits={"max_array_elements": limit})
    assert info.value.limit == "max_array_elements"
    assert info.value.result.stdout == ""
    assert sess.exec('echo "${#f[@]} ${f[0]}${f[-1]}"').stdout == f"{limit} a{'abcde'[limit - 1]}\n"


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize("spelling", ['a=("${b[@]}")', 'read -ra a <<< "${b[*]}"'])
def test_a_large_array_is_made_beside_the_one_it_replaces(walker: bool, spelling: str) -> None:
    # over SMALL_ARRAY_BYTES the new array is charged before the old one is given back: two
    # arrays of ~3.7 MB under max_memory that holds two but not three end the run on the third
    make = "W=$(printf 'w%.0s' {1..50}); b=(); for ((i=0; i<20000; i++)); do b+=($W); done; "
    with walking(walker):
        r = Bash().exec(make + f"{spelling}; {spelling}; echo ok", limits={"max_memory": 15 * MB})
        assert r.stdout == "ok\n"
        with pytest.raises(ExecutionLimitError) as info:
            Bash().exec(make + f"a=(); {spelling}; {spelling}; echo ok", limits={"max_memory": 11 * MB})
    assert info.value.limit == "max_memory"


# scalar stores a compiled closure writes out (steps._store_plain): values growing, shrinking,
# wide, of an exported, a local, a new, an integer, a readonly, a nameref'd, an array variable,
# under `set -a`, an arithmetic store of literal text and of a template
SCALARS = [
    'v=; for ((i=0; i<300; i++)); do v=x$i; done; echo "$v"',
    'v=long; for ((i=300; i>0; i--)); do v=${v:1}$i; v=é$i; done; echo "$v"',
    'export v=1; for ((i=0; i<300; i++)); do v=$((i * 7)); done; echo "$v"; env | grep "^v="',
    'f() { local v=0 i; for ((i=0; i<300; i++)); do v="$v$i"; v=${v: -5}; done; echo "$v"; }; f',
    'for ((i=0; i<300; i++)); do unset n; n=$i; done; echo "$n"',
    'declare -i v=1; for ((i=0; i<300; i++)); do v=i+1; done; echo "$v"',
    'readonly r=1; for ((i=0; i<3; i++)); do r=$i; echo "st=$?"; done 2>&1',
    'declare -n ref=tgt; for ((i=0; i<300; i++)); do ref=t$i; done; echo "$tgt"',
    "a=(1 2); for ((i=0; i<300; i++)); do a=$i; done; declare -p a",
    'set -a; for ((i=0; i<300; i++)); do w=$i; done; set +a; env | grep "^w="',
    'c=0; f=(a b 7); for ((i=0; i<300; i++)); do c=$((c + ${#f[@]} + ${f[2]})); d=$((c % 7)); done; echo "$c $d"',
    'for ((i=0; i<300; i++)); do v=$((i % 3 ? 1 : 2)); done; echo "$v"',
]


@pytest.mark.parametrize("script", SCALARS)
def test_scalar_stores_compiled_as_walked(script: str) -> None:
    results = []
    for walker in (False, True):
        with walking(walker):
            sess = Bash().session()
            sess.exec("unset v n r w tgt a c d f i")
            base = held(sess)
            r = sess.exec(script)
            after = held(sess) - base
        results.append((r.stdout, r.stderr, r.exit_code, after))
    assert results[0] == results[1]
    assert results[0][2] == 0 or "readonly" in script


@pytest.mark.parametrize("walker", [False, True])
def test_a_scalar_store_over_max_string_length_ends_where_it_did(walker: bool) -> None:
    script = "v=; w=$(printf '%0100d' 0); for ((i=0; i<300; i++)); do v=$v$w; done; echo no"
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        Bash().exec(script, limits={"max_string_length": 10_000})
    assert info.value.limit == "max_string_length"
    assert info.value.result.stdout == ""
