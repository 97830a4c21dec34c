"""bash's own layout of a command tree: what `declare -f`, `type` and the jobs table show.

This follows bash 5.2's print_cmd.c step by step rather than the tree's shape, because its output
depends on the printer's running state: here-document bodies met inside a list wait for the next
connector (so `if cat <<X; then` shows the body after the first command of `then`), a `;` is
left out after a body, `a & b` stays on one line. The tree is first rebuilt the way bash's parser
builds it (lists and `&&`/`||` lean left, pipelines lean right, `a; b &` backgrounds only `b`,
`elif` is an `if` inside `else`, `|&` is `2>&1 |`), then printed with the same state.

Words print as written, except that a `$(...)` or `<(...)` inside one shows its command re-printed
(bash 5.2 re-prints a command substitution when it parses it: `$(  echo   a )` is `$(echo a)`).
"""

from __future__ import annotations

from ..leanclass import Declared
from . import ast as A
from .continuations import without_continuations
from .escapes import ansi_decoded, ansi_scan
from .reserved import RESERVED as _RESERVED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same class, built without importing dataclasses (leanclass.py): the parser imports this
    from ..leanclass import dataclass, field

_AMOUNT = 4


@dataclass(slots=True)
class _Node(metaclass=Declared):
    """One of bash's COMMAND structures: a node with its flags and its own redirections, or a
    connection (`first CONNECTOR second`; second may be missing after `&`)."""

    node: A.Command | None
    redirs: list[A.Redir] = field(default_factory=list)
    first: _Node | None = None
    second: _Node | None = None
    connector: str = ""
    timed: bool = False
    time_posix: bool = False
    invert: bool = False


def _connect(first: _Node, second: _Node | None, connector: str) -> _Node:
    return _Node(None, first=first, second=second, connector=connector)


def _connect_async(cmd: _Node, second: _Node | None) -> _Node:
    """bash's connect_async_list: in `a; b & c` only the last command of the `;` list goes to the
    background, so `&` connects it (not the whole list) with what follows."""
    if cmd.node is not None or cmd.connector != ";" or cmd.second is None:
        return _connect(cmd, second, "&")
    parent, last = cmd, cmd.second
    while last.node is None and last.connector == ";" and last.second is not None:
        parent, last = last, last.second
    parent.second = _connect(last, second, "&")
    return cmd


def _build_list(lst: A.CommandList | None, comsub: bool) -> _Node | None:
    if lst is None or not lst.items:
        return None
    tree: _Node | None = None
    pending = ""  # the connector after the previous item
    for item in lst.items:
        node = _build(item.cmd, comsub)
        if tree is None:
            tree = node
        elif pending == "&":
            tree = _connect_async(tree, node)
        else:
            tree = _connect(tree, node, pending)
        pending = "&" if item.background else ("\n" if comsub and item.newline else ";")
    assert tree is not None
    if lst.items[-1].background:
        tree = _connect_async(tree, None)
    return tree


_STDERR_TO_STDOUT = A.Redir(">&", A.Word((A.Lit("1"),), text="1"), fd=2)


def _build(cmd: A.Command, comsub: bool) -> _Node:
    if isinstance(cmd, A.CommandList):
        built = _build_list(cmd, comsub)
        return built if built is not None else _Node(A.SimpleCommand((), (), ()))
    if isinstance(cmd, A.Pipeline):
        return _build_pipeline(cmd, comsub)
    if isinstance(cmd, A.AndOr):
        tree = _build(cmd.first, comsub)
        for op, sub in cmd.rest:
            tree = _connect(tree, _build(sub, comsub), op)
        return tree
    if isinstance(cmd, A.Redirected):
        inner = _build(cmd.body, comsub)
        inner.redirs.extend(cmd.redirs)
        return inner
    if isinstance(cmd, A.SimpleCommand):
        return _Node(cmd, list(cmd.redirs))
    return _Node(cmd)


def _build_pipeline(cmd: A.Pipeline, comsub: bool) -> _Node:
    stages = [_build(sub, comsub) for sub in cmd.cmds] or [_Node(A.SimpleCommand((), (), ()))]
    for i, linked in enumerate(cmd.stderr_links):
        if linked and i < len(stages):
            stages[i].redirs.append(_STDERR_TO_STDOUT)  # bash turns `a |& b` into `a 2>&1 | b`
    tree = stages[-1]
    for stage in reversed(stages[:-1]):
        tree = _connect(stage, tree, "|")
    tree.timed = tree.timed or cmd.timed
    tree.time_posix = tree.time_posix or cmd.time_posix
    tree.invert = tree.invert or cmd.negate
    return tree


