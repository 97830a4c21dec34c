"""Loop frames: what every loop (for, for ((;;)), while/until, select) shares. The `break` and
`continue` bookkeeping lives here once; the loops keep only a `try` around their body, which
costs nothing until a `break` or `continue` comes (a method for the pass through the body was
measured 2-5% slower on tight for/while loops, 2026-12-02). Also the `select` loop itself (prompting on
stderr, reading stdin), a compound command like the others."""

from __future__ import annotations

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..limits import Budget, LimitExceeded, LimitKind
from ..shvars.vars import EXPORT, TWO_GRAINS
from ..syntax import ast as A
from .control import ExitShell, LoopControl
from .jobs import cleanup_dead_jobs
from .variables import NOT_PLAIN, AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .evaluator import Evaluator
    from .runtime import Runtime
    from .state import ShellState
    from .variables import Variables

_NOT_EXPORT = ~EXPORT


def item_store(st: ShellState, rt: Runtime, va: Variables, name: str) -> Callable[[str], bool] | None:
    """A `for` loop's store of each word into its variable `name`: Variables.store_plain's
    common case with the loop's lookups made once (an existing string of the innermost scope,
    or of the globals where no function scope binds the name, without attributes beyond -x,
    `set -a` off, the word within max_string_length: the change in bytes charged, then the word
    stored), else store_plain itself; True when stored, False for set_var's way (store_plain's
    answer). None: a name store_plain does not take (NOT_PLAIN). The store, the options and
    the run's limits are the shell's for the whole loop (a function the body calls pushes onto
    the same scopes)."""
    if name in NOT_PLAIN:
        return None
    vs = st.vars
    scopes = vs.scopes
    names = vs.local_names
    acct = vs.acct
    opts = st.opts
    limits = rt.limits
    store_plain = va.store_plain

    def store(item: str) -> bool:
        home = scopes[-1]
        found = home.get(name)
        if found is None and name not in names:
            home = scopes[0]
            found = home.get(name)
        if (
            found is None
            or type(old := found.value) is not str
            or found.attrs & _NOT_EXPORT
            or opts["allexport"]
            or len(item) > limits.max_string_length
        ):
            return store_plain(name, item)
        # the change in bytes as value_size counts them, charged before the word is stored
        if item.isascii() and old.isascii():
            n = len(item) - len(old)
        else:
            n = (len(item) if item.isascii() else 4 * len(item)) - (
                len(old) if old.isascii() else 4 * len(old)
            )
        if n:
            held = acct.held + n
            if held >= 0 and acct.charged - TWO_GRAINS <= held <= acct.charged:
                acct.held = held  # (MemAccount.add's common case, as VarStore.charge)
                home.size += n
                home.acct = acct
            else:
                vs.charge(home, n)
        found.value = item
        return True

    return store


