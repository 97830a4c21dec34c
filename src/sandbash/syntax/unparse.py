"""Turn a syntax tree back into text.

Two layouts share one printer:
- bash's canonical layout (`unparse`, `unparse_function`): what `declare -f` and `type` print. It
  is lossy the way bash's is: `elif` becomes a nested `if`, `|&` becomes `2>&1 |`, a function's
  body is always shown in braces, arithmetic loses its outer blanks.
- the exact layout (`unparse_exact`): text that parses back to the same tree, apart from source
  positions and the source texts kept for messages (`parse(unparse_exact(t))` equals `t` up to
  those; tests/unit/syntax/test_roundtrip.py checks it).
"""

from __future__ import annotations

from . import ast as A

_IND = "    "


class _Printer:
    __slots__ = ("exact",)

    def __init__(self, exact: bool) -> None:
        self.exact = exact

    def func(self, f: A.FuncDef, level: int, nested: bool, docs: list[A.HereDoc]) -> str:
        pad = _IND * level
        if self.exact:
            head = ("function " if f.keyword else "") + f"{f.name} () "
            return head + self.cmd(f.body, level, docs)
        head = ("function " if nested else "") + f"{f.name} () "
        body = f.body
        redirs: tuple[A.Redir, ...] = ()
        if isinstance(body, A.Redirected) and isinstance(body.body, A.Group):
            # (a body of another kind is shown in braces with its redirections inside)
            redirs = body.redirs
            body = body.body
        if isinstance(body, A.Group):
            text = f"{head}\n{pad}{{ \n{self.items(body.body, level + 1, last_semi=False)}\n{pad}}}"
        else:
            text = f"{head}\n{pad}{{ \n{pad}{_IND}{self.cmd(body, level + 1, [])}\n{pad}}}"
        if redirs:
            text += " " + " ".join(self.redir(r) for r in redirs)
        return text

    def items(self, lst: A.CommandList, level: int, last_semi: bool) -> str:
        pad = _IND * level
        out: list[str] = []
        n = len(lst.items)
        for i, item in enumerate(lst.items):
            docs: list[A.HereDoc] = []
            text = self.cmd(item.cmd, level, docs)
            last = i == n - 1
            if docs:
                if item.background:
                    text += " &"
                elif self.exact and (not last or last_semi):
                    text += ";"
                text += "\n" + "".join(d.text + d.delim + "\n" for d in docs)
                out.append(pad + text)
                continue
            if item.background:
                out.append(pad + text + " &")
            else:
                out.append(pad + text + (";" if (not last or last_semi) else ""))
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
            return self.items(node, level, False).strip()
        if isinstance(node, A.Subshell):
            if self.exact:  # one item a line: here-documents and functions inside keep their layout
                return f"(\n{self.items(node.body, level + 1, False)}\n{pad})"
            return "( " + self.items(node.body, level, False).lstrip() + " )"
        if isinstance(node, A.Group):
            return f"{{ \n{self.items(node.body, level + 1, False)}\n{pad}}}"
        if isinstance(node, A.If):
            return self.if_(node, level)
        if isinstance(node, A.While):
            kw = "until" if node.until else "while"
            return f"{kw} {self.inline(node.cond, level, 'do')}\n{self.items(node.body, level + 1, True)}\n{pad}done"
        if isinstance(node, (A.For, A.Select)):
            kw = "for" if isinstance(node, A.For) else "select"
            words = "" if node.words is None else " in " + " ".join(x.text for x in node.words)
            return f"{kw} {node.var}{words};\n{pad}do\n{self.items(node.body, level + 1, True)}\n{pad}done"
        if isinstance(node, A.ArithFor):
            clauses = (node.init, node.cond, node.step)
            if self.exact:
                head = ";".join(w.text if w is not None else "" for w in clauses)
            else:  # as bash shows them: each without its leading blanks, an empty one as 1
                head = "; ".join((w.text.lstrip() if w is not None else "") or "1" for w in clauses)
            return f"for (({head}))\n{pad}do\n{self.items(node.body, level + 1, True)}\n{pad}done"
        if isinstance(node, A.Case):
            return self.case(node, level)
        if isinstance(node, A.ArithCmd):
            return f"(({node.text}))" if self.exact else f"(( {node.text.strip()} ))"
        if isinstance(node, A.CondCmd):
            return f"[[ {self.cond(node.expr)} ]]"
        if isinstance(node, A.FuncDef):
            return self.func(node, level, True, docs)
        if isinstance(node, A.Coproc):
            name = "" if self.exact and node.name == "COPROC" else node.name + " "
            return f"coproc {name}{self.cmd(node.body, level, docs)}"
        if isinstance(node, A.Redirected):
            text = self.cmd(node.body, level, docs)
            for x in node.redirs:
                if isinstance(x.target, A.HereDoc):
                    docs.append(x.target)
            return text + " " + " ".join(self.redir(x) for x in node.redirs)
        raise TypeError(f"unparse: unknown command node {type(node).__name__}")

    def arith_text(self, text: str) -> str:
        return text if self.exact else text.strip()

    def pipeline(self, node: A.Pipeline, level: int, docs: list[A.HereDoc]) -> str:
        pieces = []
        for i, sub in enumerate(node.cmds):
            s = self.cmd(sub, level, docs)
            if i < len(node.stderr_links) and node.stderr_links[i]:
                s += " |&" if self.exact else " 2>&1 |"
            elif i < len(node.cmds) - 1:
                s += " |"
            pieces.append(s)
        text = " ".join(pieces)
        if self.exact and not (node.cmds or node.negate or node.timed):
            text = "! !"  # (an empty pipeline negated twice: bash shows nothing)
        if node.negate:
            text = "! " + text
        if node.timed:
            text = "time " + ("-p " if node.time_posix else "") + text
        return text

    def inline(self, lst: A.CommandList, level: int, keyword: str) -> str:
        """A condition and the keyword after it, each command ended by `;` or `&` (`if a & then`)."""
        if self.exact:  # a condition may hold here-documents or functions: keep its lines
            return self.items(lst, level + 1, True).strip() + f"\n{_IND * level}{keyword}"
        return (
            " ".join(self.cmd(i.cmd, 0, []) + (" &" if i.background else ";") for i in lst.items)
            + " "
            + keyword
        )

    def if_(self, node: A.If, level: int) -> str:
        pad = _IND * level
        first, rest = node.clauses[0], node.clauses[1:]
        text = f"if {self.inline(first.cond, level, 'then')}\n{self.items(first.body, level + 1, True)}\n"
        if self.exact:
            for clause in rest:
                text += f"{pad}elif {self.inline(clause.cond, level, 'then')}\n{self.items(clause.body, level + 1, True)}\n"
            if node.else_body is not None:
                text += f"{pad}else\n{self.items(node.else_body, level + 1, True)}\n"
        elif rest:
            nested = A.If(rest, node.else_body, node.line)
            text += f"{pad}else\n{pad}{_IND}{self.if_(nested, level + 1)};\n"
        elif node.else_body is not None:
            text += f"{pad}else\n{self.items(node.else_body, level + 1, True)}\n"
        return text + f"{pad}fi"

    def case(self, node: A.Case, level: int) -> str:
        pad = _IND * level
        lines = [f"case {node.word.text} in "]
        for item in node.items:
            lines.append(f"{pad}{_IND}{' | '.join(p.text for p in item.patterns)})")
            lines.append(self.items(item.body, level + 2, False) if item.body is not None else "")
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
        return c.word.text if self.exact else f"-n {c.word.text}"  # bash shows a lone word as -n

    def cond_operand(self, c: A.Cond, grouped: type | tuple[type, ...]) -> str:
        text = self.cond(c)
        return f"( {text} )" if isinstance(c, grouped) else text

    def redir(self, r: A.Redir) -> str:
        fd = "" if r.fd is None else str(r.fd)
        if not self.exact:
            fd = _bash_redirector(r)
        if r.fd_var is not None:
            fd = "{" + r.fd_var + "}"
        if isinstance(r.target, A.HereDoc):
            quoted = f"'{r.target.delim}'" if r.target.quoted else r.target.delim
            return f"{fd}{r.op}{quoted}"
        if r.op in (">&", "<&"):
            if r.target.text == "-" and not self.exact:
                return f"{fd}>&-"  # bash's r_close_this prints `<&-` as `0>&-`
            return f"{fd}{r.op}{r.target.text}"
        return f"{fd}{r.op} {r.target.text}"