class _Printer:
    """print_cmd.c's globals and functions, over one output buffer."""

    def __init__(self, comsub: bool = False) -> None:
        self.buf: list[str] = []
        self.indentation = 0
        self.amount = _AMOUNT  # (indentation_amount: 0 for a function's text in the environment)
        self.skip_indent = 0
        self.was_heredoc = False
        self.connection = 0
        self.deferred: list[A.Redir] = []
        self.in_function = 0
        self.comsub = comsub

    def text(self) -> str:
        return "".join(self.buf)

    def put(self, s: str) -> None:
        if s:
            self.buf.append(s)

    def last_char(self) -> str:
        for chunk in reversed(self.buf):
            if chunk:
                return chunk[-1]
        return ""

    def indent(self) -> None:
        self.put(" " * self.indentation)

    def newline(self, s: str) -> None:
        self.put("\n")
        self.indent()
        self.put(s)

    def semicolon(self) -> None:
        if self.last_char() not in ("&", "\n"):
            self.put(";")

    # ------------------------------------------------------------ commands

    def command(self, cmd: _Node | None) -> None:
        if cmd is None:
            return
        if self.skip_indent:
            self.skip_indent -= 1
        else:
            self.indent()
        if cmd.timed:
            self.put("time -p " if cmd.time_posix else "time ")
        if cmd.invert:
            self.put("! ")
        if cmd.node is None:
            self.connection_(cmd)
        else:
            self.compound(cmd.node, cmd)
        if cmd.redirs and not isinstance(cmd.node, A.SimpleCommand):
            self.put(" ")
            self.redirections(cmd.redirs)

    def connection_(self, cmd: _Node) -> None:
        self.skip_indent += 1
        self.connection += 1
        self.command(cmd.first)
        c = cmd.connector
        if c in ("&", "|"):
            self.flush_heredocs(" " + c)
            if c != "&" or cmd.second is not None:
                self.put(" ")
                self.skip_indent += 1
        elif c in ("&&", "||"):
            self.flush_heredocs(f" {c} ")
            if cmd.second is not None:
                self.skip_indent += 1
        else:
            self.list_connector(cmd, c)
        self.command(cmd.second)
        if self.deferred:
            self.flush_heredocs("")
        self.connection -= 1

    def list_connector(self, cmd: _Node, c: str) -> None:
        sep = c if self.comsub else ";"
        was_newline = not self.deferred and not self.was_heredoc and c == "\n"
        if not self.deferred:
            if not self.was_heredoc:
                self.put(sep)
            else:
                self.was_heredoc = False
        else:
            self.flush_heredocs("" if self.in_function else ";")
        if self.in_function:
            self.put("\n")
        elif self.comsub and c == "\n" and not was_newline:
            self.put("\n")  # (bash keeps a comsub's newlines without doubling one after a body)
        else:
            if c == ";":
                self.put(" ")
            if cmd.second is not None:
                self.skip_indent += 1

    def compound(self, node: A.Command, cmd: _Node) -> None:
        if isinstance(node, A.SimpleCommand):
            self.simple(node, cmd.redirs)
        elif isinstance(node, (A.For, A.Select)):
            kw = "for" if isinstance(node, A.For) else "select"
            words = ('"$@"',) if node.words is None else tuple(word_text(w) for w in node.words)
            self.put(f"{kw} {node.var} in " + " ".join(words) + ";")
            self.loop_body(node.body)
        elif isinstance(node, A.ArithFor):
            clauses = (node.init, node.cond, node.step)
            head = "; ".join((w.text.lstrip() if w is not None else "") or "1" for w in clauses)
            self.put(f"for (({head}))")
            self.loop_body(node.body)
        elif isinstance(node, A.Case):
            self.case(node)
        elif isinstance(node, A.While):
            self.while_(node)
        elif isinstance(node, A.If):
            self.if_(node.clauses, node.else_body)
        elif isinstance(node, A.ArithCmd):
            self.put(f"(({_with_comsubs(node.text, node.word.parts)}))")  # (as written: `((y = 5))`)
        elif isinstance(node, A.CondCmd):
            self.put(f"[[ {cond_text(node.expr)} ]]")
        elif isinstance(node, A.FuncDef):
            self.function(node)
        elif isinstance(node, A.Group):
            self.group(node)
        elif isinstance(node, A.Subshell):
            self.put("( ")
            self.skip_indent += 1
            self.command(_build_list(node.body, self.comsub))
            if self.deferred:
                self.flush_heredocs("")
            self.put(" )")
        elif isinstance(node, A.Coproc):
            self.put(f"coproc {node.name} ")
            self.skip_indent += 1
            self.command(_build(node.body, self.comsub))
        else:  # a list, pipeline or and-or list here was rebuilt into connections by _build
            raise TypeError(f"bashprint: unexpected node {type(node).__name__}")

    def body(self, lst: A.CommandList | None) -> None:
        self.command(_build_list(lst, self.comsub))
        if self.deferred:
            self.flush_heredocs("")

    def loop_body(self, lst: A.CommandList) -> None:
        self.newline("do\n")
        self.indentation += self.amount
        self.body(lst)
        self.semicolon()
        self.indentation -= self.amount
        self.newline("done")

    def group(self, node: A.Group) -> None:
        self.put("{ ")
        if not self.in_function:
            self.skip_indent += 1
        else:  # a group inside a function is shown on several lines
            self.put("\n")
            self.indentation += self.amount
        self.body(node.body)
        if self.in_function:
            self.put("\n")
            self.indentation -= self.amount
            self.indent()
        else:
            self.semicolon()
            self.put(" ")
        self.put("}")

    def case(self, node: A.Case) -> None:
        self.put(f"case {word_text(node.word)} in ")
        self.indentation += self.amount
        for item in node.items:
            self.newline("")
            self.put(" | ".join(word_text(p) for p in item.patterns) + ")\n")
            self.indentation += self.amount
            self.command(_build_list(item.body, self.comsub))
            self.indentation -= self.amount
            if self.deferred:
                self.flush_heredocs("")
            self.newline(item.term)
        self.indentation -= self.amount
        self.newline("esac")

    def while_(self, node: A.While) -> None:
        self.put("until " if node.until else "while ")
        self.skip_indent += 1
        self.body(node.cond)
        self.semicolon()
        self.put(" do\n")
        self.indentation += self.amount
        self.body(node.body)
        self.indentation -= self.amount
        self.semicolon()
        self.newline("done")

    def if_(self, clauses: tuple[A.IfClause, ...], else_body: A.CommandList | None) -> None:
        first, rest = clauses[0], clauses[1:]
        self.put("if ")
        self.skip_indent += 1
        # (no flush of here-documents after the condition: bash shows them after `then`'s first command)
        self.command(_build_list(first.cond, self.comsub))
        self.semicolon()
        self.put(" then\n")
        self.indentation += self.amount
        self.body(first.body)
        self.indentation -= self.amount
        if rest or else_body is not None:
            self.semicolon()
            self.newline("else\n")
            self.indentation += self.amount
            if rest:  # elif: an `if` inside `else`
                self.indent()
                self.if_(rest, else_body)
                if self.deferred:
                    self.flush_heredocs("")
            else:
                self.body(else_body)
            self.indentation -= self.amount
        self.semicolon()
        self.newline("fi")

    def function(self, f: A.FuncDef) -> None:
        """A function defined inside the command being printed (print_function_def)."""
        self.put(f"function {f.name} () \n")
        self.indent()
        self.put("{ \n")
        self.in_function += 1
        self.indentation += self.amount
        body, redirs = _function_parts(f, self.comsub)
        self.command(body)
        if self.deferred:
            self.flush_heredocs("")
        self.indentation -= self.amount
        self.in_function -= 1
        self.close_function(redirs)

    def close_function(self, redirs: tuple[A.Redir, ...]) -> None:
        if redirs:
            self.newline("} ")
            self.redirections(list(redirs))
        else:
            self.newline("}")
            self.was_heredoc = False

    def simple(self, node: A.SimpleCommand, redirs: list[A.Redir]) -> None:
        words = [assign_text(a) for a in node.assigns] + [word_text(w) for w in node.words]
        self.put(" ".join(words))
        if redirs:
            if words:
                self.put(" ")
            self.redirections(redirs)

    # ------------------------------------------------------------ redirections

    def redirections(self, redirs: list[A.Redir]) -> None:
        """print_redirection_list: here-document headers in place, their bodies after the other
        redirections, or after the next connector when a list is being printed."""
        docs: list[A.Redir] = []
        self.was_heredoc = False
        for i, r in enumerate(redirs):
            if isinstance(r.target, A.HereDoc):
                self.put(heredoc_header(r, r.target))
                docs.append(r)
            else:
                self.put(redir_text(r))
            if i < len(redirs) - 1:
                self.put(" ")
        if docs and self.connection:
            self.deferred = docs
        elif docs:
            self.heredoc_bodies(docs)

    def heredoc_bodies(self, docs: list[A.Redir]) -> None:
        self.put("\n")
        for r in docs:
            assert isinstance(r.target, A.HereDoc)
            self.put(r.target.text + r.target.delim + "\n")
        self.was_heredoc = True

    def flush_heredocs(self, connector: str) -> None:
        """print_deferred_heredocs: the connector, then the waiting bodies (a bare `;` is left out)."""
        shown = bool(connector) and connector != ";"
        if shown:
            self.put(connector)
        if self.deferred:
            self.heredoc_bodies(self.deferred)
            if shown:
                self.put(" ")
            self.was_heredoc = True
        self.deferred = []


