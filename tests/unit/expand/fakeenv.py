"""A stand-in for the shell that word expansion runs against (the ExpandEnv protocol).

Variables live in one dict; command substitution returns canned output per command text;
globbing matches a fixed list of names. Nothing here imports the interpreter, so these tests
show that expansion is a library.
"""

from __future__ import annotations

import fnmatch

from sandbash.expand.arith import Evaluator, compiled
from sandbash.expand.env import ExpansionError
from sandbash.expand.words import Expander
from sandbash.shvars.arrays import AssocArray, IndexedArray
from sandbash.shvars.vars import ASSOC, Var
from sandbash.syntax import ast as A
from sandbash.syntax.parser import Parser


class FakeEnv:
    def __init__(self, **values: str | list[str] | dict[str, str]) -> None:
        self.vars: dict[str, Var] = {}
        for name, value in values.items():
            self.set(name, value)
        self.args: list[str] = []
        self.opts: dict[str, bool] = {"braceexpand": True, "patsub_replacement": True}  # bash's defaults
        self.outputs: dict[str, str] = {}  # command text -> what the command prints
        self.files: list[str] = []  # names globbing can match
        self.errors: list[str] = []
        self.ran: list[str] = []  # command substitutions in the order they ran

    def set(self, name: str, value: str | list[str] | dict[str, str]) -> None:
        if isinstance(value, list):
            self.vars[name] = Var(IndexedArray(value))
        elif isinstance(value, dict):
            arr = AssocArray()
            for k, v in value.items():
                arr.set(k, v)
            self.vars[name] = Var(arr, ASSOC)
        else:
            self.vars[name] = Var(value)

    # ---------------------------------------------------------------- ExpandEnv

    def lookup(self, name: str) -> Var | None:
        return self.vars.get(name)

    def nameref_target(self, name: str) -> str | None:
        return None

    def pin_random(self, value: int | None) -> int | None:
        return None

    def positional(self) -> list[str]:
        return list(self.args)

    def special(self, name: str) -> str:
        return {"#": str(len(self.args)), "0": "bash", "?": "0", "-": "hB"}.get(name, "")

    def assign_default(self, name: str, sub: str | None, value: str) -> None:
        if sub is None:
            self.vars[name] = Var(value)
            return
        var = self.vars.setdefault(name, Var(IndexedArray()))
        assert isinstance(var.value, IndexedArray)
        var.value.set(self.arith_eval(sub), value)

    def option(self, name: str) -> bool:
        return self.opts.get(name, False)

    def ifs(self) -> str:
        var = self.vars.get("IFS")
        return " \t\n" if var is None or not isinstance(var.value, str) else var.value

    def command_sub(self, sub: A.CmdSub) -> str:
        self.ran.append(sub.text)
        return self.outputs.get(sub.text, "").rstrip("\n")  # the shell's part, as bash does

    def process_sub(self, sub: A.ProcSub) -> str:
        return "/dev/fd/63"

    def arith_eval(self, text: str) -> int:
        return compiled(text)(Evaluator(self, text))

    def glob(self, pattern: str) -> list[str] | None:
        plain = pattern.replace("\\", "")
        found = sorted(f for f in self.files if fnmatch.fnmatchcase(f, plain))
        return found or None

    def home_dir(self, user: str) -> str | None:
        return {"": "/home/me", "bob": "/home/bob"}.get(user)

    def locale_bytes(self) -> bool:
        """C/POSIX: the first of LC_ALL, LC_CTYPE, LANG set names it (none set: C)."""
        for name in ("LC_ALL", "LC_CTYPE", "LANG"):
            var = self.vars.get(name)
            if var is not None and isinstance(var.value, str) and var.value:
                return var.value in ("C", "POSIX")
        return True

    def var_names(self) -> list[str]:
        return sorted(self.vars)

    def subscript_key(self, raw: str) -> str:
        return Expander(self).string(A.Word(tuple(Parser(raw).read_parts(10)), 0, raw))

    def prompt_expand(self, text: str) -> str:
        return text

    def check_string(self, size: int) -> None:
        pass

    def charge_brace(self, count: int) -> None:
        pass

    def report_error(self, message: str) -> None:
        self.errors.append(message)

    # ---------------------------------------------------------------- ArithVars

    def arith_get(self, name: str, sub: str | None) -> str | None:
        var = self.vars.get(name)
        if var is None:
            return None
        value = var.value
        if isinstance(value, IndexedArray):
            return value.get(0 if sub is None else self.arith_eval(sub))
        if isinstance(value, AssocArray):
            return value.get(sub or "0")
        return value if isinstance(value, str) else None

    def arith_set(self, name: str, sub: str | None, value: int) -> None:
        if sub is not None:
            raise ExpansionError("elements are not assigned in these tests")
        self.vars[name] = Var(str(value))


def parse_words(src: str) -> tuple[A.Word, ...]:
    """The words of one simple command."""
    tree = Parser(src).parse_all()
    cmd = tree.items[0].cmd
    assert isinstance(cmd, A.SimpleCommand), cmd
    return cmd.words


def expand(env: FakeEnv, src: str) -> list[str]:
    """The argv `src` (one simple command) expands to."""
    return Expander(env).words(parse_words(src))
