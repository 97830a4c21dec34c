"""The `select` loop (prompting on stderr, reading stdin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..syntax import ast as A

if TYPE_CHECKING:
    from ..interp.shell import Shell


def _menu(items: list[str]) -> str:
    width = len(str(len(items)))
    return "".join(f"{i + 1:>{width}}) {item}\n" for i, item in enumerate(items))


def select_loop(sh: Shell, node: A.Select) -> int:
    st = sh.state
    st.line = node.line
    try:
        items = list(st.positional) if node.words is None else sh.expander.words(node.words)
    except ExpansionError as e:
        return sh.expansion_failed(e)
    except ArithError as e:
        return sh.expansion_failed(ExpansionError(e.render(), 1))
    if not items:
        return 0
    status = 0
    count = 0
    st.loop_depth += 1
    try:
        show_menu = True
        while True:
            count += 1
            sh.ev._loop_guard(count)
            if show_menu:
                sh.write_err(_menu(items))
            sh.write_err(sh.get_str("PS3") or "#? ")
            stream = st.fds.get(0)
            line = stream.readline(b"\n", sh.rt.limits.max_string_length) if stream is not None and stream.readable else b""
            if not line:
                sh.out("\n")
                status = 1
                break
            reply = line.decode("utf-8", "surrogateescape").rstrip("\n")
            sh.set_var("REPLY", reply)
            if not reply.strip():
                show_menu = True
                continue
            show_menu = False
            choice = reply.strip()
            value = items[int(choice) - 1] if choice.isdigit() and 1 <= int(choice) <= len(items) else ""
            sh.set_var(node.var, value)
            status, flow = sh.ev._run_body(node.body)
            if flow == "break":
                break
    finally:
        st.loop_depth -= 1
    st.last_status = status
    return status
