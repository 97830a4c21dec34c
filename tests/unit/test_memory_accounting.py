"""What the shell's own state is charged to max_memory: variables, arrays, function definitions.

A Session keeps its shell between runs, so `held()` (what its account holds) can be read after
each run. Costs are conservative estimates: the tests bound them from both sides rather than
assert exact numbers.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Limits, Session
from sandbash.commands.context import Ctx
from sandbash.custom import command
from sandbash.limits import Budget, LimitExceeded
from sandbash.shvars.arrays import ELEMENT_OVERHEAD
from sandbash.shvars.vars import source_size
from sandbash.stdio.pipe import Pipe
from sandbash.stdio.streams import BytesReader

MB = 1 << 20
# a 300,000-character function body (its syntax tree: about three copies of the text)
BODY = "b=$(printf '%300000s' | tr ' ' b); "


def held(sess: Session) -> int:
    return vars_held(sess.shell.state.vars)


@pytest.fixture
def sess() -> Session:
    return Bash().session()


def test_a_function_definition_is_charged(sess: Session) -> None:
    sess.exec("x=1")
    base = held(sess)
    sess.exec(BODY + 'eval "g(){ echo $b; }"; unset b')
    assert 900_000 <= held(sess) - base <= 1_000_000


@pytest.mark.parametrize(
    "redefine",
    [
        'for i in {1..30}; do eval "g(){ echo $b$i; }"; done',  # a new tree each time
        'for i in {1..30}; do g(){ echo "$b"; }; done',  # the same tree each time
        'for i in {1..30}; do eval "g(){ echo $b$i; }"; unset -f g; done; eval "g(){ echo $b; }"',
        'for i in {1..30}; do eval "g$i(){ echo $b$i; }"; unset -f "g$i"; done; eval "g(){ echo $b; }"',
    ],
)
def test_redefining_or_unsetting_gives_back(sess: Session, redefine: str) -> None:
    sess.exec("x=1")
    base = held(sess)
    sess.exec(BODY + redefine + "; unset b")
    assert held(sess) - base <= 1_000_000  # one definition's worth, not thirty


def test_unset_function_returns_to_where_it_was(sess: Session) -> None:
    sess.exec("x=1")
    base = held(sess)
    sess.exec(BODY + 'eval "g(){ echo $b; }"; unset b; unset -f g')
    assert held(sess) == base


def test_a_subshell_does_not_give_back_what_its_parent_holds(sess: Session) -> None:
    sess.exec(BODY + 'eval "g(){ echo $b; }"; unset b')
    before = held(sess)
    r = sess.exec("(unset -f g; g(){ :; }; unset -f g); type -t g")
    assert r.stdout == "function\n"
    assert held(sess) == before


def test_functions_count_towards_max_memory() -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(
            BODY + 'for i in {1..100}; do eval "g$i(){ echo $b$i; }"; done',
            limits={"max_memory": 32 * MB, "max_expansion_bytes": 1 << 40},
        )
    assert e.value.limit == "max_memory"


def test_functions_count_towards_max_session_memory() -> None:
    sess = Bash().session()
    with pytest.raises(ExecutionLimitError) as e:
        sess.exec(
            BODY + 'for i in {1..20}; do eval "g$i(){ echo $b$i; }"; done; echo defined',
            limits={"max_session_memory": 8 * MB, "max_expansion_bytes": 1 << 40},
        )
    assert e.value.limit == "max_session_memory"
    assert e.value.result.stdout == "defined\n"


def test_a_child_shell_charges_the_run() -> None:
    # `bash -c` starts a shell with a fresh state: its variables count towards the run's budget too
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(
            "export x=$(printf '%1000000s'); bash -c 'for i in {1..100}; do a[i]=$x$i; done'",
            limits={"max_memory": 32 * MB, "max_expansion_bytes": 1 << 40},
        )
    assert e.value.limit == "max_memory"


@pytest.mark.parametrize(
    "text, low, high",
    [
        ("f(){ :; }", 512, 2_000),
        ("f(){ echo " + "a" * 100_000 + "; }", 300_000, 320_000),  # a literal: ~3 bytes a character
        ("f(){ " + ":;" * 10_000 + " }", 3_000_000, 3_500_000),  # dense code: ~155 bytes a character
    ],
)
def test_source_size_bounds_the_tree(text: str, low: int, high: int) -> None:
    assert low <= source_size(text) <= high


# ------------------------------------------------------------ streams and pipes


def test_pipe_charges_a_large_write_while_the_writer_waits() -> None:
    budget = Budget(Limits())
    pipe = Pipe(budget=budget)
    data = b"x" * (1 << 20)
    writer = threading.Thread(target=pipe.put, args=(data,))
    writer.start()
    deadline = time.monotonic() + 10
    while budget.memory < len(data) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert budget.memory >= len(data)  # the writer is blocked holding all of it
    got = b""
    while len(got) < len(data):
        got += pipe.get(1 << 16)
    writer.join(10)
    assert got == data
    pipe.close_read()
    assert budget.memory == 0


def test_a_here_string_is_charged_while_its_stream_lives() -> None:
    budget = Budget(Limits())
    stream = BytesReader(b"y" * 100_000, budget)
    assert budget.memory == 100_000
    del stream
    assert budget.memory == 0
    with pytest.raises(LimitExceeded):
        BytesReader(b"z" * 100_000, Budget(Limits(max_memory=50_000)))


@pytest.mark.parametrize(
    "script",
    [
        'exec 3<<<"$x$x$x"',
        'exec {fd}<<<"$x$x$x"',
        "exec 3<<EOF\n$x$x$x\nEOF",
    ],
)
def test_here_documents_kept_on_fds_count_towards_max_memory(script: str) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec("x=$(printf '%300000s'); " + script, limits={"max_memory": 1 * MB})
    assert e.value.limit == "max_memory"


def test_a_command_holding_large_words_counts_them_while_it_runs() -> None:
    # 3 MB of arguments to a command that blocks on a full pipe: over a 2 MB budget
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(
            'x=$(printf \'%1000000s\'); { : "$x" "$x" "$x"; sleep 1; } | cat', limits={"max_memory": 2 * MB}
        )
    assert e.value.limit == "max_memory"


# ------------------------------------------------------------ what slips past the charged seams


def _raiser(exc: type[BaseException]) -> Any:
    def run(args: list[str], ctx: Ctx) -> int:
        raise exc("from a command")

    return run


@pytest.mark.parametrize(
    "where",
    ["{cmd}", "{cmd} | cat", "echo x | {cmd}", "({cmd})", "y=$({cmd})", "f(){ {cmd}; }; f", "{cmd} & wait"],
)
def test_a_memory_error_is_the_memory_limit(where: str) -> None:
    oom = command("test-oom")(_raiser(MemoryError))
    with pytest.raises(ExecutionLimitError) as e:
        Bash(commands=[oom]).exec("echo before; " + where.replace("{cmd}", "test-oom") + "; echo after")
    assert e.value.limit == "max_memory"
    out = e.value.result.stdout
    # the output so far, and nothing after (a background job's limit ends the run once the main
    # thread checks: after the job, here at the end of the script)
    assert out == "before\n" or ("&" in where and out == "before\nafter\n"), out


@pytest.mark.parametrize("exc", [RecursionError, OverflowError])
def test_recursion_and_overflow_errors_stay_inside_the_run(exc: type[BaseException]) -> None:
    raiser = command("test-raise")(_raiser(exc))
    r = Bash(commands=[raiser]).exec("test-raise; echo status $?")
    assert r.stdout == "status 1\n"
    assert "test-raise: internal error" in r.stderr and "Traceback" not in r.stderr


def test_a_release_while_the_lock_is_held_is_queued_not_a_deadlock() -> None:
    """The collector can run a finalizer (a dropped Scope, a ByteStream) that releases memory on a
    thread that holds the budget's lock inside charge_memory: a CI run on Python 3.13 with coverage
    hung there for good. Such a release must return at once and count at the next charge."""
    budget = Budget(Limits(max_memory=1000))
    budget.charge_memory(600)
    done = threading.Event()

    def finalizer_inside_the_lock() -> None:
        with budget._mem_lock:  # as if the collector ran while charge_memory held it
            budget.release_memory(500)
        done.set()

    worker = threading.Thread(target=finalizer_inside_the_lock, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert done.is_set(), "release_memory blocked on a lock its own thread holds"
    assert budget.memory == 600  # queued, not yet applied
    budget.charge_memory(800)  # fits only once the queued release counts: 600 - 500 + 800
    assert budget.memory == 900
    budget.release_memory(900)
    assert budget.memory == 0


@pytest.mark.parametrize(
    "loop",
    [
        "((x = -9223372036854775807 - 1)); x=a",  # 20 characters stored by arithmetic, 1 by text
        "((x = i)); x=a",
        "((x++)); x=a",
        "((x = 1)); x=é",  # a wide value replaced by a number
        "x=$((i * 1000)); ((x = 1))",
        "let x=i*100000; x=a",
        # a text assignment after a shorter or longer number (test_increments_that_change_the_length_
        # are_charged has the loop counters): 10 -> 9 by --, 999 -> 1000 by +=
        "x=10; ((x--))",
        "x=999; (( x += 1 ))",
    ],
)
def test_arithmetic_stores_keep_the_account_exact(sess: Session, loop: str) -> None:
    # 600 steps: the expression runs as closures, then as its generated function (HOT_CALLS).
    # Before, a store by arithmetic charged nothing: the text assignment after it gave back
    # bytes never charged, so held() drifted down step by step (a way past max_memory)
    sess.exec("y=1")
    base = held(sess)
    sess.exec(f"x=a; for ((i=0; i<600; i++)); do {loop}; done")
    sess.exec("unset x i")
    assert abs(held(sess) - base) <= 8


def test_an_arithmetic_store_gives_back_the_text_it_replaces(sess: Session) -> None:
    sess.exec("y=1")
    base = held(sess)
    sess.exec("x=$(printf '%100000s' '')")
    assert held(sess) - base >= 100_000
    sess.exec("((x = 1))")
    assert held(sess) - base < 1_000


@pytest.mark.parametrize(
    "loop",
    [
        "for ((i=0; i<1100; i++)); do x=1; done",
        "i=0; while ((i < 1100)); do ((i++)); done",
        "i=0; while ((i < 1100)); do ((++i)); done",
        "i=0; while ((i < 1100)); do x=$((i++)); done",
        "i=0; while ((i < 1100)); do let i++; done",
        "i=1100; while ((i > -1100)); do : $((i--)); done",
        "i=9223372036854775000; while ((i > 0)); do ((i++)); done",  # (the wrap to negative)
    ],
)
def test_increments_that_change_the_length_are_charged(sess: Session, loop: str) -> None:
    # each step past HOT_CALLS is the generated function's `i++`: 999 -> 1000 grows the text by a
    # character; uncharged, unset gave back a byte more than was charged at each such step
    sess.exec("y=1; unset i x")
    base = held(sess)
    for _ in range(3):
        sess.exec(loop)
        sess.exec("unset i x")
        assert held(sess) == base


@pytest.mark.parametrize(
    "loop",
    [
        # the compiled read storing a plain indexed array at once (push_values): lines of 0-4
        # fields, wide and narrow, in a global, an exported and a function's local array
        "f=(); while IFS=, read -r -a f; do :; done < /tmp/rows",
        "declare -ax f=(x); while read -ra f; do :; done < /tmp/rows",
        "g() { local -a f=(1 2 3 4 5); while IFS=, read -a f; do :; done < /tmp/rows; }; g",
        'f=(); while read -r l; do IFS=, read -ra f <<< "$l"; done < /tmp/rows',
        # the compiled read storing names (Variables.store_fields, its charge inline): names that
        # exist and that do not, REPLY, a binding pushed for a reference or an integer from the
        # second name on, a function's locals
        "a=; b=x; while IFS=, read -r a b c; do :; done < /tmp/rows",
        "while read -r a b; do :; done < /tmp/rows; while read; do :; done < /tmp/rows",
        "declare -n r=b; while IFS=, read -r a r c; do :; done < /tmp/rows; unset -n r",
        "declare -i c; while IFS=, read -r a b c; do :; done < <(printf '1,2,3\\n,,4+4\\n')",
        'while read -r l; do IFS=, read -r a b c <<< "$l"; done < /tmp/rows',
        "g() { local a b=1; while IFS=, read -r a b c; do :; done < /tmp/rows; }; g",
    ],
)
def test_read_keeps_the_account_exact(sess: Session, loop: str) -> None:
    sess.exec("printf '%s\\n' a,b,c '' é,x,yy a,,b,c,dddd 'z ' > /tmp/rows; y=1; unset a b c f REPLY")
    base = held(sess)
    for _ in range(3):
        sess.exec(loop)
        sess.exec("unset a b c f l REPLY; unset -f g")
        assert held(sess) == base


@pytest.mark.parametrize(
    "loop",
    [
        # the compiled `a+=(...)` of an indexed array without attributes (arrayassign's appender):
        # literal, quoted, split and several words, wide text, sparse, exported, a function's local
        "a=(); for ((i=0; i<300; i++)); do a+=(x); done",
        'a=(); v=é; for ((i=0; i<300; i++)); do a+=("$v$i"); done',
        "a=(); v='p q  r'; for ((i=0; i<300; i++)); do a+=($v lit \"$i\"); done",
        "a=([7]=s); for ((i=0; i<300; i++)); do a+=(n$i); a+=(); done",
        "declare -ax a=(x); for ((i=0; i<300; i++)); do a+=($i); done",
        "g() { local -a a=(1); local i; for ((i=0; i<300; i++)); do a+=(é$i); done; }; g",
        # the general way it falls back to: a new array, a scalar, -u, a changed array
        "for ((i=0; i<300; i++)); do a+=(y); done",
        "a=s; for ((i=0; i<300; i++)); do a+=(y); done",
        "declare -u a; for ((i=0; i<300; i++)); do a+=(y); done",
        "a=(); for ((i=0; i<300; i++)); do a+=($((a[i*2]=i))); done",
        # element stores whose subscript is one parameter (Variables.element_setter)
        "a=(); for ((i=0; i<300; i++)); do a[${#a[@]}]=é$i; done",
        'a=(); for ((i=0; i<300; i++)); do a[$i]=x; a[$i]+="$i"; done',
        "a=([500]=z); for ((i=0; i<300; i++)); do a[${#a[*]}]=x$i; done",
    ],
)
def test_array_stores_keep_the_account_exact(sess: Session, loop: str) -> None:
    sess.exec("y=1; unset a i v")
    base = held(sess)
    for _ in range(3):
        sess.exec(loop)
        if not loop.startswith("g()"):  # (a function's local array is given back as it returns)
            assert held(sess) - base >= 300 * ELEMENT_OVERHEAD  # (every element charged its overhead)
        sess.exec("unset a i v; unset -f g")
        assert held(sess) == base


def test_the_execution_string_is_charged_and_given_back(sess: Session) -> None:
    # BASH_EXECUTION_STRING holds each run's text: charged when set, its bytes given back when
    # the next run replaces it; an unset gives back only what was charged (the account of the
    # other variables stays whole)
    acct = sess.shell.state.vars
    sess.exec("x=1")
    base = acct.held()
    sess.exec("#" + "a" * 300_000 + "\n:")
    assert 300_000 <= acct.held() - base <= 301_000
    sess.exec(":")
    assert acct.held() - base < 1000
    sess.exec("unset BASH_EXECUTION_STRING")
    assert 0 < acct.held() <= base
    assert sess.exec('echo "$x"').stdout == "1\n"


@pytest.mark.parametrize(
    ("limits", "limit"),
    [
        # under max_input_size, over max_memory: charged as it is set, the run ends on max_memory
        (Limits(max_memory=MB, max_input_size=4 * MB), "max_memory"),
        # over max_input_size (1 MB by default) too: that limit, tested first, as before
        (Limits(max_memory=MB), "max_input_size"),
    ],
)
def test_an_execution_string_over_a_limit_ends_on_it(limits: Limits, limit: str) -> None:
    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=limits).exec("#" + "a" * (2 * MB) + "\necho ran")
    assert info.value.limit == limit
    assert "ran" not in info.value.result.stdout


def _funcdefs(n: int, size: int) -> dict[str, Any]:
    from sandbash.syntax import ast as A

    return {f"f{i}": A.FuncDef(f"f{i}", A.CommandList([]), text="x" * size) for i in range(n)}


def _consistent(table: Any) -> None:
    assert sorted(table.charged) == sorted(table), "an entry charged and gone, or stored uncharged"
    assert table.acct.held == sum(table.charged.values())


# every way dict has of storing or dropping an entry, done to a FunctionTable
FUNCTION_TABLE_WAYS = {
    "update": lambda t, d: t.update(d),
    "update-kw": lambda t, d: t.update(**d),
    "update-pairs": lambda t, d: t.update(list(d.items())),
    "ior": lambda t, d: t.__ior__(d),
    "setdefault": lambda t, d: [t.setdefault(k, v) for k, v in d.items()],
    "setitem": lambda t, d: [t.__setitem__(k, v) for k, v in d.items()],
}
FUNCTION_TABLE_DROPS = {
    "clear": lambda t: t.clear(),
    "popitem": lambda t: [t.popitem() for _ in range(len(t))],
    "pop": lambda t: [t.pop(k) for k in list(t)],
    "delitem": lambda t: [t.__delitem__(k) for k in list(t)],
}


@pytest.mark.parametrize("way", sorted(FUNCTION_TABLE_WAYS))
@pytest.mark.parametrize("drop", sorted(FUNCTION_TABLE_DROPS))
def test_function_table_charges_every_way_in_and_out(way: str, drop: str) -> None:
    from sandbash.shvars.vars import FunctionTable, MemAccount

    acct = MemAccount(Budget(Limits(max_memory=64 * MB)))
    table = FunctionTable(acct)
    FUNCTION_TABLE_WAYS[way](table, _funcdefs(5, 1000))
    _consistent(table)
    assert acct.held >= 5 * 1000
    FUNCTION_TABLE_WAYS[way](table, _funcdefs(3, 2000))  # replacing three: the difference
    _consistent(table)
    FUNCTION_TABLE_DROPS[drop](table)
    _consistent(table)
    assert not table and acct.held == 0
    # past the budget: refused, as a definition is
    with pytest.raises(LimitExceeded):
        FUNCTION_TABLE_WAYS[way](table, _funcdefs(40, 1 * MB))
    _consistent(table)
