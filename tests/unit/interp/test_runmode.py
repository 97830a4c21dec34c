"""The RunMode flag (runmode.py): `plain` is True exactly while nothing changes how commands run,
whatever changed it and on whichever thread."""

from __future__ import annotations

import threading

import pytest

from sandbash import Bash
from sandbash.api import Session
from sandbash.audit import Audit, ListSink
from sandbash.interp.jobs import own_pid, take_pending
from sandbash.interp.runmode import Options, RunMode, Traps, _Told
from sandbash.interp.shell import Shell
from sandbash.limits import Limits
from sandbash.stdio.streams import BufferWriter


def new_shell() -> Shell:
    sh, _ = Bash()._new_shell(Limits(), None, {}, "/home/user", b"", BufferWriter(), BufferWriter(), "c")
    return sh


# every method of dict that changes it
MUTATORS = {"__setitem__", "__delitem__", "__ior__", "update", "pop", "popitem", "setdefault", "clear"}


# and every other name of dict, which only reads
READERS = {
    "__class__", "__class_getitem__", "__contains__", "__delattr__", "__dir__", "__doc__", "__eq__",
    "__format__", "__ge__", "__getattribute__", "__getitem__", "__getstate__", "__gt__", "__hash__",
    "__init__", "__init_subclass__", "__iter__", "__le__", "__len__", "__lt__", "__ne__", "__new__",
    "__or__", "__reduce__", "__reduce_ex__", "__repr__", "__reversed__", "__ror__", "__setattr__",
    "__sizeof__", "__str__", "__subclasshook__", "copy", "fromkeys", "get", "items", "keys", "values",
}  # fmt: skip


def test_every_mutator_of_dict_is_wrapped() -> None:
    assert set(dir(dict)) - READERS == MUTATORS  # (a new Python's new mutator shows here)
    assert set(_Told.__dict__) >= MUTATORS


# (what turns the reason on, what turns it off): each through one mutator
OPTION_CHANGES = [
    (lambda o: o.__setitem__("xtrace", True), lambda o: o.__setitem__("xtrace", False)),
    (lambda o: o.update(noexec=True), lambda o: o.update({"noexec": False})),
    (lambda o: o.__ior__({"keyword": True}), lambda o: o.pop("keyword")),
    (lambda o: o.setdefault("keyword", True), lambda o: o.__delitem__("keyword")),
    (lambda o: o.update(xtrace=True), lambda o: o.clear()),
    (lambda o: o.update(xtrace=True), lambda o: (o.clear(), o.update(a=True), o.popitem())),
]


@pytest.mark.parametrize(("on", "off"), OPTION_CHANGES)
def test_options_tell_their_mode(on: object, off: object) -> None:
    mode = RunMode()
    opts = Options(mode, {"xtrace": False, "noexec": False, "errexit": False})
    assert mode.plain
    on(opts)  # type: ignore[operator]
    assert not mode.plain and mode.opts
    off(opts)  # type: ignore[operator]
    assert mode.plain and not mode.opts
    opts["errexit"] = True  # (not one that changes how commands run)
    assert mode.plain


TRAP_CHANGES = [
    (lambda t: t.__setitem__("DEBUG", "echo"), lambda t: t.pop("DEBUG")),
    (lambda t: t.update(DEBUG="x"), lambda t: t.__delitem__("DEBUG")),
    (lambda t: t.setdefault("DEBUG", "x"), lambda t: t.popitem()),
    (lambda t: t.__ior__({"DEBUG": "y"}), lambda t: t.clear()),
]


@pytest.mark.parametrize(("on", "off"), TRAP_CHANGES)
def test_traps_tell_their_mode(on: object, off: object) -> None:
    mode = RunMode()
    traps = Traps(mode)
    on(traps)  # type: ignore[operator]
    assert not mode.plain and not mode.untraced and mode.debug and mode.traps
    off(traps)  # type: ignore[operator]
    assert mode.plain and mode.untraced and not mode.debug and not mode.traps


@pytest.mark.parametrize(
    ("trap", "handler"), [("EXIT", "echo bye"), ("ERR", "x"), ("RETURN", "y"), ("INT", "")]
)
def test_a_trap_but_debug_leaves_commands_plain_but_traced(trap: str, handler: str) -> None:
    mode = RunMode()
    traps = Traps(mode, {trap: handler})
    assert mode.plain and not mode.untraced  # (each step's $BASH_COMMAND is set for the trap to read)
    traps["DEBUG"] = ""  # (an ignored DEBUG trap runs nothing)
    assert mode.plain
    traps["DEBUG"] = ":"
    assert not mode.plain
    del traps["DEBUG"], traps[trap]
    assert mode.plain and mode.untraced