def _function_parts(f: A.FuncDef, comsub: bool) -> tuple[_Node, tuple[A.Redir, ...]]:
    """A function's body as printed inside its braces, and the redirections shown after them."""
    body: A.Command = f.body
    redirs: tuple[A.Redir, ...] = ()
    if isinstance(body, A.Redirected) and isinstance(body.body, A.Group):
        redirs = body.redirs
        body = body.body
    if isinstance(body, A.Group):
        body = body.body  # (a body of another kind is shown inside braces with its redirections)
    return _build(body, comsub), redirs


# ---------------------------------------------------------------- words and redirections


def heredoc_header(r: A.Redir, doc: A.HereDoc) -> str:
    fd = "{" + r.fd_var + "}" if r.fd_var is not None else ("" if not r.fd else str(r.fd))
    return f"{fd}{r.op}{heredoc_delim(doc)}"


def heredoc_delim(doc: A.HereDoc) -> str:
    """The delimiter as bash prints it: single-quoted when any of it was quoted."""
    return "'" + doc.delim.replace("'", "'\\''") + "'" if doc.quoted else doc.delim


_DEFAULT_FD = {"<": 0, "<>": 0, "<<<": 0, "<<": 0, "<<-": 0, "<&": 0, ">": 1, ">>": 1, ">|": 1, ">&": 1}


