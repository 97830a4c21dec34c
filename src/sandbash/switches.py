"""sandbash's own switches read from the host environment once, at import: the one place that reads
them, so that nothing else in the interpreter looks at the host's environment.

SANDBASH_TREE_WALKER=1: run every command through the tree walker, never compiled
(sandbash.interp.compiler). The two must give the same results; the conformance harnesses and a CI
step run both ways to show it.

SANDBASH_NO_FUNCGEN=1: compile, but never generate a hot function's body as one Python function
(sandbash.interp.funcgen): its commands stay closures, for comparison."""

from __future__ import annotations

from os import environ

TREE_WALKER: bool = environ.get("SANDBASH_TREE_WALKER", "") not in ("", "0")
NO_FUNCGEN: bool = environ.get("SANDBASH_NO_FUNCGEN", "") not in ("", "0")
