"""The interpreter's import path for the variable types, which live below expansion in
sandbash/shvars/vars.py (expansion uses them too)."""

from __future__ import annotations

from ..shvars.vars import (
    ARRAY,
    ASSOC,
    ATTR_LETTERS,
    CAPITALIZE,
    EXPORT,
    INTEGER,
    LOWER,
    NAMEREF,
    READONLY,
    SPECIAL_ASSIGN,
    TRACE,
    UPPER,
    VAR_OVERHEAD,
    AssignArg,
    FunctionTable,
    Scope,
    Value,
    Var,
    VarStore,
    source_size,
    value_size,
)

__all__ = [
    "ARRAY", "ASSOC", "ATTR_LETTERS", "CAPITALIZE", "EXPORT", "INTEGER", "LOWER", "NAMEREF", "READONLY",
    "SPECIAL_ASSIGN", "TRACE", "UPPER", "VAR_OVERHEAD", "AssignArg", "FunctionTable", "Scope", "Value", "Var",
    "VarStore", "source_size", "value_size",
]
