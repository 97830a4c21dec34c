"""Turn a syntax tree back into text, in bash's canonical layout
(what `declare -f` and `type` print)."""

from __future__ import annotations

from . import ast as A

_IND = "    "


def unparse_function(f: A.FuncDef) -> str:
    return _func(f, 0, nested=False)


def unparse(node: A.Command) -> str:
    return _cmd(node, 0, [])


def _func(f: A.FuncDef, level: int, nested: bool) -> str:
    head = ("function " if nested else "") + f"{f.name} () "
    body = f.body
    redirs: tuple[A.Redir, ...] = ()
    if isinstance(body, A.Redirected):
        redirs = body.redirs
        body = body.body
    pad = _IND * level
    if isinstance(body, A.Group):
        text = f"{head}\n{pad}{{ \n{_list(body.body, level + 1, last_semi=False)}\n{pad}}}"
    else:
        text = f"{head}\n{pad}{{ \n{pad}{_IND}{_cmd(body, level + 1, [])}\n{pad}}}"
    if redirs:
        text += " " + " ".join(_redir(r) for r in redirs)
    return text


def _list(lst: A.CommandList, level: int, last_semi: bool) -> str:
    pad = _IND * level
    out: list[str] = []
    n = len(lst.items)
    for i, item in enumerate(lst.items):
        docs: list[A.HereDoc] = []
        text = _cmd(item.cmd, level, docs)
        last = i == n - 1
        if docs:
            text += "\n" + "".join(d.text + d.delim + "\n" for d in docs)
            out.append(pad + text)
            continue
        if item.background:
            out.append(pad + text + " &")
        else:
            out.append(pad + text + (";" if (not last or last_semi) else ""))
    return "\n".join(out)


def _cmd(node: A.Command, level: int, docs: list[A.HereDoc]) -> str:
    pad = _IND * level
    if isinstance(node, A.SimpleCommand):
        parts = [a.text for a in node.assigns] + [w.text for w in node.words]
        for r in node.redirs:
            parts.append(_redir(r))
            if isinstance(r.target, A.HereDoc):
                docs.append(r.target)
        return " ".join(parts)
    if isinstance(node, A.Pipeline):
        pieces = []
        for i, sub in enumerate(node.cmds):
            s = _cmd(sub, level, docs)
            if i < len(node.stderr_links) and node.stderr_links[i]:
                s += " 2>&1"
            pieces.append(s)
        text = " | ".join(pieces)
        if node.negate:
            text = "! " + text
        if node.timed:
            text = "time " + ("-p " if node.time_posix else "") + text
        return text
    if isinstance(node, A.AndOr):
        text = _cmd(node.first, level, docs)
        for op, sub in node.rest:
            text += f" {op} " + _cmd(sub, level, docs)
        return text
    if isinstance(node, A.CommandList):
        return _list(node, level, False).strip()
    if isinstance(node, A.Subshell):
        return "( " + _list(node.body, 0, False).replace("\n", " ") + " )"
    if isinstance(node, A.Group):
        return f"{{ \n{_list(node.body, level + 1, False)}\n{pad}}}"
    if isinstance(node, A.If):
        return _if(node, level)
    if isinstance(node, A.While):
        kw = "until" if node.until else "while"
        return f"{kw} {_inline(node.cond)}; do\n{_list(node.body, level + 1, True)}\n{pad}done"
    if isinstance(node, (A.For, A.Select)):
        kw = "for" if isinstance(node, A.For) else "select"
        words = "" if node.words is None else " in " + " ".join(x.text for x in node.words)
        return f"{kw} {node.var}{words};\n{pad}do\n{_list(node.body, level + 1, True)}\n{pad}done"
    if isinstance(node, A.ArithFor):
        p3 = [w.text.strip() if w is not None else "" for w in (node.init, node.cond, node.step)]
        return f"for (({p3[0]}; {p3[1]}; {p3[2]}))\n{pad}do\n{_list(node.body, level + 1, True)}\n{pad}done"
    if isinstance(node, A.Case):
        lines = [f"case {node.word.text} in "]
        for item in node.items:
            lines.append(f"{pad}{_IND}{' | '.join(p.text for p in item.patterns)})")
            lines.append(_list(item.body, level + 2, False) if item.body is not None else "")
            lines.append(f"{pad}{_IND}{item.term}")
        lines.append(f"{pad}esac")
        return "\n".join(lines)
    if isinstance(node, A.ArithCmd):
        return f"(( {node.text.strip()} ))"
    if isinstance(node, A.CondCmd):
        return f"[[ {_cond(node.expr)} ]]"
    if isinstance(node, A.FuncDef):
        return _func(node, level, nested=True)
    if isinstance(node, A.Coproc):
        return f"coproc {node.name} {_cmd(node.body, level, docs)}"
    if isinstance(node, A.Redirected):
        for x in node.redirs:
            if isinstance(x.target, A.HereDoc):
                docs.append(x.target)
        return _cmd(node.body, level, docs) + " " + " ".join(_redir(x) for x in node.redirs)
    return ""


def _inline(lst: A.CommandList) -> str:
    return "; ".join(_cmd(i.cmd, 0, []) + (" &" if i.background else "") for i in lst.items)


def _if(node: A.If, level: int) -> str:
    pad = _IND * level
    first, rest = node.clauses[0], node.clauses[1:]
    text = f"if {_inline(first.cond)}; then\n{_list(first.body, level + 1, True)}\n"
    if rest:
        nested = A.If(rest, node.else_body, node.line)
        text += f"{pad}else\n{pad}{_IND}{_if(nested, level + 1)};\n"
    elif node.else_body is not None:
        text += f"{pad}else\n{_list(node.else_body, level + 1, True)}\n"
    return text + f"{pad}fi"


def _cond(c: A.Cond) -> str:
    if isinstance(c, A.CondAnd):
        return f"{_cond(c.left)} && {_cond(c.right)}"
    if isinstance(c, A.CondOr):
        return f"{_cond(c.left)} || {_cond(c.right)}"
    if isinstance(c, A.CondNot):
        return f"! {_cond(c.operand)}"
    if isinstance(c, A.CondUnary):
        return f"{c.op} {c.operand.text}"
    if isinstance(c, A.CondBinary):
        return f"{c.left.text} {c.op} {c.right.text}"
    return c.word.text


def _redir(r: A.Redir) -> str:
    fd = "" if r.fd is None else str(r.fd)
    if r.fd_var is not None:
        fd = "{" + r.fd_var + "}"
    if isinstance(r.target, A.HereDoc):
        quoted = f"'{r.target.delim}'" if r.target.quoted else r.target.delim
        return f"{fd}{r.op}{quoted}"
    if r.op in (">&", "<&"):
        return f"{fd}{r.op}{r.target.text}"
    return f"{fd}{r.op} {r.target.text}"