_DEFAULT_FD = {"<": 0, "<>": 0, "<<<": 0, "<<": 0, "<<-": 0, "<&": 0, ">": 1, ">>": 1, ">|": 1, ">&": 1}


def _bash_redirector(r: A.Redir) -> str:
    """The fd as bash's print_redirection shows it: the default one is left out, except that a
    duplication or close by number (`>&2`, `<&3`, `>&4-`, `<&-`) always names it (`1>&2`)."""
    default = _DEFAULT_FD.get(r.op)
    fd = default if r.fd is None else r.fd
    if fd is None:
        return ""
    if r.op in (">&", "<&") and isinstance(r.target, A.Word):
        t = r.target.text
        if t == "-" or (t.rstrip("-").isdigit() and t.count("-") <= 1):
            return str(fd)
    if r.op == "<>":
        default = 1  # (bash 5.2 prints `<>`'s fd unless it is 1: `<>x` shows as `0<> x`)
    return "" if fd == default else str(fd)


_BASH = _Printer(exact=False)
_EXACT = _Printer(exact=True)


def unparse_function(f: A.FuncDef) -> str:
    """A function as `declare -f` shows it."""
    return _BASH.func(f, 0, nested=False, docs=[])


def unparse(node: A.Command) -> str:
    """A command in bash's canonical layout (as `declare -f` shows it inside a function)."""
    return _BASH.cmd(node, 0, [])


def unparse_exact(node: A.Command) -> str:
    """Text that parses back to `node` (source positions and message texts aside)."""
    docs: list[A.HereDoc] = []
    text = _EXACT.cmd(node, 0, docs)
    if docs:
        text += "\n" + "".join(d.text + d.delim + "\n" for d in docs)
    return text
