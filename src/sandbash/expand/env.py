"""What word expansion needs from the shell, as a protocol.

The expansion library never imports the interpreter: the interpreter passes
itself (or a test double) implementing `ExpandEnv`.
"""

from __future__ import annotations

from ..shvars.vars import Var
from ..syntax.ast import CmdSub, ProcSub

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object  # the protocols are the type checker's: a plain base at run time (typing is ~2 ms of a start-up)


class ExpansionError(Exception):
    """An expansion failure. `fatal` is the exit status when bash would exit a
    non-interactive shell (bad substitution, `${x:?}`, unbound variable),
    otherwise None (the command fails with status 1)."""

    def __init__(
        self,
        message: str,
        fatal: int | None = 1,
        exits: bool = False,
        located: bool = True,
        arith: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fatal = fatal
        # an arithmetic error while a word expanded (`$((1/0))`, `${s:1/0}`, a subscript): bash
        # discards the command line with status 1 and goes on with the next, `set -e` or not
        self.arith = arith
        # the message carries its own place (`command substitution: line 3: ...`): no `line N:`
        self.located = located
        # the whole shell ends, not just the command line (an arithmetic error
        # assigning to an integer variable)
        self.exits = exits


class ArithAssignError(ExpansionError):
    """An assignment inside arithmetic failed (`(( RO = 2 ))` on a readonly
    RO): `(( ))` reports it and fails with 1; `$(( ))` aborts the line, and so does a `$(( ))`
    expanded in the text of a `(( ))` (arithwords.nested_error)."""


class ExpandEnv(Protocol):
    def lookup(self, name: str) -> Var | None: ...
    def nameref_target(self, name: str) -> str | None: ...
    def pin_random(self, value: int | None) -> int | None: ...
    def positional(self) -> list[str]: ...
    def special(self, name: str) -> str: ...
    def assign_default(self, name: str, sub: str | None, value: str) -> None: ...
    def option(self, name: str) -> bool: ...
    def ifs(self) -> str: ...
    def command_sub(self, sub: CmdSub) -> str: ...
    def process_sub(self, sub: ProcSub) -> str: ...
    def arith_eval(self, text: str) -> int: ...
    def glob(self, pattern: str) -> list[str] | None: ...
    def home_dir(self, user: str) -> str | None: ...
    def locale_bytes(self) -> bool: ...
    def var_names(self) -> list[str]: ...
    def subscript_key(self, raw: str) -> str: ...
    def prompt_expand(self, text: str) -> str: ...
    def check_string(self, size: int) -> None: ...
    def charge_brace(self, count: int) -> None: ...
    def report_error(self, message: str) -> None: ...
