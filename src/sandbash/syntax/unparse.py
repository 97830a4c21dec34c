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
            out.append(pad + text + ("" if last else ""))
            continue
        if item.background:
            out.append(pad + text + " &")
        else:
            out.append(pad + text + (";" if (not last or last_semi) else ""))
    return "\n".join(out)


def _cmd(node: A.Command, level: int, docs: list[A.HereDoc]) -> str:
    pad = _IND * level
    t = type(node)
    if t is A.SimpleCommand:
        sc: A.SimpleCommand = node  # type: ignore[assignment]
        parts = [a.text for a in sc.assigns] + [w.text for w in sc.words]
        for r in sc.redirs:
            parts.append(_redir(r))
            if isinstance(r.target, A.HereDoc):
                docs.append(r.target)
        return " ".join(parts)
    if t is A.Pipeline:
        p: A.Pipeline = node  # type: ignore[assignment]
        pieces = []
        for i, c in enumerate(p.cmds):
            s = _cmd(c, level, docs)
            if i < len(p.stderr_links) and p.stderr_links[i]:
                s += " 2>&1"
            pieces.append(s)
        text = " | ".join(pieces)
        if p.negate:
            text = "! " + text
        if p.timed:
            text = "time " + ("-p " if p.time_posix else "") + text
        return text
    if t is A.AndOr:
        ao: A.AndOr = node  # type: ignore[assignment]
        text = _cmd(ao.first, level, docs)
        for op, c in ao.rest:
            text += f" {op} " + _cmd(c, level, docs)
        return text
    if t is A.CommandList:
        return _list(node, level, False).strip()  # type: ignore[arg-type]
    if t is A.Subshell:
        body = _list(node.body, 0, False).replace("\n", " ")  # type: ignore[union-attr]
        return f"( {body} )"
    if t is A.Group:
        return f"{{ \n{_list(node.body, level + 1, False)}\n{pad}}}"  # type: ignore[union-attr]
    if t is A.If:
        return _if(node, level)  # type: ignore[arg-type]
    if t is A.While:
        w: A.While = node  # type: ignore[assignment]
        kw = "until" if w.until else "while"
        cond = _inline(w.cond)
        return f"{kw} {cond}; do\n{_list(w.body, level + 1, True)}\n{pad}done"
    if t is A.For:
        f: A.For = node  # type: ignore[assignment]
        words = "" if f.words is None else " in " + " ".join(x.text for x in f.words)
        return f"for {f.var}{words};\n{pad}do\n{_list(f.body, level + 1, True)}\n{pad}done"
    if t is A.ArithFor:
        af: A.ArithFor = node  # type: ignore[assignment]
        parts3 = [w.text.strip() if w is not None else "" for w in (af.init, af.cond, af.step)]
        return f"for (({parts3[0]}; {parts3[1]}; {parts3[2]}))\n{pad}do\n{_list(af.body, level + 1, True)}\n{pad}done"
    if t is A.Select:
        s_: A.Select = node  # type: ignore[assignment]
        words = "" if s_.words is None else " in " + " ".join(x.text for x in s_.words)
        return f"select {s_.var}{words};\n{pad}do\n{_list(s_.body, level + 1, True)}\n{pad}done"
    if t is A.Case:
        c: A.Case = node  # type: ignore[assignment]
        lines = [f"case {c.word.text} in "]
        for item in c.items:
            lines.append(f"{pad}{_IND}{' | '.join(p.text for p in item.patterns)})")
            if item.body is not None:
                lines.append(_list(item.body, level + 2, False))
            else:
                lines.append("")
            lines.append(f"{pad}{_IND}{item.term}")
        lines.append(f"{pad}esac")
        return "\n".join(lines)
    if t is A.ArithCmd:
        return f"(( {node.text.strip()} ))"  # type: ignore[union-attr]
    if t is A.CondCmd:
        return f"[[ {_cond(node.expr)} ]]"  # type: ignore[union-attr]
    if t is A.FuncDef:
        return _func(node, level, nested=True)  # type: ignore[arg-type]
    if t is A.Coproc:
        return f"coproc {node.name} {_cmd(node.body, level, docs)}"  # type: ignore[union-attr]
    if t is A.Redirected:
        r: A.Redirected = node  # type: ignore[assignment]
        for x in r.redirs:
            if isinstance(x.target, A.HereDoc):
                docs.append(x.target)
        return _cmd(r.body, level, docs) + " " + " ".join(_redir(x) for x in r.redirs)
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
