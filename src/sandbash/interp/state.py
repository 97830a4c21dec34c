"""Everything a shell (or subshell) carries: variables, options, functions,
aliases, traps, working directory and file descriptors.

`fork()` makes the copy a subshell gets; it shares nothing mutable with its
parent except the filesystem and the open streams.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from ..shvars.vars import COPIED_ENTRY, PARAM_COPY, FunctionTable, MemAccount, Params, VarStore, params_size
from ..stdio.streams import Stream
from ..vfs.facade import FsView
from .runmode import LOCAL_FUNCTION, Disabled, Options, RunMode, Shopts, Traps

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random

# PIPESTATUS after one command of status 0-255, shared: a compiled command stores ONE_STATUS[status]
# rather than a new list (the list's making, collection and freeing were ~4% of a compiled `x=1`);
# ShellState.pipestatus is never changed in place, only replaced
ONE_STATUS: tuple[tuple[int], ...] = tuple((status,) for status in range(256))


# Bytes one entry of a shell's table (aliases, hash table, completions) takes besides its text
# (the dict's slot, the key and value objects); a subshell's copy of one: COPIED_ENTRY
TABLE_ENTRY = 160


def _charge(acct: MemAccount | None, n: int) -> None:
    """What a table is about to hold (negative: gives back) to its shell's account: the account of
    the variables, so a table counts towards max_memory during a run and max_session_memory after
    it, as functions do (FunctionTable). None: a table no shell owns yet (charged when adopted)."""
    if acct is not None and n:
        acct.add(n)


if TYPE_CHECKING:
    from typing import TypeVar

    _V = TypeVar("_V")
else:  # the start-up path imports no typing: at run time a table is a plain dict subclass
    _V = object


class ChargedTable(dict[str, _V]):
    """A shell's table (aliases, hash table, completions) whose every entry is charged to the
    shell's account (`acct`) as it is set and given back as it goes, by the one `cost` of an
    entry each table defines; every way a dict changes (set, del, pop, popitem, setdefault,
    update, |=, clear) goes through __setitem__/__delitem__ or charges itself here."""

    acct: MemAccount | None = None

    def cost(self, key: str, value: _V) -> int:
        raise NotImplementedError

    def total(self) -> int:
        return sum(self.cost(k, v) for k, v in self.items())

    def adopt(self, acct: MemAccount) -> None:
        """Charge what the table holds to `acct` and every change from now on."""
        _charge(acct, self.total())
        self.acct = acct

    def __setitem__(self, key: str, value: _V) -> None:
        old = self.get(key)
        _charge(self.acct, self.cost(key, value) - (0 if old is None else self.cost(key, old)))
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        value = super().pop(key)
        _charge(self.acct, -self.cost(key, value))

    def __ior__(self, other: Mapping[str, _V]) -> ChargedTable[_V]:  # type: ignore[override,misc]
        self.update(other)
        return self

    def clear(self) -> None:
        _charge(self.acct, -self.total())
        super().clear()

    def pop(self, key: str, *default: _V | None) -> _V | None:  # type: ignore[override]
        if key in self:
            value = self[key]
            del self[key]
            return value
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, _V]:
        key = next(reversed(self))
        value = self[key]
        del self[key]
        return key, value

    def setdefault(self, key: str, default: _V) -> _V:  # type: ignore[override]
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: object, **kw: _V) -> None:  # type: ignore[override]
        for key, value in dict(*args, **kw).items():  # type: ignore[call-overload]
            self[key] = value


class AliasTable(ChargedTable[str]):
    """The aliases (name -> value), with a token that every change replaces: a run-time parse of a
    substitution's text is cached on the token (aliasrun.parse_key), one object to hash where the
    table's contents were a tuple of every pair at each use. A fork's copy keeps its parent's
    token (the same contents) until either changes; tokens are never numbers, so two tables
    changed apart never share one."""

    def __init__(self, *args: object, **kw: str) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.token = object()

    def cost(self, key: str, value: str) -> int:
        return TABLE_ENTRY + len(key) + len(value)

    def forked(self, acct: MemAccount | None = None) -> AliasTable:
        """A copy for a subshell, under the same token (its copy charged to the subshell's `acct`)."""
        _charge(acct, COPIED_ENTRY * len(self))
        copy = AliasTable(self)
        copy.token = self.token
        copy.acct = acct
        return copy

    def __setitem__(self, key: str, value: str) -> None:
        if self.get(key) != value:  # (an alias defined again as it was: a loop may do that)
            self.token = object()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.token = object()
        super().__delitem__(key)

    def clear(self) -> None:
        self.token = object()
        super().clear()


class HashTable(ChargedTable[str]):
    """The command hash table (name -> "kind:path"). Like bash's it exists from its first entry on:
    `hash -d NAME` in a shell that never hashed anything is not an error. Entries are charged with
    their hit counts."""

    created = False
    # bash's times_found: 0 for an entry `hash`, `hash -p` or BASH_CMDS made; a command run
    # through the table counts each run (the run that searched PATH and made it is the first)
    hits: dict[str, int] | None = None
    # the names a PATH search found past the current directory (`.`, an empty element): bash's
    # HASH_CHKDOT, an executable ./NAME made since runs instead (Executor.hashed_now)
    dotted: set[str] | None = None

    def cost(self, key: str, value: str) -> int:
        return TABLE_ENTRY + len(key) + len(value)

    def __setitem__(self, key: str, value: str) -> None:
        self.created = True
        super().__setitem__(key, value)
        self._hits()[key] = 0
        if self.dotted:
            self.dotted.discard(key)  # (`hash -p`, BASH_CMDS: no search made it)

    def setdefault(self, key: str, default: str) -> str:
        """A command about to run: its entry, made now (its first hit) if it has none."""
        self.created = True
        if key not in self:
            super().__setitem__(key, default)
            self._hits()[key] = 1
            if self.dotted:
                self.dotted.discard(key)
        return self[key]

    def mark_dot(self, key: str) -> None:
        if self.dotted is None:
            self.dotted = set()
        self.dotted.add(key)

    def hit(self, key: str) -> None:
        """A lookup found `key` in the table (a run, type, command -v, hash -t)."""
        hits = self._hits()
        hits[key] = hits.get(key, 0) + 1

    def _hits(self) -> dict[str, int]:
        if self.hits is None:
            self.hits = {}
        return self.hits

    def copy(self, acct: MemAccount | None = None) -> HashTable:  # type: ignore[override]
        """A subshell's copy, charged to its `acct`."""
        _charge(acct, COPIED_ENTRY * len(self))
        new = HashTable(self)
        new.acct = acct
        new.created = self.created
        if self.hits is not None:
            new.hits = dict(self.hits)
        if self.dotted:
            new.dotted = set(self.dotted)
        return new


class CompletionTable(ChargedTable[dict[str, list[str]]]):
    """`complete`'s specifications (name -> option -> values). (compopt changes a spec's few
    options in place, uncharged.)"""

    def cost(self, key: str, value: Mapping[str, Sequence[str]]) -> int:
        return (
            TABLE_ENTRY
            + len(key)
            + sum(TABLE_ENTRY + sum(COPIED_ENTRY + len(w) for w in words) for words in value.values())
        )

    def forked(self, acct: MemAccount | None) -> CompletionTable:
        """A subshell's copy (its own lists), charged to its `acct`."""
        _charge(acct, self.total())
        new = CompletionTable({k: {o: list(v) for o, v in spec.items()} for k, spec in self.items()})
        new.acct = acct
        return new


SET_OPTIONS: dict[str, bool] = {
    "allexport": False,
    "braceexpand": True,
    "emacs": False,
    "errexit": False,
    "errtrace": False,
    "functrace": False,
    "hashall": True,
    "histexpand": False,
    "history": False,
    "ignoreeof": False,
    "interactive-comments": True,
    "keyword": False,
    "monitor": False,
    "noclobber": False,
    "noexec": False,
    "noglob": False,
    "nolog": False,
    "notify": False,
    "nounset": False,
    "onecmd": False,
    "physical": False,
    "pipefail": False,
    "posix": False,
    "privileged": False,
    "verbose": False,
    "vi": False,
    "xtrace": False,
}
SHOPT_OPTIONS: dict[str, bool] = {
    "autocd": False,
    "assoc_expand_once": False,
    "cdable_vars": False,
    "cdspell": False,
    "checkhash": False,
    "checkjobs": False,
    "checkwinsize": True,
    "cmdhist": True,
    "compat31": False,
    "compat32": False,
    "compat40": False,
    "compat41": False,
    "compat42": False,
    "compat43": False,
    "compat44": False,
    "complete_fullquote": True,
    "direxpand": False,
    "dirspell": False,
    "dotglob": False,
    "execfail": False,
    "expand_aliases": False,
    "extdebug": False,
    "extglob": False,
    "extquote": True,
    "failglob": False,
    "force_fignore": True,
    "globasciiranges": True,
    "globskipdots": True,
    "globstar": False,
    "gnu_errfmt": False,
    "histappend": False,
    "histreedit": False,
    "histverify": False,
    "hostcomplete": True,
    "huponexit": False,
    "inherit_errexit": False,
    "interactive_comments": True,
    "lastpipe": False,
    "lithist": False,
    "localvar_inherit": False,
    "localvar_unset": False,
    "login_shell": False,
    "mailwarn": False,
    "no_empty_cmd_completion": False,
    "nocaseglob": False,
    "nocasematch": False,
    "noexpand_translation": False,
    "nullglob": False,
    "patsub_replacement": True,
    "progcomp": True,
    "progcomp_alias": False,
    "promptvars": True,
    "restricted_shell": False,
    "shift_verbose": False,
    "sourcepath": True,
    "varredir_close": False,
    "xpg_echo": False,
}
# `set -X` letters and the `$-` order bash prints them in
FLAG_LETTERS: dict[str, str] = {
    "a": "allexport",
    "b": "notify",
    "e": "errexit",
    "f": "noglob",
    "h": "hashall",
    "k": "keyword",
    "m": "monitor",
    "n": "noexec",
    "p": "privileged",
    "t": "onecmd",
    "u": "nounset",
    "v": "verbose",
    "x": "xtrace",
    "B": "braceexpand",
    "C": "noclobber",
    "E": "errtrace",
    "H": "histexpand",
    "P": "physical",
    "T": "functrace",
}
_DASH_ORDER = "abefhkmnptuvxBCEHPT"


Frame = tuple[str, str, int]
"""One function call, as FUNCNAME, BASH_SOURCE and BASH_LINENO show it: (name, source file, the
line it was called from). A plain tuple, made by calls.call_function at each call (a class's
instance cost a call ~1.3 k instructions more); each call's is a new object, which the trap
chains below compare by identity, and immutable, so a subshell shares its parent's."""


def _new_rng(seed: float | None) -> random.Random:
    import random  # (random.py and what it imports: ~3 M instructions of a start-up; see _FirstRng)

    return random.Random(seed)


class _FirstRng:
    """`ShellState.rng`, made on first read ($RANDOM, a fork, a command's Ctx, a snapshot): a shell
    that reads none of them does not import random. A non-data descriptor: once made, the generator
    is in the instance's dict and read as a plain attribute. A fork's is seeded from the seed it drew
    from its parent at the fork (`rng_seed`), any other shell's (and a fork's whose parent would have
    been seeded by the system) from the system; setdefault: two threads reading it first at once get
    the same one."""

    def __get__(self, obj: ShellState | None, owner: type) -> random.Random:
        if obj is None:
            raise AttributeError("rng")
        own = obj.__dict__
        made: random.Random = own.setdefault("rng", _new_rng(own["rng_seed"]))
        return made


# what a pipeline stage's parent did with its DEBUG trap (ShellState.debug_ran): ran it, or ran
# it and extdebug skips the stage's command
DEBUG_RAN = 1
DEBUG_SKIPPED = 2


class ShellState:
    if TYPE_CHECKING:
        rng: random.Random
    else:
        rng = _FirstRng()

    def __init__(self, fs: FsView, fds: dict[int, Stream]) -> None:
        self.vars = VarStore()
        self.positional: list[str] = []
        self.arg0 = "bash"
        # a script file's name as it was started, once BASH_ARGV0 has changed $0 (messages and
        # BASH_SOURCE keep naming the file)
        self.script = ""
        # bash's shell_name where it is not $0 (prompts' `\s`): a script file's run is named after
        # the shell that reads it until BASH_ARGV0 is assigned
        self.shell_name: str | None = None
        # the commands a script file or standard input has read so far (bash's current_command_number,
        # a prompt's `\#`; a -c string is not read by that loop: 0)
        self.command_number = 0
        # whether nothing changes how commands run (runmode.py): the options and the traps tell it
        self.run_mode = mode = RunMode()
        self.opts = Options(mode, SET_OPTIONS)
        self.shopts = Shopts(mode, SHOPT_OPTIONS)
        self.functions = FunctionTable(self.vars.acct)  # charged to max_memory as they are defined
        self.functions.told = partial(mode.local_reason, LOCAL_FUNCTION)
        self.exported_funcs: set[str] = set()
        self.readonly_funcs: set[str] = set()
        self.disabled_builtins = Disabled(mode)
        self.func_sources: dict[str, tuple[str, int]] = {}
        self.aliases = AliasTable()
        self.aliases.adopt(self.vars.acct)
        self.traps = Traps(mode)
        self.parent_traps: dict[str, str] = {}
        self.traced_funcs: set[str] = set()  # declare -ft: they inherit DEBUG and RETURN traps
        self.fs = fs
        self.fds = fds
        self.last_status = 0
        self.pipestatus: Sequence[int] = []
        self.last_bg: int | None = None
        self.dirstack: list[str] = []
        self.frames: list[Frame] = []
        self.sources: list[str] = []  # BASH_SOURCE at top level (sourced files)
        # per sourced file: the line of its `source` command and how many calls were active
        self.source_lines: list[tuple[int, int]] = []
        self.hashed: dict[str, str] = HashTable()
        self.hashed.adopt(self.vars.acct)
        self.subshell = 0
        # BASH_SUBSHELL=N sets bash's subshell level: what it reads is the nesting plus this
        self.subshell_base = 0
        self.mode = "c"  # 'c' (-c string), 's' (stdin) or 'file'
        self.line = 0
        # bash's line_number between simple commands: the end of the top-level command, or the line
        # of the for/case/select or function running (a compound command's redirection error names it)
        self.ctx_line = 0
        # bash's line_number_for_err_trap after a compound command's redirection failed (set by
        # simple commands, not by that report): the line the report set, the line before it, and
        # the command count then (Evaluator._exec_redirected)
        self.err_line = (0, 0, -1)
        self.stdin_redirected = 0  # compound commands running with their input redirected
        self.loop_depth = 0
        self.errexit_ignored = 0
        # eval, source or command running in a tested context (bash's builtin_ignoring_errexit):
        # an error that ends a `set -e` shell (Shell.report_error) does not, even after a `set -e`
        # inside them
        self.builtin_ignoring_errexit = 0
        # a fork's seed for its own rng, drawn from its parent's at the fork (None: the system's)
        self.rng_seed: float | None = None
        # $RANDOM: bash's own generator state (None: seed from rng on first use) and its last value
        self.rand_seed: int | None = None
        self.last_random = 0
        # what bash's cell of each dynamic scalar holds, the value last read or assigned, which a
        # listing shows (Variables.listing); COMP_WORDBREAKS is there once read or assigned
        self.dyn_values: dict[str, str | None] = {}
        self.seconds_integer = False  # SECONDS was read: bash's getter made it an integer
        self.groups_read = False  # GROUPS was read: a listing shows the groups, not `=()`
        # the value every read of $RANDOM gives while one expansion runs (Variables.pin_random)
        self.random_pin: int | None = None
        self.unspecial: set[str] = set()  # dynamic variables `unset` made ordinary
        # BASH_CMDS/BASH_ALIASES are no variables of a scope: their -r and -x attributes live here
        self.table_attrs: dict[str, int] = {}
        self.pid = 0
        self.bashpid = 0
        self.in_trap = ""  # the innermost trap running
        # every trap running, outer ones too: a trap never runs inside itself (an ERR trap run by
        # the DEBUG trap does not run DEBUG again; bash tests each trap's own running flag)
        self.traps_running: tuple[str, ...] = ()
        # a pipeline stage's shell whose DEBUG trap for the stage the parent ran (processes.py)
        self.debug_ran = 0  # DEBUG_RAN or DEBUG_SKIPPED: a pipeline stage's trap its parent ran
        # the calls that were running when the RETURN and DEBUG traps were set (None: RETURN not
        # set); see return_trap_depth
        self._return_chain: tuple[Frame, ...] | None = None
        self._debug_chain: tuple[Frame, ...] = ()
        # the function call that set the ERR trap: functions inherit it only under errtrace
        self.err_trap_frame: object = None
        # the run's command count when a command that set the ERR trap (a function, eval, source,
        # trap) ended failing: that failure runs no ERR trap (Evaluator.err_trap_new)
        self.err_quiet = -1
        # BASH_ARGV and BASH_ARGC (bash's push_args): innermost first; None until bash first fills
        # them (a top-level read, `shopt -s extdebug`). Calls push their arguments while extdebug
        # is on (argv_debug, bash's debugging_mode). Tuples: a fork shares them as they are
        self.argv_debug = False
        self.argv_stack: tuple[str, ...] | None = None
        self.argc_stack: tuple[int, ...] = ()
        self.last_arg = "/usr/bin/bash"  # $_
        self.getopts_pos = 0  # index inside a bundled option group for getopts
        self.args_version = 0  # bumped when `set`/`shift` replace the positional parameters
        self.getopts_version = 0
        self.args_set_top = 0  # bumped by `set` outside functions (a sourced file's `set --` stays)
        # while the first of LC_ALL/LC_CTYPE/LANG set names a locale this system lacks: whether
        # characters were bytes when it was set (bash's setlocale() failed; that locale stayed)
        self.ctype_stuck: bool | None = None
        # the shopts POSIX mode changes, as `POSIXLY_CORRECT=1 cmd` found them (variables.posix_mode)
        self.posix_saved: tuple[bool, ...] | None = None
        self.umask = 0o022
        self.ulimits: dict[str, tuple[int | None, int | None]] = {}  # ulimit: letter -> (soft, hard)
        self.completions = CompletionTable()  # complete: name -> option -> values
        self.completions.adopt(self.vars.acct)
        self.history: list[str] = []  # the history builtin's list (a script's shell records no commands)
        self.history_saved = 0  # entries this shell added that `history -a` has not appended yet
        self.history_read = 0  # lines `history -r/-n` have read from the file
        # bash's hist_last_line_added: `history -s` or fc added the last entry (fc's edit form drops it)
        self.history_added = False
        self.history_remember = False  # bash's remember_on_history, which fc's edit form turns on
        self.history_base = 1  # the number of the list's first entry (HISTSIZE drops the oldest)
        # a special builtin run by `command`: its errors do not end a POSIX-mode shell
        self.command_builtin = False
        # a lazy fork's parent, whose containers it copies on first use (fork)
        self.fork_parent: ShellState | None = None

    def fork(self, lazy: bool = False, apart: bool = False) -> ShellState:
        """The subshell's copy. `lazy`: the containers in _FORK_COPIES are copied from this state
        when the subshell first reads them (`$(echo ok)` reads almost none of them). Only for a
        subshell that runs while this shell waits for it and is dropped when it ends, as `$( )`'s:
        this state must not change while the copy still reads through to it. `apart`: a subshell
        that runs while this shell goes on. It shares this shell's values (strings, arrays'
        elements, function bodies, positional parameters) and keeps them alive when this shell
        replaces them, which this shell's account cannot see (it charges the difference): the
        subshell's account is charged everything this one holds, as if its copies were its own."""
        # (a lazy copy is of a subclass with the __getattr__ that copies: on ShellState itself the hook
        # would cost every attribute read of every shell its specialised fast path)
        new = ShellState.__new__(_LazyShellState if lazy else ShellState)
        own = new.__dict__
        own.update(self.__dict__)  # the scalars as they are (str, int, bool, None)
        for name in _FORK_COPIES:
            own.pop(name, None)  # (absent from a lazy parent that has not copied it either)
        own.pop("rng", None)  # (made from rng_seed, below, on its first read: _FirstRng)
        own["fork_parent"] = self
        # copied now: what nearly every command reads (a function or a builtin? any trap?)
        own["vars"] = vars_ = self.vars.clone(lazy)
        if apart:
            vars_.acct.add(self.vars.acct.held)
        own["functions"] = functions = FunctionTable(vars_.acct, self.functions)
        own["func_sources"] = dict(self.func_sources)
        traps = self.traps
        # its own RunMode (the run's gates as its parent's; no signal for its new pid yet)
        own["run_mode"] = mode = RunMode(self.run_mode.gates)
        functions.told = told = partial(mode.local_reason, LOCAL_FUNCTION)
        told("local" in functions)
        own["disabled_builtins"] = Disabled(mode, self.disabled_builtins)
        # see _FORK_COPIES; `set -E` hands the ERR trap down, `set -T` the DEBUG and RETURN traps
        own["traps"] = Traps(
            mode, {k: v for k, v in traps.items() if v == "" or _inherited(self.opts, k)} if traps else {}
        )
        # (the calls' frames are immutable: the trap chains, copied with the scalars, still name them)
        own["frames"] = list(self.frames)
        own["positional"] = positional = list(self.positional)
        if positional:  # (its pointers: the strings are its parent's, charged there)
            vars_.acct.add(PARAM_COPY * len(positional))
        own["opts"] = Options(mode, self.opts)
        own["shopts"] = Shopts(mode, self.shopts)
        own["fs"] = self.fs.copy()
        own["fds"] = dict(self.fds)
        own["subshell"] = self.subshell + 1
        own["loop_depth"] = 0
        # drawn now, so this shell's sequence is the same whether the subshell uses its own or not; a
        # shell whose generator is not made yet and would be seeded by the system leaves the
        # subshell's to the system too (a pipeline's stages do not import random)
        drawn = "rng" in self.__dict__ or self.rng_seed is not None
        own["rng_seed"] = self.rng.random() if drawn else None
        own["rand_seed"] = None  # a subshell reseeds, as bash's does
        own["random_pin"] = None
        own["command_builtin"] = False
        if not lazy:
            new.materialize()
        return new

    def set_positional(self, args: list[str]) -> None:
        """The shell's own new positional parameters (`set`, `shift`, a snapshot's): charged to its
        account (max_memory, and so max_session_memory) before they replace the old list, whose
        charge, if it was one of these, is given back."""
        new = Params(args)
        n = new.nbytes = params_size(args)
        acct = self.vars.acct
        acct.add(n)
        old = self.positional
        self.positional = new
        if type(old) is Params:
            acct.add(-old.nbytes)

    def shift_positional(self, n: int) -> None:
        """`shift n`: a list the shell made gives back what its first `n` held (counted alone, so a
        loop of shifts stays linear); a call's list stays the call's (charged until it returns)."""
        old = self.positional
        if type(old) is Params:
            new = Params(old[n:])
            gone = params_size(old[:n])
            new.nbytes = old.nbytes - gone
            self.positional = new
            self.vars.acct.add(-gone)
        else:
            self.positional = old[n:]

    def drop_positional(self, dropped: list[str]) -> None:
        """A list of positional parameters the shell no longer holds (a call's or a sourced file's
        ended): what `set` charged for it is given back."""
        if type(dropped) is Params:
            self.vars.acct.add(-dropped.nbytes)

    def materialize(self) -> None:
        """Copy every container a lazy fork has not copied yet; then it no longer needs its parent."""
        parent = self.fork_parent
        if parent is None:
            return
        own = self.__dict__
        for name, copy in _FORK_COPIES.items():
            if name not in own:
                own[name] = copy(parent, self)
        self.fork_parent = None
        self.__class__ = ShellState  # (a lazy copy no more: no hook)

    def dash_flags(self) -> str:
        opts = self.opts
        out = [c for c in _DASH_ORDER if opts.get(FLAG_LETTERS[c])]
        return "".join(out) + self.mode_letter()

    @property
    def return_trap_depth(self) -> int:
        """The call depth the RETURN trap is in force at (-1: not set): where it was set while
        the calls running then still run, else the depth of the calls left of them. bash
        takes a RETURN or DEBUG trap away from an untraced function while it runs: one set in
        f goes on in f's caller, but not in a function that caller calls after f returned."""
        chain = self._return_chain
        return -1 if chain is None else _still_running(chain, self.frames)

    @return_trap_depth.setter
    def return_trap_depth(self, depth: int) -> None:
        self._return_chain = None if depth < 0 else tuple(self.frames[:depth])

    @property
    def debug_trap_depth(self) -> int:
        """As return_trap_depth, for the DEBUG trap (0 when never set: it runs outside functions)."""
        return _still_running(self._debug_chain, self.frames)

    @debug_trap_depth.setter
    def debug_trap_depth(self, depth: int) -> None:
        self._debug_chain = tuple(self.frames[:depth])

    def trap_reaches(self, set_depth: int) -> bool:
        """A DEBUG or RETURN trap set at call depth `set_depth` is in force here: at that depth, or
        in functions called from there that all have the trace attribute (`declare -ft`)."""
        return 0 <= set_depth <= len(self.frames) and all(
            f[0] in self.traced_funcs for f in self.frames[set_depth:]
        )

    def compound_line(self, line: int, commands: int) -> None:
        """A `for`, `select` or `case` (or a compound command's redirection report) sets $LINENO
        and ctx_line to its line, but not bash's line_number_for_err_trap: `err_line` keeps that,
        the line before, while no command (`commands`: the budget's count) ran since."""
        shown, kept, at = self.err_line
        self.err_line = (line, kept if at == commands and self.line == shown else self.line, commands)
        self.line = self.ctx_line = line

    def mode_letter(self) -> str:
        return {"c": "c", "s": "s"}.get(self.mode, "")


def _still_running(chain: tuple[Frame, ...], frames: list[Frame]) -> int:
    """How many of the calls in `chain` (outermost first) are still the running ones."""
    n = 0
    for a, b in zip(chain, frames, strict=False):
        if a is not b:
            break
        n += 1
    return n


def _inherited(opts: dict[str, bool], trap: str) -> bool:
    """Whether a subshell keeps the trap on `trap` (its parent's ignored signals it always keeps)."""
    if trap == "ERR":
        return opts["errtrace"]
    return (trap == "DEBUG" or trap == "RETURN") and opts["functrace"]


class _LazyShellState(ShellState):
    """A lazy fork's state (ShellState.fork(lazy=True)): a container in _FORK_COPIES is copied from
    the parent on first read."""

    if not TYPE_CHECKING:  # (for the type checker the attributes set in __init__ are the whole story)

        def __getattr__(self, name):
            # only reached for an attribute not set yet: a container a lazy fork copies on first use
            copy = _FORK_COPIES.get(name)
            parent = self.__dict__.get("fork_parent")
            if copy is None or parent is None:
                raise AttributeError(f"'ShellState' object has no attribute '{name}'")
            value = self.__dict__[name] = copy(parent, self)
            return value


def _copy_hashed(parent: ShellState, new: ShellState) -> dict[str, str]:
    table = parent.hashed
    # (a sub-command's shell starts with a plain empty table: Executor's run for Ctx.run)
    return table.copy(new.vars.acct) if isinstance(table, HashTable) else dict(table)


# What a fork copies of each of its parent's containers that it may never read (fork: a lazy fork
# copies one when it first reads it). A subshell keeps the parent's ignored signals, and resets
# its other traps (fork), but `trap` with no arguments still shows the parent's (parent_traps).
_FORK_COPIES: dict[str, Callable[[ShellState, ShellState], object]] = {
    "exported_funcs": lambda p, new: set(p.exported_funcs),
    "readonly_funcs": lambda p, new: set(p.readonly_funcs),
    "aliases": lambda p, new: p.aliases.forked(new.vars.acct),
    "traced_funcs": lambda p, new: set(p.traced_funcs),
    "parent_traps": lambda p, new: dict(p.traps or p.parent_traps),  # (a subshell's subshell too)
    "pipestatus": lambda p, new: list(p.pipestatus),
    "dirstack": lambda p, new: list(p.dirstack),
    "sources": lambda p, new: list(p.sources),
    "source_lines": lambda p, new: list(p.source_lines),
    "hashed": _copy_hashed,
    "unspecial": lambda p, new: set(p.unspecial),
    "table_attrs": lambda p, new: dict(p.table_attrs),
    "dyn_values": lambda p, new: dict(p.dyn_values),
    "ulimits": lambda p, new: dict(p.ulimits),
    "completions": lambda p, new: p.completions.forked(new.vars.acct),
    "history": lambda p, new: list(p.history),
}


def push_args(st: ShellState, args: list[str]) -> None:
    """A call's (or the shell's) arguments onto BASH_ARGV, their count onto BASH_ARGC."""
    st.argv_stack = tuple(reversed(args)) + (st.argv_stack or ())
    st.argc_stack = (len(args),) + st.argc_stack


def pop_args(st: ShellState) -> None:
    """The innermost call's entries off (nothing left: nothing to take, as bash)."""
    if st.argc_stack:
        n = st.argc_stack[0]
        st.argc_stack = st.argc_stack[1:]
        st.argv_stack = (st.argv_stack or ())[n:]


def init_bash_argv(st: ShellState) -> None:
    """bash's init_bash_argv: once, the positional parameters in force become the first entry."""
    if st.argv_stack is None:
        st.argv_stack = ()
        push_args(st, [a if type(a) is str else str(a) for a in st.positional])
