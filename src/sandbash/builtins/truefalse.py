"""`:`, `true` and `false`: a module of their own, for start-up (`sandbash -c true` and a `while :`
loop then load neither core.py's other builtins nor the option parser they share). Like bash's,
they take no options: every word, `--help` included, is ignored."""

from __future__ import annotations

from . import builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell


@builtin(":", "true")
def bi_true(sh: Shell, argv: list[str]) -> int:
    return 0


@builtin("false")
def bi_false(sh: Shell, argv: list[str]) -> int:
    return 1