def redir_text(r: A.Redir) -> str:
    assert isinstance(r.target, A.Word)
    fd = "{" + r.fd_var + "}" if r.fd_var is not None else _redirector(r)
    target = word_text(r.target)
    if r.op in (">&", "<&"):
        if target == "-":
            return f"{fd}>&-"  # bash's r_close_this prints `<&-` as `0>&-`
        return f"{fd}{r.op}{target}"
    return f"{fd}{r.op} {target}"


def _redirector(r: A.Redir) -> str:
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


def cond_text(c: A.Cond) -> str:
    # parentheses where the tree's shape needs them (&& binds tighter than ||; both lean left)
    if isinstance(c, A.CondAnd):
        return f"{_cond_operand(c.left, A.CondOr)} && {_cond_operand(c.right, (A.CondOr, A.CondAnd))}"
    if isinstance(c, A.CondOr):
        return f"{cond_text(c.left)} || {_cond_operand(c.right, A.CondOr)}"
    if isinstance(c, A.CondNot):
        return f"! {_cond_operand(c.operand, (A.CondAnd, A.CondOr))}"
    if isinstance(c, A.CondUnary):
        return f"{c.op} {word_text(c.operand)}"
    if isinstance(c, A.CondBinary):
        return f"{word_text(c.left)} {c.op} {word_text(c.right)}"
    return f"-n {word_text(c.word)}"  # bash shows a lone word as -n


def _cond_operand(c: A.Cond, grouped: type | tuple[type, ...]) -> str:
    text = cond_text(c)
    return f"( {text} )" if isinstance(c, grouped) else text


def word_text(w: A.Word) -> str:
    if len(w.parts) == 1 and isinstance(w.parts[0], A.AssignWord) and w.parts[0].assign.array is not None:
        return assign_text(w.parts[0].assign)  # (`declare a=( x )`)
    return _with_comsubs(w.text, w.parts, ansi=True)


def assign_text(a: A.Assign) -> str:
    """An assignment as bash 5.2 stores it: a compound one re-joined (`a=( x   y )` is `a=(x y)`)."""
    if a.array is None:
        return _with_comsubs(a.text, () if a.value is None else a.value.parts, ansi=True)
    items = []
    for item in a.array:
        value = word_text(item.value)
        if item.key is not None:
            value = f"[{item.key.text}]{'+=' if item.append else '='}{value}"
        items.append(value)
    head = a.text[: a.text.index("=(") + 2] if "=(" in a.text else f"{a.name}{'+' if a.append else ''}=("
    return head + " ".join(items) + ")"


