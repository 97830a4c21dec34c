"""Line continuations (backslash-newline) as bash's reader drops them.

bash removes a backslash-newline wherever its reader reads outside single quotes, before it splits
tokens, so the text it keeps of a word (`declare -f`, the word named in a message) has none, except
where a quote keeps it: inside '...' and $'...' (where single quotes quote: outside double quotes,
and inside the `$( )` and `${ }` met in them) and in a comment of a `$( )`. Measured with bash 5.2:
`"$(echo 'a\\<nl>b')"` and `"${x#'a\\<nl>b'}"` keep it; `"'a\\<nl>b'"`, `"$'a\\<nl>b'"`,
`` `echo 'a\\<nl>b'` `` and `"${x:-"'a\\<nl>b'"}"` lose it.
"""

from __future__ import annotations

# the contexts of the scan: plain text (a word outside quotes, a `$( )`'s text), double quotes,
# the inside of double quotes or a here-document body (no closing `"`), `${ }`, backquotes
_TOP, _DQ, _DQ_BODY, _BRACE, _BQ = range(5)
_QUOTING = (_TOP, _BRACE)  # where `'...'` and `$'...'` quote
_WORD_BREAKS = " \t\n;&|()<>"  # what a comment's `#` follows inside a `$( )`


def without_continuations(text: str, in_dq: bool = False) -> str:
    """`text` as bash keeps a word it read: its line continuations gone except inside the quotes
    that keep them (see the module's doc). `in_dq`: the text is the inside of double quotes or a
    here-document body, where `'` and `"` quote nothing."""
    if "\\\n" not in text:
        return text
    out: list[str] = []
    # the open contexts, innermost last; a `$( )` is _TOP with its open parentheses counted
    stack: list[int] = [_DQ_BODY if in_dq else _TOP]
    parens: list[int] = [0]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        ctx = stack[-1]
        if c == "\\":
            if text.startswith("\n", i + 1):
                i += 2  # (the continuation itself)
                continue
            out.append(text[i : i + 2])
            i += 2
            continue
        quoted = _quoted_end(text, i, ctx, len(stack) > 1)
        if quoted:
            out.append(text[i:quoted])
            i = quoted
            continue
        out.append(c)
        i += 1
        if ctx == _BQ:
            if c == "`":
                stack.pop()
                parens.pop()
            continue
        if c == "$" and i < n and text[i] in "({":
            out.append(text[i])
            i += 1
            stack.append(_TOP if text[i - 1] == "(" else _BRACE)
            parens.append(1 if text[i - 1] == "(" else 0)
        elif c == "`":
            stack.append(_BQ)
            parens.append(0)
        elif c == '"' and ctx in (_TOP, _BRACE):
            stack.append(_DQ)
            parens.append(0)
        elif c == '"' and ctx == _DQ:
            stack.pop()
            parens.pop()
        elif c == "}" and ctx == _BRACE:
            stack.pop()
            parens.pop()
        elif ctx == _TOP and len(stack) > 1 and c in "()":
            parens[-1] += 1 if c == "(" else -1
            if not parens[-1]:
                stack.pop()
                parens.pop()
    return "".join(out)


def past_continuations(src: str, i: int) -> int:
    """Past the line continuations at `i` (`i` when there are none)."""
    while src.startswith("\\\n", i):
        i += 2
    return i


def _quoted_end(text: str, i: int, ctx: int, in_comsub: bool) -> int:
    """Past the text at `i` that keeps its continuations (a '...', a $'...', a `$( )`'s comment
    up to its newline), the end of `text` when nothing closes it; 0 when none starts there."""
    c = text[i]
    n = len(text)
    if ctx in _QUOTING and c == "'":
        end = text.find("'", i + 1)
        return n if end < 0 else end + 1
    if ctx in _QUOTING and c == "$" and text.startswith("'", i + 1):
        k = i + 2
        while k < n and text[k] != "'":
            k += 2 if text[k] == "\\" else 1  # (a backslash escapes the next character)
        return min(k + 1, n)
    if ctx == _TOP and c == "#" and in_comsub and (i == 0 or text[i - 1] in _WORD_BREAKS):
        end = text.find("\n", i)
        return n if end < 0 else end
    return 0
