"""Bash's reserved words, in the order of its word_token_alist (the order `compgen -k` lists them).

One table for the parser (a reserved word is recognised only where a command may start), the printer
(a function named like one is shown with `function`), `type`/`command -v` and completion.
"""

from __future__ import annotations

RESERVED_WORDS: tuple[str, ...] = (
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "case",
    "esac",
    "for",
    "select",
    "while",
    "until",
    "do",
    "done",
    "in",
    "function",
    "time",
    "{",
    "}",
    "!",
    "[[",
    "]]",
    "coproc",
)
RESERVED = frozenset(RESERVED_WORDS)
