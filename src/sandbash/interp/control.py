"""Control flow as exceptions: break, continue, return, exit, fatal errors.

All derive from BaseException so that no command's `except Exception` can
swallow them.
"""

from __future__ import annotations


class ControlFlow(BaseException):
    pass


class LoopControl(ControlFlow):
    """`break` or `continue` on its way out to the loop it names (`levels` loops out), with the
    status of the commands it ends on its way (the builtin's own, 0, until an `until` loop's
    condition it ends gives its body's: LoopFrame.tested)."""

    breaks = False

    def __init__(self, levels: int, status: int = 0) -> None:
        super().__init__(levels)
        self.levels = levels
        self.status = status


class BreakLoop(LoopControl):
    breaks = True  # (`break 0` leaves every loop with status 1)


class ContinueLoop(LoopControl):
    """(a stray one, past every loop, ends a run with its status: the builtin's own, 0)"""


class ReturnFromFunction(ControlFlow):
    def __init__(self, status: int, errexit: bool = True) -> None:
        super().__init__(status)
        self.status = status
        # False: `set -e` does not see the discarded line fail (an arithmetic expansion error)
        self.errexit = errexit


class ExitShell(ControlFlow):
    """`exit`, or a fatal error in a non-interactive shell: ends the current
    (sub)shell with `status`."""

    def __init__(self, status: int, errexit: bool = True) -> None:
        super().__init__(status)
        self.status = status
        # False: `set -e` does not see the discarded line fail (an arithmetic expansion error)
        self.errexit = errexit


class KilledBySignal(ExitShell):
    """A signal without a trap ended the shell (`kill -9 $BASHPID`): its status is 128 + `signal`,
    and the shell that waits for it reports the death as bash does (jobs.report_death)."""

    # the signal was one the subshell sent itself with its last command: it dies as that ends,
    # with no EXIT trap (jobs.end_of_subshell)
    at_end = False

    def __init__(self, signal: int) -> None:
        super().__init__(128 + signal)
        self.signal = signal


class Replaced(ExitShell):
    """`exec CMD`: the shell's process became CMD, so nothing of the shell's runs after it (a
    `time` around it reports nothing, as bash's time_command never regains control)."""


class ErrexitTriggered(ExitShell):
    """`set -e` ending the shell."""


class AbortCommand(ControlFlow):
    """An error that discards the rest of the current top-level command
    (bad substitution, arithmetic error, failed assignment): the shell goes on
    with the next line of the script, as bash does."""

    def __init__(self, status: int, errexit: bool = True) -> None:
        super().__init__(status)
        self.status = status
        # False: `set -e` does not see the discarded line fail (an arithmetic expansion error)
        self.errexit = errexit
