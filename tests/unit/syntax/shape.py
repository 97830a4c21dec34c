"""Compare syntax trees by what they mean, not by where they came from."""

from __future__ import annotations

from sandbash.syntax import ast as A
from sandbash.syntax.continuations import without_continuations

# where a node starts: a re-printed script puts the same node elsewhere; a substitution's `run`
# (the text its child reads again with aliases on, and that text's first line) is where it came
# from too: a printed script gives the same command list from other text
SPAN_FIELDS = frozenset({"line", "col", "end_line", "run"})


def shape(node: object) -> object:
    """`node` as nested tuples of (class name, (field, value)...), leaving out source positions
    and a function's source text (`declare -f` shows a re-printed function, not its source)."""
    if isinstance(node, tuple):
        return tuple(shape(x) for x in node)
    if node is None or isinstance(node, (str, int, bool)):
        return node
    slots: tuple[str, ...] = type(node).__slots__  # type: ignore[attr-defined]
    fields = tuple(
        (name, shape(_kept_text(node, name)))
        for name in slots
        if name not in SPAN_FIELDS and not (name == "text" and isinstance(node, A.FuncDef))
    )
    return (type(node).__name__, *fields)


def _kept_text(node: object, name: str) -> object:
    """The field `name` of `node`; a substitution's text without its line continuations: it keeps
    them for the lines its child counts when it reads the text again (a position, as `run`), while
    the word around it, as printed back, has them removed as bash's reader removes them."""
    value = getattr(node, name)
    if name == "text" and isinstance(node, (A.CmdSub, A.ProcSub)) and isinstance(value, str):
        return without_continuations(value)
    return value


def first_difference(a: object, b: object, path: str = "tree") -> str | None:
    """Where two shapes first differ (for a readable assertion message)."""
    if type(a) is not type(b):
        return f"{path}: {a!r:.200} != {b!r:.200}"
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}: {a!r:.300} != {b!r:.300}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            label = (
                f"{path}.{x[0]}" if isinstance(x, tuple) and x and isinstance(x[0], str) else f"{path}[{i}]"
            )
            found = first_difference(x, y, label)
            if found is not None:
                return found
        return None
    return None if a == b else f"{path}: {a!r:.200} != {b!r:.200}"