def _with_comsubs(text: str, parts: tuple[A.Part, ...], ansi: bool = False) -> str:
    """`text` with each `$(...)`/`<(...)` of `parts` re-printed as bash 5.2's parser stores it;
    `ansi`: a word's, whose $'...' outside them bash stores single-quoted (escapes.ansi_decoded)."""
    subs: list[A.CmdSub | A.ProcSub] = []
    _collect_subs(parts, subs)
    if not subs:
        return ansi_decoded(text) if ansi else text
    out: list[str] = []
    pos = 0
    in_dq = False  # (a piece after a `$( )` may be inside the double quotes the word opened)

    def outside(piece: str) -> str:
        nonlocal in_dq
        if not ansi:
            return piece
        piece, in_dq = ansi_scan(piece, in_dq)
        return piece

    for sub in subs:
        opener = "$(" if isinstance(sub, A.CmdSub) else sub.direction + "("
        written = f"{opener}{without_continuations(sub.text)})"  # (as the word's text keeps it)
        at = text.find(written, pos)
        if at < 0:
            continue  # (not written in this text as read: leave it as it is)
        printed = comsub_text(sub.body)
        if printed.startswith("("):
            printed = " " + printed  # (so that it does not read as arithmetic)
        out.append(outside(text[pos:at]) + f"{opener}{printed})")
        pos = at + len(written)
    out.append(outside(text[pos:]))
    return "".join(out)


def _collect_subs(parts: tuple[A.Part, ...], out: list[A.CmdSub | A.ProcSub]) -> None:
    for p in parts:
        if isinstance(p, A.CmdSub):
            if not p.backtick:
                out.append(p)
        elif isinstance(p, A.ProcSub):
            out.append(p)
        elif isinstance(p, A.DQ):
            _collect_subs(p.parts, out)
        elif isinstance(p, A.Param) and p.op is not None:
            for arg in (p.op.arg, p.op.arg2):
                if isinstance(arg, A.Word):
                    _collect_subs(arg.parts, out)
        elif isinstance(p, A.AssignWord) and p.assign.value is not None:
            _collect_subs(p.assign.value.parts, out)
        elif isinstance(p, (A.Brace, A.ExtGlob)):
            for alt in p.alts:
                _collect_subs(alt, out)


def comsub_written(sub: A.CmdSub) -> str:
    """A command substitution as bash 5.2 keeps it in its word: `$( )` re-printed (print_comsub),
    backquotes as read."""
    if sub.backtick:
        return f"`{sub.text}`"
    printed = comsub_text(sub.body)
    return f"$( {printed})" if printed.startswith("(") else f"$({printed})"


def comsub_text(body: A.CommandList) -> str:
    """A command substitution's command as bash 5.2 re-prints it (print_comsub)."""
    p = _Printer(comsub=True)
    p.command(_build_list(body, True))
    if p.deferred:
        p.flush_heredocs("")
    return p.text()


# ---------------------------------------------------------------- entry points


def function_text(f: A.FuncDef) -> str:
    """A function as `declare -f` and `type` show it (named_function_string)."""
    p = _Printer()
    head = ("function " if f.name in _RESERVED else "") + f"{f.name} () \n"
    p.put(head)
    p.indentation = _AMOUNT
    p.in_function = 1
    p.put("{ \n")
    return _function_rest(p, f)


def exported_function_text(f: A.FuncDef) -> str:
    """A function's value in the environment of commands (`export -f f`: BASH_FUNC_f%%), bash's
    named_function_string without a name or FUNC_MULTILINE: `() {  body` with every line indented
    one space, then `}` on a line of its own (with the function's redirections)."""
    p = _Printer()
    p.put("() { ")
    p.indentation = 1
    p.amount = 0
    p.in_function = 1
    return _function_rest(p, f)


def _function_rest(p: _Printer, f: A.FuncDef) -> str:
    """The body of `f`, its closing `}` and redirections, after the printer put its head: the
    layout (indentation, in_function) is the caller's."""
    body, redirs = _function_parts(f, False)
    p.command(body)
    if p.deferred:
        p.flush_heredocs("")
    p.indentation = 0
    p.in_function = 0
    p.close_function(redirs)
    return p.text()


def command_text(cmd: A.Command) -> str:
    """A command as bash shows it outside a function (make_command_string: jobs, $BASH_COMMAND)."""
    p = _Printer()
    p.command(_build(cmd, False))
    return p.text()