class LoopFrame:
    """One running loop: `loop_depth` (what `break N` may reach) while it runs, the iteration
    guard, and what a `break` or `continue` that reaches it means. Use as a context manager.

    The guard is a countdown: a step only counts (`n += 1`, in a local of the loop's handler) and
    compares with `stop`, the step at which `check` must run: the first past max_loop_iterations,
    the first whose charge would pass max_work, or the 64th charge since the clock was read,
    whichever comes first. The steps are charged to the run's budget at each check and when the
    loop ends (the handler stores its count back in `count`), so a loop ends with the limit, and
    at the step, that a check at every step would give (max_work: unless something else charges
    work meanwhile, which its own checkpoint then checks). On another budget (a job's, a
    `timeout`'s: its checkpoint has more to check) every step is checked.

    `held` is what a `for` or `select` loop's word list was charged to max_memory while it was
    made (`Expander.take_fields`): the list lives through the loop, so the charge is given back
    when the loop ends, however it ends (break, return, errexit, a limit), not when the body's
    first command starts."""

    __slots__ = ("state", "budget", "limit", "count", "stop", "synced", "plain", "max_work", "held")

    def __init__(
        self, state: ShellState, budget: Budget, limit: int, held: tuple[int, Budget | None] = (0, None)
    ) -> None:
        self.state = state
        self.held = held
        self.budget = budget
        self.limit = limit  # max_loop_iterations
        self.count = 0  # steps begun (stored back by the handler: see __exit__)
        self.synced = 0  # steps charged to the budget
        # the run's own budget is charged here as its checkpoint() would be (a sub-budget's adds a
        # deadline of its own, so it is called)
        self.plain = type(budget) is Budget
        self.max_work = budget.limits.max_work if self.plain else 0
        self.stop = self._bound(0)

    def __enter__(self) -> LoopFrame:
        self.state.loop_depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.state.loop_depth -= 1
        give_back(self.held)
        if self.plain:
            # the steps since the last check are charged, not checked (a check could raise over
            # the exception the loop may be ending with; the next charge checks them)
            steps = self.count - self.synced
            self.synced = self.count
            budget = self.budget
            budget.work += steps
            budget.ticks += steps

    def tick(self) -> None:
        """One more step, for a loop that keeps no count of its own (`select`)."""
        self.count += 1
        if self.count >= self.stop:
            self.stop = self.check(self.count)

    def check(self, n: int) -> int:
        """Step `n` reached `stop`: max_loop_iterations, then the steps charged as work and the
        run's deadline and cancellation read every 64 charges (Budget.checkpoint's own rule,
        done here for the steps at once); the next step to check at."""
        self.count = n
        if n > self.limit:
            raise LimitExceeded(LimitKind.MAX_LOOP_ITERATIONS, self.limit)
        budget = self.budget
        if not self.plain:
            budget.checkpoint()
            return n + 1
        steps = n - self.synced
        self.synced = n
        budget.work += steps
        if budget.work > self.max_work:
            raise budget.limits.over(LimitKind.MAX_WORK)
        budget.ticks += steps
        if budget.ticks >= 64:
            budget.ticks = 0
            budget.check_time()
        return self._bound(n)

    def _bound(self, n: int) -> int:
        if not self.plain:
            return n + 1
        budget = self.budget
        # (each term is past n once the checks above pass; at the start a term at or below n,
        # left by others' unchecked charges, makes the first step check)
        return min(self.limit + 1, n + 1 + self.max_work - budget.work, n + 64 - budget.ticks)

    def caught(self, e: LoopControl) -> int:
        """A `break` or `continue` reached this loop. One meant for an outer loop (`break 2`)
        goes on outwards, one level less; else the status this loop ends with (`break`, whose
        `e.breaks` is set) or goes on with (`continue`): the status of the body it ended, the
        builtin's (bash's body_status, as the builtin's status is the last command's)."""
        if e.levels > 1:
            e.levels -= 1
            raise e
        return e.status

    def tested(self, e: LoopControl, until: bool, status: int) -> tuple[bool, int]:
        """A `break` or `continue` in a `while` (`until`) loop's condition, whose body last ended
        with `status`: whether the loop ends, and its status (bash's execute_while_or_until).
        The condition's status is the builtin's: when that ends the loop, it ends with `status`
        (one meant for an outer loop goes on outwards with it, one level less); else the body is
        skipped with that status, and the `break` or `continue` is this loop's as from the body."""
        if (e.status == 0) == until:
            if e.levels > 1:
                e.levels -= 1
                e.status = status
                raise e
            return True, status
        return e.breaks, self.caught(e)


def give_back(held: tuple[int, Budget | None]) -> None:
    """Give back what `Expander.take_fields` handed over."""
    n, budget = held
    if n and budget is not None:
        budget.release_memory(n)


def loop_words(ev: Evaluator, node: A.For | A.Select) -> list[str] | int:
    """The words a `for` or `select` loop goes over (the positional parameters when it has no
    `in` list), or the status of the expansion error that ends the loop before it starts. What
    their expansion was charged is the loop's to give back (`Expander.take_fields`)."""
    st = ev.state
    st.compound_line(node.line, ev.sh.rt.budget.commands)
    ev.expander.give_back_fields()  # (the last command's: the loop's own charge starts here)
    try:
        return list(st.positional) if node.words is None else ev.expander.words(node.words)
    except ExpansionError as e:
        return ev.expansion_failed(e)
    except ArithError as e:
        return ev.expansion_failed(ExpansionError(e.render(), 1, arith=True))


def loop_header(keyword: str, node: A.For | A.Select) -> str:
    """The loop's head as the DEBUG trap and `set -x` show it: its words as written, $'...'
    decoded (bash shows a missing list as `in "$@"`)."""
    if node.words is None:
        return f'{keyword} {node.var} in "$@"'
    text = " ".join(w.text for w in node.words)
    if "$'" in text:
        from ..syntax.escapes import ansi_decoded

        text = ansi_decoded(text)
    return f"{keyword} {node.var} in {text}"


