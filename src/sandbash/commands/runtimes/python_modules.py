"""Standard modules Monty lacks, served from the host as Monty external modules.

Only pure functions over strings and numbers (no files, no processes, no callbacks into the
program): `string` (its constants and capwords), `textwrap`, `shlex` (split/quote/join),
`statistics`, `html` (escape/unescape), and `_sb_text`, the string work behind
python_stdlib_text's urllib.parse, uuid, pprint and logging. Arguments arrive as copies; their size
is charged to the run's memory budget while the host function works on them, and a limit met there
stops the program (the `guard` python.py passes in).
"""

from __future__ import annotations

import html
import io
import re
import shlex
import statistics
import string
import textwrap
from collections.abc import Callable

from ...limits import LimitKind
from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_STRING_CONSTANTS = (
    "ascii_letters",
    "ascii_lowercase",
    "ascii_uppercase",
    "digits",
    "hexdigits",
    "octdigits",
    "punctuation",
    "printable",
    "whitespace",
)


def _size(value: object) -> int:
    if isinstance(value, str | bytes):
        return len(value) * 4
    if isinstance(value, list | tuple):
        return 64 * len(value) + sum(_size(v) for v in value[:1000])
    return 64


def _text_len(value: object) -> int:
    return len(value) if isinstance(value, str | bytes) else 0


def _arg(args: tuple[Any, ...], kwargs: dict[str, Any], i: int, name: str, default: Any = "") -> Any:
    return args[i] if len(args) > i else kwargs.get(name, default)


