"""The conditions that send a compiled closure back to the general path, kind by kind.

Each compiled closure (interp/compiler.py: simple, assignment, scalar, element, return_cmd,
local_cmd, arith_cmd, cond_cmd, case_cmd; interp/fastbuiltins.py: plain_builtin, the `let` and
`test`/`[` closures; interp/arrayassign.py: append_words, and through assignment) tests at every run whether
something changes how a command runs: set -n/-k/-x, traps, a signal from another shell of the
run, gates (a policy, an audit), exec(args=...). The tests are inlined copies that differ on
purpose (an assignment has no words for set -k or exec(args=...) to act on; `(( ))` and `[[ ]]`
never take the general path for a signal, as the walker's handlers do not), so nothing
but a run shows that one copy still has what it needs. Here each kind runs in a loop where each
condition is turned on after its first iteration (or is on from the start: gates, exec(args=...)),
compiled and walked (SANDBASH_TREE_WALKER's switch), and the two runs must be the same: output,
status and audit events. Each kind's words carry what makes a skipped test visible: a word that
looks like an assignment (set -k), a substitution that writes to stderr (a signal that should
have ended the shell first, set -n, a policy that should have refused the command before its
words were expanded), the command's name in the policy's deny list.

Mutation-checked (each condition dropped from each copy in turn, 55 mutants): every one fails a
case here but exec(args=...) in return_cmd and local_cmd, which no run can tell: a function's body
runs only after a call, and the call took the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from sandbash import Bash, Policy
from sandbash.audit import Audit
from sandbash.interp import compiler
from sandbash.interp import evaluator as evaluator_module

# what a word's expansion leaves on stderr as it runs: seen when a closure expands words it should
# not (the shell had to die of a signal first, a command the policy refuses); under set -n (NX set
# with it) a substitution runs nothing, but an arithmetic error is the shell's own message
SEEN = "$(printf 'w%s\\n' $i >&2)${NX:+$((1/0))}"

# kind: (definitions before the loop (no command with words: exec(args=...) is for the loop's first
# one), the command in the loop (i = 1, 2, 3), names the policy denies, the closure expected)
KINDS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "simple-command": ("", f"printenv k k=$i{SEEN}", ("printenv",), "simple"),
    "simple-function": ('f() { echo "f:$*"; }', f"f $i k=$i{SEEN}", ("echo",), "simple"),
    "plain-builtin": ("", f"echo b$i k=$i{SEEN}", ("echo",), "builtin_cmd"),
    "plain-builtin-redirected": ("", f"echo r$i k=$i{SEEN} >&2", ("echo",), "builtin_cmd"),
    "let-literal": ("n=0", "let 'n += 6/(2-i)' n+=1", ("let",), "let_cmd"),
    "let-words": ("n=0", f"let n+=i k=$i{SEEN}", ("let",), "let_words"),
    "test-operand": ("", f'[ "$i{SEEN}" -lt 3 ]', ("[",), "operand_cmd"),
    "test-words": ("", f"test $i{SEEN} = k=$i", ("test",), "builtin_cmd"),
    "scalar": ("", f"x=$i{SEEN}", (), "scalar"),
    "element": ("", f"a[$i]=v$i{SEEN}", (), "element"),
    "assignments": ("", f"p=$i q=$((i * 2)){SEEN}", (), "assignment"),
    "array-words": ("", f"a=(x$i {SEEN}y)", (), "assignment"),
    "array-append": ("a=()", f"a+=(x$i {SEEN}y)", (), "append_words"),
    "arith": ("n=0", "(( n += 6/(2-i) ))", (), "arith_cmd"),
    "cond": ("", f"[[ $i{SEEN} == 2 ]]", (), "cond_cmd"),
    "case": ("", f"case $i{SEEN} in 2) x=two;; *) x=other;; esac", (), "case_cmd"),
    # function bodies compile on their second run (the loop's second iteration), where the
    # condition is turned on inside the body ({on}), just before the closure runs
    "local": (f'g() {{ {{on}} local v=$1{SEEN} w; echo "g:$v"; }}', "g $i", ("echo",), "local_many"),
    "return": (f"h() {{ {{on}} return $(( $1 + 3 )){SEEN}; }}", 'h $i; echo "h:$?"', ("echo",), "return_cmd"),
    # (an argument bash reads as a number unless set -k moves it to the environment)
    "return-keyword": ("h() { {on} return k=$1; }", 'h $i; echo "h:$?"', ("echo",), "return_cmd"),
}

# condition: what turns it on after the loop's first iteration ("": on from the start, by the run)
TURN_ON = {
    "xtrace": "set -x",
    "keyword": "set -k",
    "noexec": "NX=1; set -n",
    "debug-trap": "trap 'echo \"D:$BASH_COMMAND\" >&2' DEBUG",
    "debug-trap-functrace": "set -T; trap 'echo \"D:$BASH_COMMAND\" >&2' DEBUG",
    "err-trap": "set -E; trap 'echo \"E:$?\" >&2' ERR",
    "return-trap": "set -T; trap 'echo \"R:$?\" >&2' RETURN",
    "exit-trap": "trap 'echo \"X:$?\" >&2' EXIT",
    "signal-trap": "trap 'echo \"S:$i\" >&2' USR1; ( kill -USR1 $$ )",
    "signal": "( kill -TERM $$ )",  # (no trap: only the run's pending signal)
    "policy": "",
    "audit": "",
    "exec-args": "",
}


def _script(kind: str, condition: str) -> str:
    setup, cmd, _deny, _closure = KINDS[kind]
    on = TURN_ON[condition]
    if "{on}" in setup:
        setup = setup.replace("{on}", f"(( $1 == 2 )) && {{ {on}; }};" if on else "")
        body = cmd
    else:
        body = f"{cmd}; (( i == 1 )) && {{ {on}; }}" if on else cmd
    # (what the kind left, printed by a command of its own)
    return f'{setup}\nfor i in 1 2 3; do {body}; done 2>&1\necho "end $? n=$n x=$x p=$p q=$q a=${{a[*]}}"\n'


def _run(script: str, walker: bool, condition: str, deny: tuple[str, ...]) -> tuple[Any, ...]:
    saved = evaluator_module.TREE_WALKER
    evaluator_module.TREE_WALKER = walker
    try:
        if condition == "policy":
            bash = Bash(policy=Policy(deny=deny or ("rm",)))
        elif condition == "audit":
            bash = Bash(audit=Audit())
        else:
            bash = Bash()
        args = ["A1", "k=A2"] if condition == "exec-args" else None
        r = bash.exec(script, args=args)
    finally:
        evaluator_module.TREE_WALKER = saved
    events = [{k: v for k, v in e.items() if k not in ("time", "duration", "run_id")} for e in r.events]
    return r.stdout, r.stderr, r.exit_code, events


@pytest.mark.parametrize("condition", sorted(TURN_ON))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_compiled_closure_gives_up_as_the_walker_runs(kind: str, condition: str) -> None:
    script = _script(kind, condition)
    deny = KINDS[kind][2]
    walked = _run(script, True, condition, deny)
    assert _run(script, False, condition, deny) == walked, script


def _closure_names(code: object, depth: int = 0) -> set[str]:
    """The names of the functions a compiled code holds (closures inside closures)."""
    names: set[str] = set()
    if depth > 6:
        return names
    name = getattr(code, "__name__", None)
    if name is not None:
        names.add(name)
    for cell in getattr(code, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # (a cell not yet filled)
            continue
        if callable(value) and getattr(value, "__code__", None) is not None:
            names |= _closure_names(value, depth + 1)
        elif type(value) is tuple:
            for item in value:
                for part in item if type(item) is tuple else (item,):
                    if callable(part) and getattr(part, "__code__", None) is not None:
                        names |= _closure_names(part, depth + 1)
    return names


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_runs_the_closure_it_stands_for(
    kind: str, compilers: list[compiler.Compiler], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table means what it says: run without a condition, each kind's command is compiled into
    the closure named (else the matrix above would compare the walker with itself)."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    setup, cmd, _deny, closure = KINDS[kind]
    setup = setup.replace("{on}", "")
    Bash().exec(f"{setup}\nfor i in 1 2 3; do {cmd}; done 2>/dev/null")
    names: set[str] = set()
    for shell_compiler in compilers:
        for _node, code in shell_compiler.codes.values():
            names |= _closure_names(code)
    assert closure in names, sorted(names)
