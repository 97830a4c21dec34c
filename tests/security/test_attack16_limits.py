"""Attack round 16: the argument limits agree with bash's ARG_MAX, and big words read the clock.

bash's ARG_MAX binds only what it execs: a builtin, a function call or a for-list takes as many
words as the shell can hold. sandbash refused `printf '%s\\n' "${a[@]}"` past max_arguments
(131,072) while an array may hold max_array_elements (1,000,000). Now the shell's own words are
bounded by Limits.shell_words (an array's worth plus a program's, half the run's memory) and a
program (a command, script or shell, also through env or xargs) by max_arguments and
max_argument_bytes where it would be exec'd (Executor._exec_args).

One "${a[@]}" of a million elements was charged as one word before field splitting made its
fields, and the splitting took seconds without a look at the clock: `while :; do f "${a[@]}";
done` ran 1-3 s past a 1 s deadline. split() now reads it every FIELDS_PER_CLOCK fields.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from sandbash import Bash, Limits
from sandbash.api import Session
from sandbash.errors import ExecutionLimitError

# a program gets 1,000 words, an array holds 100,000: the shell's own commands get the array's
SMALL = Limits(max_arguments=1_000, max_argument_bytes=20_000, max_array_elements=100_000)
FILL = "a=(); for ((i = 0; i < 5000; i++)); do a+=(w$i); done; "

# each runs in bash (ARG_MAX is not checked for builtins and functions): stdout as bash gives it
SHELL_WORDS = {
    "printf": ('printf "%s\\n" "${a[@]}" | tail -n 1', "w4999\n"),
    "echo": ('echo "${a[@]}" | wc -w', "5000\n"),
    "set --": ('set -- "${a[@]}"; echo $# "${5000}"', "5000 w4999\n"),
    "shift": ('set -- "${a[@]}"; shift 4998; echo "$@"', "w4998 w4999\n"),
    "function": ('f() { echo $# "${@: -1}"; }; f "${a[@]}"', "5000 w4999\n"),
    "for": ('n=0; for x in "${a[@]}"; do n=$((n+1)); done; echo $n', "5000\n"),
    "declare -a": ('declare -a b=("${a[@]}"); echo ${#b[@]}', "5000\n"),
    "local -a": ('f() { local -a x=("${a[@]}"); echo ${#x[@]}; }; f', "5000\n"),
    "declare names": ('declare "${a[@]/#/v}"; echo "${vw4999-unset}" ${#vw0}', "unset 0\n"),
    "local names": ('f() { local "${a[@]/%/=1}"; echo $w4999; }; f', "1\n"),
    "export": ('export "${a[@]/%/=x}"; echo "$w17"', "x\n"),
    "unset": ('w3=1 w4000=2; unset "${a[@]}"; echo "${w3-gone}${w4000-gone}"', "gonegone\n"),
    "test": ('test "${a[@]}"; echo $?', "2\n"),
    "[": ('[ "${a[@]}" ]; echo $?', "2\n"),
    "read": ('read -ra b <<< "${a[*]}"; echo ${#b[@]}', "5000\n"),
    "mapfile": ('mapfile -t b < <(printf "%s\\n" "${a[@]}"); echo ${#b[@]}', "5000\n"),
    "eval": ('eval "b=(${a[*]})"; echo ${#b[@]}', "5000\n"),
    "sort input": ('sort <<< "${a[*]}" | wc -c', "28890\n"),
}


@pytest.mark.parametrize("name", sorted(SHELL_WORDS))
def test_builtins_functions_and_for_lists_take_more_than_a_programs_words(name: str) -> None:
    script, want = SHELL_WORDS[name]
    r = Bash(limits=SMALL).exec(FILL + script)
    assert (r.stdout, r.exit_code) == (want, 0), r


# what bash would exec, however it is reached: max_arguments (5,000 words here, over 1,000; held
# before, and must still hold)
PROGRAMS = {
    "command": 'cat "${a[@]}"',
    "path": '/bin/cat "${a[@]}"',
    "env": 'env cat "${a[@]}"',
    "command builtin": 'command cat "${a[@]}"',
    "exec": 'exec cat "${a[@]}"',
    "xargs utility": 'xargs cat "${a[@]}" < /dev/null',
    "script": 'printf "echo hi\\n" > /tmp/s; chmod +x /tmp/s; /tmp/s "${a[@]}"',
    "shell": 'bash -c : "${a[@]}"',
    "subshell": '( cat "${a[@]}" )',
    "pipeline stage": 'cat "${a[@]}" | cat',
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_program_gets_max_arguments(name: str) -> None:
    with pytest.raises(ExecutionLimitError) as caught:
        Bash(limits=SMALL.with_overrides(max_argument_bytes=1 << 20)).exec(FILL + PROGRAMS[name])
    assert caught.value.limit == "max_arguments", caught.value


def test_a_program_gets_max_argument_bytes() -> None:
    # 900 words of 40 characters: under max_arguments, over max_argument_bytes (20,000)
    script = 'b=(); for ((i = 0; i < 900; i++)); do b+=("$(printf "%040d" $i)"); done; '
    r = Bash(limits=SMALL).exec(script + 'f() { echo $#; }; f "${b[@]}"; printf "%s" "${b[@]}" | wc -c')
    assert r.stdout == "900\n36000\n", r
    with pytest.raises(ExecutionLimitError) as caught:
        Bash(limits=SMALL).exec(script + 'echo "${b[@]}" | xargs -n 900 -s 100000 echo')
    assert caught.value.limit == "max_argument_bytes", caught.value


def test_the_shells_own_words_are_bounded_by_an_array_and_by_memory() -> None:
    # past an array's worth and a program's (101,000 here): max_array_elements
    with pytest.raises(ExecutionLimitError) as caught:
        Bash(limits=SMALL).exec('mapfile -t a < <(seq 100000); f() { :; }; f "${a[@]}" "${a[@]}"')
    assert caught.value.limit == "max_array_elements", caught.value
    # past half the run's memory (max_memory 8 MiB: 4 MiB of words), however few they are
    tight = Limits(max_memory=8 << 20, max_argument_bytes=1 << 20)
    with pytest.raises(ExecutionLimitError) as caught:
        Bash(limits=tight).exec('x=$(printf "%01000000d" 0); f() { :; }; f $x $x $x $x $x')
    assert caught.value.limit == "max_memory", caught.value


# one step is one expansion of a million words; the loop ends in time, asserted by the CPU the run
# took (the host may be busy): at its deadline within a step's split, or, where a step is quick (a
# quoted "${a[@]}" alone in its word is its values' list: ~0.1 s), at max_expansion_bytes (the run's
# 64 MiB of expanded words) first
BIG_STEPS = {
    "function": 'f() { :; }; while :; do f "${a[@]}"; done',
    "test": 'while :; do test "${a[@]}"; done',
    "set --": 'while :; do set -- "${a[@]}"; done',
    "for": 'while :; do for x in "${a[@]}"; do :; done; done',
}


@pytest.fixture(scope="module")
def million() -> Iterator[Session]:
    lines = "".join(f"{i}\n" for i in range(1_000_000))
    # (a million elements are charged ~143 MB, past the default max_session_memory of 128 MiB: the
    # session must keep them to be the steps' input)
    session = Bash(files={"/d": lines}, limits=Limits(max_session_memory=512 << 20)).session()
    session.exec("mapfile -t a < /d", limits={"timeout": 300})
    yield session


@pytest.mark.parametrize("name", sorted(BIG_STEPS))
def test_a_million_word_step_ends_at_the_deadline(million: Session, name: str) -> None:
    cpu = time.process_time()
    with pytest.raises(ExecutionLimitError) as caught:
        # (room for the step's million words beside the array: `set --` charges its positional
        # parameters to max_memory, which the default 256 MiB would end before the deadline)
        million.exec(BIG_STEPS[name], limits={"timeout": 1, "max_memory": 1 << 30})
    assert caught.value.limit in ("timeout", "max_expansion_bytes"), caught.value
    assert time.process_time() - cpu < 1 + 1.5, "late"