def run_select(ev: Evaluator, node: A.Select) -> int:
    """`select NAME in WORDS`: the menu and prompt ($PS3) on stderr, a line of stdin in $REPLY,
    the chosen word in NAME; an empty line shows the menu again, end of input ends the loop."""
    sh = ev.sh
    st = ev.state
    items = loop_words(ev, node)
    if isinstance(items, int):
        return items
    held = ev.expander.take_fields()
    header = loop_header("select", node)
    # the trace and the DEBUG trap come once, even for no words (`for` has them at every step)
    if st.opts["xtrace"]:
        ev.ex.xtrace_line(header)
    if (st.traps and ev.ex.debug_trap(header)) or not items:
        give_back(held)
        return 0  # (extdebug skips the select: it succeeds)
    status = 0
    show_menu = True
    rt = sh.rt
    with ev.loop_frame(held) as loop:
        while True:
            loop.tick()
            if show_menu:
                sh.write_err(_menu(items, ev.va.get_str("COLUMNS")))
            sh.write_err(ev.va.get_str("PS3") or "#? ")
            stream = st.fds.get(0)
            line = (
                stream.readline(b"\n", rt.limits.max_string_length)
                if stream is not None and stream.readable
                else b""
            )
            if not line:
                sh.out("\n")
                status = 1
                break
            reply = line.decode("utf-8", "surrogateescape").rstrip("\n")
            ev.va.set_var("REPLY", reply)
            if not reply.strip():
                show_menu = True
                continue
            show_menu = False
            choice = reply.strip()
            value = items[int(choice) - 1] if choice.isdigit() and 1 <= int(choice) <= len(items) else ""
            try:
                ev.va.set_var(node.var, value)
            except AssignError as e:  # bash reports it and leaves the loop (POSIX mode: the shell)
                sh.error(e.message)
                if st.opts["posix"]:
                    raise ExitShell(1) from None
                status = 1
                break
            try:
                status = ev.run_body(node.body)
            except LoopControl as e:
                status = loop.caught(e)
                if e.breaks:
                    break
            finally:
                if rt.reap:  # (the jobs told about, after each step: bash's REAP)
                    cleanup_dead_jobs(sh)
    st.last_status = status
    return status


def _menu(items: list[str], columns: str | None) -> str:
    """bash's print_select_list: the words in columns, numbered down each column, $COLUMNS wide
    (80 when unset or not a positive number); a menu that fits one row is shown one per line."""
    n = len(items)
    total = c_atoi(columns or "")
    total = total if total > 0 else 80
    indices_len = len(str(n))
    max_len = max(_displen(item) for item in items) + indices_len + 4  # ") " and 2 spaces
    cols = max(total // max_len, 1)
    rows = n // cols + (n % cols != 0)
    cols = n // rows + (n % rows != 0)
    if rows == 1:
        rows, cols = cols, 1
    first_len = len(str(rows))
    out: list[str] = []
    for row in range(rows):
        ind = row
        pos = 0
        while True:
            width = first_len if pos == 0 else indices_len
            item = items[ind]
            out.append(f"{ind + 1:>{width}}) {item}")
            ind += rows
            if ind >= n:
                break
            # bash's indent(): tabs to each tab stop on the way, then spaces
            here, to = pos + _displen(item) + width + 2, pos + max_len
            while here < to:
                if to // 8 > here // 8:
                    out.append("\t")
                    here += 8 - here % 8
                else:
                    out.append(" ")
                    here += 1
            pos += max_len
        out.append("\n")
    return "".join(out)


def c_atoi(text: str) -> int:
    """C's atoi: leading blanks, a sign, the digits that follow; 0 when there are none."""
    t = text.lstrip(" \t\n\v\f\r")
    sign = -1 if t[:1] == "-" else 1
    t = t[1:] if t[:1] in "+-" else t
    digits = len(t) - len(t.lstrip("0123456789"))
    return sign * int(t[:digits]) if digits else 0


def _displen(text: str) -> int:
    """A word's width on a terminal (bash's displen: wcswidth, or its length in bytes when it
    holds a character that is not printable)."""
    if text.isascii():
        return len(text) if text.isprintable() else len(text.encode())
    import unicodedata  # (a select menu of non-ASCII words: rare)

    width = 0
    for c in text:
        if not c.isprintable():
            return len(text.encode("utf-8", "surrogateescape"))
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return width
