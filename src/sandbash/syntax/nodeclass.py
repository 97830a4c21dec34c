"""`@dataclass(frozen=..., slots=True)` for the syntax tree, built by the lean decorator (leanclass.py).

The tree has some fifty node classes and a script builds a few of them, so a node class compiles its
`__init__` on its first instance (compiling them all was most of syntax.ast's import time). A node
class is declared with `metaclass=Declared` (leanclass.Declaration): the decorator makes its slotted
class from the statement's namespace, where over a class it would make a second class from the first. Type
checkers see the real `dataclass` (ast.py imports it under TYPE_CHECKING), so both must accept the
same forms.
"""

from __future__ import annotations

from ..leanclass import build
from ..leanclass import field as field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T", bound=type)


def dataclass(cls: T | None = None, *, frozen: bool = False, slots: bool = True) -> Any:
    """Build the class as `@dataclass(frozen=frozen, slots=True)` would."""
    del slots  # always slotted

    def wrap(c: T) -> T:
        return build(c, repr_=True, eq=True, frozen=frozen, slots=True, lazy_init=True)

    return wrap(cls) if cls is not None else wrap


__all__ = ["dataclass", "field"]
