"""Whether a shell runs its commands plainly: the one flag a compiled command tests first.

A compiled command (compiler.py, fastbuiltins.py) takes its fast path only while nothing changes how
commands run: `set -n`, `set -k` or `set -x`, a DEBUG trap, a signal another shell of the run (or this
one) sent this shell and it has not acted on yet, gates to consult (a policy, the embedder's
command gate, an audit), or the API's `args` not yet given to a command. `RunMode.plain` is True
exactly while none of these holds, so a command tests one attribute instead of seven conditions
(about 60 bytecode steps, ~9% of a small function call). Each reason is told to the shell's
RunMode at the one place that changes it:

- the options and the trap table are an `Options` and a `Traps`: dicts whose every mutator tells the
  RunMode (ShellState.opts and .traps are typed so: assigning a plain dict is a type error);
- `Shell.pending_args` is a property that tells it;
- the gates are the run's (`Runtime.gates`): Shell._setup tells a new shell's, Runtime.bind_run
  (as each run starts) every shell of the run's;
- a signal is queued by any shell of the run, on any thread: `Runtime.send_signal` marks the
  target's RunMode while it holds the run's lock, and `jobs.take_pending` clears the mark under the
  same lock as the shell takes its signals.

Only the shell's own thread changes the first four; another thread only ever marks a signal (mark),
after which `plain` is False until the shell takes it: settle() tests the mark again after it wrote
`plain`, so a mark that came in between is never overwritten by a stale True."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeVar

    V = TypeVar("V")


class RunMode:
    """One shell state's reasons for running a command the general way, and `plain` (none), and
    `untraced`: plain, and no trap at all (the walker's loops skip the trace and the DEBUG trap's
    bookkeeping of each step, which sets $BASH_COMMAND for any trap to read)."""

    __slots__ = ("plain", "untraced", "opts", "debug", "traps", "args", "gates", "signal", "local_why")

    def __init__(self, gates: bool = False) -> None:
        self.opts = False  # set -n, -k or -x (Options)
        self.debug = False  # a DEBUG trap (Traps)
        self.traps = False  # any trap, an ignored signal too (Traps)
        self.args = False  # the API's args wait for the first command (Shell.pending_args)
        self.gates = gates  # the run has gates (Runtime.gates is not None)
        self.signal = False  # a signal was queued for this shell (mark; cleared by take_pending)
        self.plain = self.untraced = not gates
        # why `local` takes the builtin's general way (LOCAL_*: 0, none; steps._declared tests it
        # once for the four)
        self.local_why = 0

    def local_reason(self, reason: int, on: bool) -> None:
        """One of LOCAL_*'s reasons holds now (`on`) or no longer."""
        self.local_why = self.local_why | reason if on else self.local_why & ~reason

    def settle(self) -> None:
        """`plain` and `untraced` again from the reasons, after the shell's own thread changed one."""
        plain = not (self.opts or self.debug or self.args or self.gates or self.signal)
        self.plain = plain
        self.untraced = plain and not self.traps
        if plain and self.signal:  # (marked by another thread since the line above read it)
            self.plain = self.untraced = False

    def beyond_gates(self) -> bool:
        """Whether a reason other than the gates holds (a compiled call asks the gates itself
        while they hold no policy: Compiler.simple)."""
        return bool(self.opts or self.debug or self.args or self.signal)

    def mark(self) -> None:
        """A signal was queued for this shell (any thread, with the run's lock held)."""
        self.signal = True
        self.plain = self.untraced = False

    def set_gates(self, on: bool) -> None:
        if self.gates is not on:
            self.gates = on
            self.settle()

    def set_args(self, on: bool) -> None:
        if self.args is not on:
            self.args = on
            self.settle()


# the options that change how a command runs: `set -n` (nothing runs), `set -k` (assignment words
# anywhere), `set -x` (the trace)
_RUN_OPTIONS = ("noexec", "keyword", "xtrace")

# RunMode.local_why's reasons for `local NAME=WORD` to take the builtin's general way rather than
# its plain path (steps._declared): `set -a` (the local is exported), `shopt -s localvar_inherit`
# (the hidden variable's value and attributes), a function named `local` (it runs instead), `enable
# -n local` (no such builtin). Told by the options, the shell options, the function table
# (FunctionTable.told) and the disabled builtins, each at every change
LOCAL_ALLEXPORT = 1
LOCAL_INHERIT = 2
LOCAL_FUNCTION = 4
LOCAL_DISABLED = 8


