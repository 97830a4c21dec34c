"""Turn a syntax tree back into text.

Two layouts:
- bash's canonical layout (`unparse`, `unparse_function`): what `declare -f`, `type` and the jobs
  table print, made by bashprint.py the way bash's printer makes it (lossy as bash's is).
- the exact layout (`unparse_exact`, here): text that parses back to the same tree, apart from
  source positions and the source texts kept for messages (`parse(unparse_exact(t))` equals `t` up
  to those; tests/unit/syntax/test_roundtrip.py checks it).
"""

from __future__ import annotations

from . import ast as A
from .bashprint import command_text, function_text, heredoc_delim

_IND = "    "


class _Printer:
    """The exact layout: one command a line, so here-documents and functions keep their places."""

    def func(self, f: A.FuncDef, level: int, docs: list[A.HereDoc]) -> str:
        head = ("function " if f.keyword else "") + f"{f.name} () "
        return head + self.cmd(f.body, level, docs)

    def items(self, lst: A.CommandList, level: int) -> str:
        """One command a line, each ended as it was (`;`, `&` or the newline itself)."""
        pad = _IND * level
        out: list[str] = []
        for item in lst.items:
            docs: list[A.HereDoc] = []
            text = self.cmd(item.cmd, level, docs)
            text += " &" if item.background else ("" if item.newline else ";")
            if docs:
                text += "\n" + "".join(d.text + d.delim + "\n" for d in docs)
            out.append(pad + text)
        return "\n".join(out)

    def cmd(self, node: A.Command, level: int, docs: list[A.HereDoc]) -> str:
        pad = _IND * level
        if isinstance(node, A.SimpleCommand):
            parts = [a.text for a in node.assigns] + [w.text for w in node.words]
            for r in node.redirs:
                parts.append(self.redir(r))
                if isinstance(r.target, A.HereDoc):
                    docs.append(r.target)
            return " ".join(parts)
        if isinstance(node, A.Pipeline):
            return self.pipeline(node, level, docs)
        if isinstance(node, A.AndOr):
            text = self.cmd(node.first, level, docs)
            for op, sub in node.rest:
                text += f" {op} " + self.cmd(sub, level, docs)
            return text
        if isinstance(node, A.CommandList):
            return self.items(node, level).strip()
        if isinstance(node, A.Subshell):
            return f"(\n{self.items(node.body, level + 1)}\n{pad})"
        if isinstance(node, A.Group):
            return f"{{ \n{self.items(node.body, level + 1)}\n{pad}}}"
        if isinstance(node, A.If):
            return self.if_(node, level)
        if isinstance(node, A.While):
            kw = "until" if node.until else "while"
            return (
                f"{kw} {self.inline(node.cond, level, 'do')}\n{self.items(node.body, level + 1)}\n{pad}done"
            )
        if isinstance(node, (A.For, A.Select)):
            kw = "for" if isinstance(node, A.For) else "select"
            words = "" if node.words is None else " in " + " ".join(x.text for x in node.words)
            return f"{kw} {node.var}{words};\n{pad}do\n{self.items(node.body, level + 1)}\n{pad}done"
        if isinstance(node, A.ArithFor):
            clauses = (node.init, node.cond, node.step)
            head = ";".join(w.text if w is not None else "" for w in clauses)
            return f"for (({head}))\n{pad}do\n{self.items(node.body, level + 1)}\n{pad}done"
        if isinstance(node, A.Case):
            return self.case(node, level)
        if isinstance(node, A.ArithCmd):
            return f"(({node.text}))"
        if isinstance(node, A.CondCmd):
            return f"[[ {self.cond(node.expr)} ]]"
        if isinstance(node, A.FuncDef):
            return self.func(node, level, docs)
        if isinstance(node, A.Coproc):
            name = "" if node.name == "COPROC" else node.name + " "
            return f"coproc {name}{self.cmd(node.body, level, docs)}"
        if isinstance(node, A.Redirected):
            text = self.cmd(node.body, level, docs)
            for x in node.redirs:
                if isinstance(x.target, A.HereDoc):
                    docs.append(x.target)
            return text + " " + " ".join(self.redir(x) for x in node.redirs)
        raise TypeError(f"unparse: unknown command node {type(node).__name__}")

    def pipeline(self, node: A.Pipeline, level: int, docs: list[A.HereDoc]) -> str:
        pieces = []
        for i, sub in enumerate(node.cmds):
            s = self.cmd(sub, level, docs)
            if i < len(node.stderr_links) and node.stderr_links[i]:
                s += " |&"
            elif i < len(node.cmds) - 1:
                s += " |"
            pieces.append(s)
        text = " ".join(pieces)
        if not (node.cmds or node.negate or node.timed):
            text = "! !"  # (an empty pipeline negated twice: bash shows nothing)
        if node.negate:
            text = "! " + text
        if node.timed:
            text = "time " + ("-p " if node.time_posix else "") + text
        return text

    def inline(self, lst: A.CommandList, level: int, keyword: str) -> str:
        """A condition and the keyword after it; it may hold here-documents or functions, so it
        keeps its lines."""
        return self.items(lst, level + 1).strip() + f"\n{_IND * level}{keyword}"

    def if_(self, node: A.If, level: int) -> str:
        pad = _IND * level
        first, rest = node.clauses[0], node.clauses[1:]
        text = f"if {self.inline(first.cond, level, 'then')}\n{self.items(first.body, level + 1)}\n"
        for clause in rest:
            text += (
                f"{pad}elif {self.inline(clause.cond, level, 'then')}\n{self.items(clause.body, level + 1)}\n"
            )
        if node.else_body is not None:
            text += f"{pad}else\n{self.items(node.else_body, level + 1)}\n"
        return text + f"{pad}fi"

    def case(self, node: A.Case, level: int) -> str:
        pad = _IND * level
        lines = [f"case {node.word.text} in "]
        for item in node.items:
            lines.append(f"{pad}{_IND}{' | '.join(p.text for p in item.patterns)})")
            lines.append(self.items(item.body, level + 2) if item.body is not None else "")
            lines.append(f"{pad}{_IND}{item.term}")
        lines.append(f"{pad}esac")
        return "\n".join(lines)

    def cond(self, c: A.Cond) -> str:
        # parentheses where the tree's shape needs them (&& binds tighter than ||; both lean left)
        if isinstance(c, A.CondAnd):
            return f"{self.cond_operand(c.left, A.CondOr)} && {self.cond_operand(c.right, (A.CondOr, A.CondAnd))}"
        if isinstance(c, A.CondOr):
            return f"{self.cond(c.left)} || {self.cond_operand(c.right, A.CondOr)}"
        if isinstance(c, A.CondNot):
            return f"! {self.cond_operand(c.operand, (A.CondAnd, A.CondOr))}"
        if isinstance(c, A.CondUnary):
            return f"{c.op} {c.operand.text}"
        if isinstance(c, A.CondBinary):
            return f"{c.left.text} {c.op} {c.right.text}"
        return c.word.text

    def cond_operand(self, c: A.Cond, grouped: type | tuple[type, ...]) -> str:
        text = self.cond(c)
        return f"( {text} )" if isinstance(c, grouped) else text

    def redir(self, r: A.Redir) -> str:
        fd = "{" + r.fd_var + "}" if r.fd_var is not None else ("" if r.fd is None else str(r.fd))
        if isinstance(r.target, A.HereDoc):
            return f"{fd}{r.op}{heredoc_delim(r.target)}"
        if r.op in (">&", "<&"):
            return f"{fd}{r.op}{r.target.text}"
        return f"{fd}{r.op} {r.target.text}"


_EXACT = _Printer()


def unparse_function(f: A.FuncDef) -> str:
    """A function as `declare -f` and `type` show it."""
    return function_text(f)


def unparse(node: A.Command) -> str:
    """A command in bash's canonical layout (as the jobs table and $BASH_COMMAND show it)."""
    return command_text(node)


def unparse_exact(node: A.Command) -> str:
    """Text that parses back to `node` (source positions and message texts aside)."""
    docs: list[A.HereDoc] = []
    text = _EXACT.cmd(node, 0, docs)
    if docs:
        text += "\n" + "".join(d.text + d.delim + "\n" for d in docs)
    return text
