"""Compile a jq program against the builtin tables and run it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from .builtins_text import get_format
from .compiler import Compiler, NativeFactory, Scope
from .errors import CompileError
from .jqlib import builtin_tables
from .parser import parse
from .runtime import Env, F, Rt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class CompileErrors(Exception):
    """All compile errors of a program (jq reports each, then a count)."""

    def __init__(self, errors: list[CompileError]) -> None:
        super().__init__(errors)
        self.errors = errors


class Program:
    """A compiled program; `var_names` are the global `$variables` it may use."""

    def __init__(
        self,
        src: str,
        var_names: Sequence[str] = (),
        natives: Mapping[tuple[str, int], NativeFactory] | None = None,
    ) -> None:
        """`natives` adds builtins (yq's) on top of jq's."""
        base, library = builtin_tables()
        table = {**base, **natives} if natives else base
        try:
            tree = parse(src)
        except CompileError as e:
            raise CompileErrors([e]) from None
        scope: Scope | None = None
        for name in var_names:
            scope = Scope(scope, "var", name)
        comp = Compiler(table, library, get_format, src)
        self.filter: F = comp.compile(tree, scope)
        if comp.errors:
            raise CompileErrors(comp.errors)
        self.var_names = list(var_names)

    def run(self, value: Any, rt: Rt, var_values: Sequence[Any] = ()) -> Iterator[Any]:
        env: Any = (None, None, rt)
        for x in var_values:
            env = (x, env, rt)
        root: Env = env
        return iter(self.filter.run(value, root))


def evaluate(src: str, value: Any = None, variables: dict[str, Any] | None = None) -> list[Any]:
    """Run a program on one value (a helper for tests and for yq)."""
    variables = variables or {}
    prog = Program(src, list(variables))
    return list(prog.run(value, Rt(), list(variables.values())))
