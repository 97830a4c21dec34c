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


def _charged(ctx: Ctx, fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        ctx.checkpoint()
        with ctx.hold_memory() as mem:
            mem.charge(sum(_size(a) for a in args) + sum(_size(v) for v in kwargs.values()))
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

    def pformat(
        obj: Any, indent: int, width: int, depth: Any, compact: bool, sort_dicts: bool, und: bool
    ) -> str:
        printer = Printer(
            indent=indent,
            width=width,
            depth=depth,
            compact=compact,
            sort_dicts=sort_dicts,
            underscore_numbers=und,
        )
        return printer.pformat(obj)

    def uuid_name_hex(namespace_hex: str, name: str, version: int) -> str:
        maker = uuid.uuid5 if version == 5 else uuid.uuid3
        return maker(uuid.UUID(hex=namespace_hex), name).hex

    def log_format(fmt: str, record: dict[str, Any]) -> str:
        # a width or precision is a size the host would allocate before anything is charged
        # (`%(message)2000000000s`): over the value limit, the run ends as for any long value
        limit = ctx.limits.max_string_length
        for m in _FORMAT_WIDTHS.finditer(fmt):
            if any(n and int(n) > limit for n in m.groups()):
                raise ctx.limits.over(LimitKind.MAX_STRING_LENGTH)
        return fmt % record

    return {
        **{
            n: getattr(urllib.parse, n)
            for n in (
                "quote",
                "quote_plus",
                "unquote",
                "unquote_plus",
                "quote_from_bytes",
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
                {k: guard(_charged(ctx, v)) if callable(v) else v for k, v in table.items()}
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