def _telling(method: Callable[..., object]) -> Callable[..., object]:
    """dict's `method`, then the RunMode told (_Told._changed)."""

    def told(self: _Told[object], *args: object, **kwargs: object) -> object:
        value = method(self, *args, **kwargs)
        self._changed()
        return value

    return told


class _Told(dict[str, "V"]):
    """A dict that tells its shell's RunMode after every change (_changed); reads are a dict's
    own. Every mutator of dict is wrapped: a change cannot pass unseen."""

    __slots__ = ("mode",)

    def __init__(self, mode: RunMode, items: Iterable[tuple[str, V]] | dict[str, V] = ()) -> None:
        dict.__init__(self, items)
        self.mode = mode
        self._changed()

    def _changed(self) -> None:
        raise NotImplementedError

    if not TYPE_CHECKING:  # (the type checker sees dict's own signatures)
        __setitem__ = _telling(dict.__setitem__)
        __delitem__ = _telling(dict.__delitem__)
        __ior__ = _telling(dict.__ior__)
        update = _telling(dict.update)
        pop = _telling(dict.pop)
        popitem = _telling(dict.popitem)
        setdefault = _telling(dict.setdefault)
        clear = _telling(dict.clear)


class Options(_Told[bool]):
    """A shell's `set -o` options: whether one of _RUN_OPTIONS is on goes to its RunMode."""

    __slots__ = ()

    def _changed(self) -> None:
        get = self.get
        on = bool(get("noexec") or get("keyword") or get("xtrace"))
        mode = self.mode
        if mode.opts is not on:
            mode.opts = on
            mode.settle()
        mode.local_reason(LOCAL_ALLEXPORT, bool(get("allexport")))

    def __setitem__(self, key: str, value: bool) -> None:
        dict.__setitem__(self, key, value)
        if key in _RUN_OPTIONS:  # (`set -e` and the like: nothing to tell)
            self._changed()
        elif key == "allexport":
            self.mode.local_reason(LOCAL_ALLEXPORT, bool(value))


class Shopts(_Told[bool]):
    """A shell's `shopt` options: whether localvar_inherit is on goes to its RunMode."""

    __slots__ = ()

    def _changed(self) -> None:
        self.mode.local_reason(LOCAL_INHERIT, bool(self.get("localvar_inherit")))


class Disabled(set[str]):
    """A shell's builtins turned off (`enable -n`): whether `local` is goes to its RunMode. Every
    mutator of set is wrapped, as _Told wraps dict's."""

    __slots__ = ("mode",)

    def __init__(self, mode: RunMode, items: Iterable[str] = ()) -> None:
        set.__init__(self, items)
        self.mode = mode
        self._changed()

    def _changed(self) -> None:
        self.mode.local_reason(LOCAL_DISABLED, "local" in self)

    if not TYPE_CHECKING:
        add = _telling(set.add)
        discard = _telling(set.discard)
        remove = _telling(set.remove)
        pop = _telling(set.pop)
        clear = _telling(set.clear)
        update = _telling(set.update)
        difference_update = _telling(set.difference_update)
        intersection_update = _telling(set.intersection_update)
        symmetric_difference_update = _telling(set.symmetric_difference_update)
        __ior__ = _telling(set.__ior__)
        __iand__ = _telling(set.__iand__)
        __isub__ = _telling(set.__isub__)
        __ixor__ = _telling(set.__ixor__)


class Traps(_Told[str]):
    """A shell's traps (an empty command: the signal is ignored): whether the DEBUG trap is set,
    and whether any is, go to its RunMode. The others leave simple commands as they run: ERR runs from errexit_check and
    RETURN from call_function, which every path ends in; EXIT runs as the shell ends; a signal's
    trap runs when a signal comes, which is a reason of its own (RunMode.signal)."""

    __slots__ = ()

    def _changed(self) -> None:
        debug = bool(self.get("DEBUG"))  # (`trap '' DEBUG` runs nothing either)
        traps = len(self) > 0
        mode = self.mode
        if mode.debug is not debug or mode.traps is not traps:
            mode.debug = debug
            mode.traps = traps
            mode.settle()
