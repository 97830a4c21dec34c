"""What decides on a command before it runs, composed once per run: the policy's gate, then the
embedder's command gate, and the audit recorder that sees every command start and end (refused
ones too). Runtime.bind_run builds it; with none of the three, Runtime.gates is None and the
executor takes its short path."""

from __future__ import annotations

from collections.abc import Callable

from .control import ExitShell

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..audit import Recorder
    from ..policy import Gate

# gate(argv) -> None or an error message (the command is refused with 126)
CommandGate = Callable[[list[str]], str | None]


class CommandGates:
    __slots__ = ("policy", "embedder", "recorder")

    def __init__(self, policy: Gate | None, embedder: CommandGate | None, recorder: Recorder | None) -> None:
        self.policy = policy
        self.embedder = embedder
        self.recorder = recorder  # None: no command events (neither an Audit nor a policy in use)

    @staticmethod
    def compose(
        policy: Gate | None, embedder: CommandGate | None, recorder: Recorder | None
    ) -> CommandGates | None:
        if policy is None and embedder is None and recorder is None:
            return None
        return CommandGates(policy, embedder, recorder)

    def refusal(self, argv: list[str], kind: str, runs: str) -> str | None:
        """None to run argv (which runs `runs`, a command of `kind`), else why not: the policy
        first, then the embedder's gate."""
        refusal = self.policy.command(argv, kind, runs) if self.policy is not None else None
        if refusal is None and self.embedder is not None:
            refusal = self.embedder(argv)
        return refusal

    def name_refusal(self, name: str, kind: str, runs: str) -> str | None:
        """The first word alone, before the rest of the command is expanded (the policy's static
        rules: a refused command never runs the $(...) in its arguments)."""
        return self.policy.command_name(name, kind, runs) if self.policy is not None else None

    def visible(self, name: str, kind: str, runs: str) -> bool:
        """Whether discovery (`type`, `command -v`, `which`, `hash`, `help`) shows `name`."""
        return self.policy is None or self.policy.visible(name, kind, runs)

    def run(
        self, argv: list[str], kind: str, runs: str, run: Callable[[], int], refused: Callable[[str], None]
    ) -> int:
        """Record the command's start, ask the gates, then `run()` it, or report the refusal with
        `refused(message)` (status 126); record its end with the status it ended with."""
        rec = self.recorder
        cid = rec.command_start(argv, kind) if rec is not None else None
        status = 126
        try:
            refusal = self.refusal(argv, kind, runs)
            if refusal is None:
                status = run()
            else:
                refused(refusal)
            return status
        except ExitShell as e:
            status = e.status
            raise
        finally:
            if rec is not None and cid is not None:
                rec.command_end(cid, status)