def _lines_bound(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, int]:
    """textwrap's wrap/fill/shorten: (characters, lines) of the result at most. Every line holds at
    least one character of the text, and each carries its indent."""
    n = _text_len(_arg(args, kwargs, 0, "text"))
    indent = max(_text_len(kwargs.get("initial_indent", "")), _text_len(kwargs.get("subsequent_indent", "")))
    width = _arg(args, kwargs, 1, "width", 70)
    lines = n + 1 if not isinstance(width, int) or width - indent < 2 else 2 * (n // (width - indent)) + 2
    lines = min(lines, n + 1)
    return n + lines * (indent + 1), lines


# what a host function may build from its arguments, before it builds it: (characters of text,
# objects of a list) at most. A host function works outside Monty's heap limit: a 1 MB message
# logged through "%(message)s" * 3000 made a 3 GB string in the embedding process (it aborted)
_BOUNDS: dict[str, Callable[[tuple[Any, ...], dict[str, Any]], tuple[int, int]]] = {
    "indent": lambda a, k: (
        _text_len(_arg(a, k, 0, "text"))
        + (str(_arg(a, k, 0, "text")).count("\n") + 1) * _text_len(_arg(a, k, 1, "prefix")),
        0,
    ),
    "wrap": _lines_bound,
    "fill": _lines_bound,
    "shorten": _lines_bound,
    "escape": lambda a, k: (_escaped_len(_arg(a, k, 0, "s")), 0),
    "split": lambda a, k: (_text_len(_arg(a, k, 0, "s")), _text_len(_arg(a, k, 0, "s")) // 2 + 1),
    "parse_qs": lambda a, k: (_text_len(_arg(a, k, 0, "qs")), 2 * (_text_len(_arg(a, k, 0, "qs")) // 2 + 1)),
    "parse_qsl": lambda a, k: (_text_len(_arg(a, k, 0, "qs")), 2 * (_text_len(_arg(a, k, 0, "qs")) // 2 + 1)),
    "capwords": lambda a, k: (_text_len(_arg(a, k, 0, "s")), _text_len(_arg(a, k, 0, "s")) // 2 + 1),
}


def _escaped_len(text: object) -> int:
    """html.escape's result length (quote=True, the most it makes)."""
    if not isinstance(text, str):
        return 0
    return (
        len(text)
        + 4 * text.count("&")
        + 3 * (text.count("<") + text.count(">"))
        + 5 * (text.count('"') + text.count("'"))
    )


def _quoted_in_parts(ctx: Ctx, fn: Callable[..., Any]) -> Callable[..., Any]:
    """urllib.parse's quote, quote_plus and quote_from_bytes a part at a time (each character's
    escape depends on it alone): one character may become 12, so the result ends at
    max_string_length as it grows rather than being made whole first."""

    def call(value: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(value, str | bytes) or len(value) <= 1 << 16:
            return fn(value, *args, **kwargs)
        parts: list[str] = []
        total = 0
        for i in range(0, len(value), 1 << 16):
            part = fn(value[i : i + (1 << 16)], *args, **kwargs)
            total += len(part)
            if total > ctx.limits.max_string_length:
                raise ctx.limits.over(LimitKind.MAX_STRING_LENGTH)
            parts.append(part)
            ctx.checkpoint()
        return "".join(parts)

    return call


def _shlex_join_bound(a: tuple[Any, ...], k: dict[str, Any]) -> tuple[int, int]:
    words = _arg(a, k, 0, "split_command", ())
    return (sum(5 * _text_len(w) + 3 for w in words) if isinstance(words, list | tuple) else 0), 0


def _shlex_quote_bound(a: tuple[Any, ...], k: dict[str, Any]) -> tuple[int, int]:
    text = _arg(a, k, 0, "s")
    return (len(text) + 4 * text.count("'") + 2 if isinstance(text, str) else 0), 0


def _urlencode_bound(a: tuple[Any, ...], k: dict[str, Any]) -> tuple[int, int]:
    """12 characters for each of the query's (an escaped multibyte character), and a separator
    for each pair; a value that is no text is written as its str(), charged as 32."""
    query = _arg(a, k, 0, "query", ())
    items = query.items() if isinstance(query, dict) else query if isinstance(query, list | tuple) else ()
    chars = 0
    for item in items:
        for part in item if isinstance(item, list | tuple) else (item,):
            values = part if isinstance(part, list | tuple) else (part,)
            chars += sum(12 * len(v) + 2 if isinstance(v, str | bytes) else 32 for v in values)
    return chars, 0


def _charged(ctx: Ctx, fn: Callable[..., Any], name: str = "") -> Callable[..., Any]:
    bound = _BOUNDS.get(name)
    if name == "join" and fn is shlex.join:
        bound = _shlex_join_bound
    elif name == "urlencode":
        bound = _urlencode_bound
    elif name == "quote" and fn is shlex.quote:
        bound = _shlex_quote_bound

    def call(*args: Any, **kwargs: Any) -> Any:
        ctx.checkpoint()
        with ctx.hold_memory() as mem:
            n = sum(_size(a) for a in args) + sum(_size(v) for v in kwargs.values())
            if bound is not None:
                chars, objects = bound(args, kwargs)
                if chars > ctx.limits.max_string_length:
                    raise ctx.limits.over(LimitKind.MAX_STRING_LENGTH)
                n += 4 * chars + 64 * objects
            mem.charge(n)
            return fn(*args, **kwargs)

    return call


def _url_parts(split: bool) -> Callable[[str, str, bool], list[Any]]:
    """urlparse/urlsplit as a list: the components, then username, password, hostname, port
    (python_stdlib_text's result object holds them as attributes)."""

    def parts(url: str, scheme: str = "", allow_fragments: bool = True) -> list[Any]:
        import urllib.parse

        r = (urllib.parse.urlsplit if split else urllib.parse.urlparse)(url, scheme, allow_fragments)
        try:
            port = r.port
        except ValueError:
            port = None  # CPython raises when .port is read; an attribute cannot
        return [*r, r.username, r.password, r.hostname, port]

    return parts


_FORMAT_WIDTHS = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\d*)(?:\.(\d*))?")


def _text_helpers(ctx: Ctx) -> dict[str, Any]:
    """The host side of python_stdlib_text's modules."""
    import pprint
    import urllib.parse
    import uuid

    class Printer(pprint.PrettyPrinter):
        calls = 0

        def format(
            self, obj: object, context: dict[int, int], maxlevels: int, level: int
        ) -> tuple[str, bool, bool]:
            # called for every value: a large structure is formatted on the host, within the deadline
            self.calls += 1
            if not self.calls & 1023:
                ctx.checkpoint()
            return super().format(obj, context, maxlevels, level)

    limit = ctx.limits.max_string_length

    class Bounded(io.StringIO):
        """pformat's output, ended at max_string_length (an indent repeats on every line and
        level: pformat(rows, indent=1000000) grew without bound in the embedding process)."""

        size = 0

        def write(self, text: str) -> int:
            self.size += len(text)
            if self.size > limit:
                raise ctx.limits.over(LimitKind.MAX_STRING_LENGTH)
            return super().write(text)

    def pformat(
        obj: Any, indent: int, width: int, depth: Any, compact: bool, sort_dicts: bool, und: bool
    ) -> str:
        if isinstance(indent, int) and indent > limit:  # (one line's indent, made before it is written)
            raise ctx.limits.over(LimitKind.MAX_STRING_LENGTH)
        out = Bounded()
        printer = Printer(
            indent=indent,
            width=width,
            depth=depth,
            stream=out,
            compact=compact,
            sort_dicts=sort_dicts,
            underscore_numbers=und,
        )
        printer.pprint(obj)  # (the text, then a newline)
        return out.getvalue()[:-1]

    def uuid_name_hex(namespace_hex: str, name: str, version: int) -> str:
        maker = uuid.uuid5 if version == 5 else uuid.uuid3
        return maker(uuid.UUID(hex=namespace_hex), name).hex

    def log_format(fmt: str, record: dict[str, Any]) -> str:
        # a width or precision is a size the host would allocate before anything is charged
        # (`%(message)2000000000s`): over the value limit, the run ends as for any long value
        # and each conversion may repeat the longest value: "%(message)s" * 3000 with a 1 MB message
        longest = max((len(v) if isinstance(v, str) else 32 for v in record.values()), default=0)
        total = len(fmt)
        for m in _FORMAT_WIDTHS.finditer(fmt):
            if any(n and int(n) > limit for n in m.groups()):
                raise ctx.limits.over(LimitKind.MAX_STRING_LENGTH)
            total += max([longest, *(int(n) for n in m.groups() if n)])
            if total > limit:
                raise ctx.limits.over(LimitKind.MAX_STRING_LENGTH)
        return fmt % record

    return {
        **{
            n: _quoted_in_parts(ctx, getattr(urllib.parse, n))
            for n in ("quote", "quote_plus", "quote_from_bytes")
        },
        **{
            n: getattr(urllib.parse, n)
            for n in (
                "unquote",
                "unquote_plus",
                "unquote_to_bytes",
                "urlencode",
                "parse_qs",
                "parse_qsl",
                "urljoin",
                "urldefrag",
                "urlunparse",
                "urlunsplit",
            )
        },
        "urlparse_parts": _url_parts(False),
        "urlsplit_parts": _url_parts(True),
        "int_from_hex": lambda digits: int(digits, 16),
        "uuid_name_hex": uuid_name_hex,
        "pformat": pformat,
        "log_format": log_format,
    }


def external_modules(
    pm: Any, ctx: Ctx, guard: Callable[[Callable[..., Any]], Callable[..., Any]]
) -> dict[str, Callable[[], Any]]:
    """name -> a factory of the ExternalModule (made when the program first imports it). `guard`
    wraps each function so that a limit it meets stops the program (as the os functions do)
    rather than arriving as an exception the program could catch."""

    def module(attrs: dict[str, Any] | Callable[[], dict[str, Any]]) -> Callable[[], Any]:
        def make() -> Any:
            table = attrs() if callable(attrs) else attrs
            return pm.ExternalModule(
                {k: guard(_charged(ctx, v, k)) if callable(v) else v for k, v in table.items()}
            )

        return make

    return {
        "string": module({**{n: getattr(string, n) for n in _STRING_CONSTANTS}, "capwords": string.capwords}),
        "textwrap": module(
            {
                "dedent": textwrap.dedent,
                "indent": textwrap.indent,
                "fill": textwrap.fill,
                "wrap": textwrap.wrap,
                "shorten": textwrap.shorten,
            }
        ),
        "_sb_text": module(lambda: _text_helpers(ctx)),
        "html": module({"escape": html.escape, "unescape": html.unescape}),
        "shlex": module({"split": shlex.split, "quote": shlex.quote, "join": shlex.join}),
        "statistics": module(
            {
                n: getattr(statistics, n)
                for n in (
                    "mean",
                    "fmean",
                    "median",
                    "median_low",
                    "median_high",
                    "mode",
                    "multimode",
                    "stdev",
                    "pstdev",
                    "variance",
                    "pvariance",
                    "harmonic_mean",
                    "geometric_mean",
                    "quantiles",
                )
            }
        ),
    }