def test_one_reason_going_leaves_the_others() -> None:
    mode = RunMode(gates=True)
    opts = Options(mode, {"xtrace": True})
    assert not mode.plain
    opts["xtrace"] = False
    assert not mode.plain  # (the gates)
    mode.set_gates(False)
    assert mode.plain
    mode.set_args(True)
    assert not mode.plain and mode.beyond_gates()


class _Racing(RunMode):
    """A RunMode whose `signal` is marked by another thread just after settle() read it (and before
    settle writes `plain`): the interleaving a stale True would come from."""

    __slots__ = ("_signal", "racing")

    def __init__(self) -> None:
        self._signal = False
        self.racing = False
        super().__init__()

    @property  # type: ignore[override]
    def signal(self) -> bool:
        value = self._signal
        if self.racing:
            self.racing = False
            self.mark()  # (the other thread, right after this read)
        return value

    @signal.setter
    def signal(self, on: bool) -> None:
        self._signal = on


def test_a_mark_between_settles_read_and_its_write_is_kept() -> None:
    mode = _Racing()
    opts = Options(mode, {"xtrace": True})
    mode.racing = True
    opts["xtrace"] = False  # (settle: reads signal False, is marked, writes plain)
    assert mode.signal and not mode.plain


def test_each_state_has_its_own_mode_and_a_fork_starts_from_its_parents_gates() -> None:
    sh = new_shell()
    st = sh.state
    st.run_mode.set_gates(True)
    st.opts["xtrace"] = True
    child = st.fork(lazy=True)
    assert child.run_mode is not st.run_mode
    assert child.run_mode.gates and child.run_mode.opts  # (it inherits set -x)
    assert child.opts.mode is child.run_mode and child.traps.mode is child.run_mode
    child.opts["xtrace"] = False
    assert st.opts["xtrace"] and st.run_mode.opts  # (the parent's own)


def test_pending_args_hold_until_the_first_command_takes_them() -> None:
    sh = new_shell()
    mode = sh.state.run_mode
    sh.pending_args = ["a"]
    assert not mode.plain and mode.args
    sh.twin()  # (a shell over the same state: leaves them)
    assert not mode.plain
    sh.run_toplevel("set --")
    assert sh.pending_args is None and mode.plain


@pytest.mark.parametrize("audit", [False, True])
def test_the_runs_gates_are_told_as_each_run_starts(audit: bool) -> None:
    session = Session(Bash(audit=Audit([ListSink()])) if audit else Bash())
    mode = session.shell.state.run_mode
    assert session.exec("x=1; echo $x").stdout == "1\n"
    assert mode.gates is audit and mode.plain is not audit
    assert not mode.beyond_gates()  # (what else would stop a command's fast path is off)


def test_a_signal_from_another_thread_marks_only_its_target() -> None:
    sh = new_shell()
    other = sh.fork()
    mode, other_mode = sh.state.run_mode, other.state.run_mode
    pid = own_pid(sh)
    assert own_pid(other) != pid
    sender = threading.Thread(target=sh.rt.send_signal, args=(pid, "USR1", 10))
    sender.start()
    sender.join()
    assert not mode.plain and mode.signal
    assert other_mode.plain  # (a signal to another shell is none of its business)
    assert take_pending(sh) == [("USR1", 10)]
    assert mode.plain and not mode.signal


def test_a_shell_made_after_a_signal_was_queued_for_its_pid_is_marked() -> None:
    sh = new_shell()
    sh.rt.send_signal(own_pid(sh), "USR2", 12)
    assert not sh.state.run_mode.plain
    twin = sh.twin()  # (watch: the state's pid has a signal waiting)
    assert not twin.state.run_mode.plain
    take_pending(sh)
    assert sh.state.run_mode.plain


@pytest.mark.parametrize(
    "loop",
    [
        'while [ -z "$stop" ]; do :; done',
        "while (( ! stop )); do n=$((n + 1)); done",
        "f() { local v=$1; r=$v; }; while [[ -z $stop ]]; do f x; done",
        "until let stop; do true; done",
    ],
)
def test_a_compiled_loop_sees_a_signal_a_job_sends_it(loop: str) -> None:
    # the job's `kill` runs on another thread while the loop runs compiled: the trap must run at
    # one of its next commands, which ends the loop (else the run's timeout would)
    script = f"trap 'stop=1' USR1; stop=; n=0; (kill -USR1 $$) & {loop}; wait; echo caught"
    result = Bash(limits=Limits(timeout=20)).exec(script)
    assert (result.stdout, result.exit_code) == ("caught\n", 0)
