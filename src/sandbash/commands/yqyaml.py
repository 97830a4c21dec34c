"""YAML for yq: PyYAML's pure-Python loader and dumper with the YAML 1.2 core schema yq reads, and
what they hold charged to the run as they go (a node, ~1 KB while a document is composed, is charged
before it is made), with a deadline check every few hundred nodes and every piece of text read."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from contextlib import nullcontext

import re2
import yaml  # type: ignore[import-untyped,unused-ignore]

from ..limits import MemoryHold
from .jq.memory import MEM, deep_size
from .jq.numbers import LitNum, format_number, make_literal
from .yqemit import LongScalars

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# ---------------------------------------------------------------- YAML reading


class _Resolver(yaml.resolver.BaseResolver):  # type: ignore[misc]
    """The YAML 1.2 core schema (yq's yaml.v3): no `yes`/`no`/`on`/`off` booleans,
    no sexagesimal numbers."""


_Resolver.yaml_implicit_resolvers = {}
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re2.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:int", re2.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re2.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:null", re2.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)
_Resolver.add_implicit_resolver("tag:yaml.org,2002:merge", re2.compile(r"^(?:<<)$"), ["<"])


class _Constructor(yaml.constructor.SafeConstructor):  # type: ignore[misc]
    """Values as the jq engine wants them: string keys, numbers keeping their text."""

    def construct_yaml_int(self, node: Any) -> Any:
        text = str(self.construct_scalar(node)).replace("_", "")
        sign = -1 if text.startswith("-") else 1
        body = text.lstrip("+-")
        if body.startswith("0x"):
            return sign * int(body[2:], 16)
        if body.startswith("0o"):
            return sign * int(body[2:], 8)
        return make_literal(text.lstrip("+"))

    def construct_yaml_float(self, node: Any) -> Any:
        text = str(self.construct_scalar(node)).lower()
        if text.endswith(".inf"):
            return -math.inf if text.startswith("-") else math.inf
        if text.endswith(".nan"):
            return math.nan
        raw = str(self.construct_scalar(node)).lstrip("+")
        if raw.startswith((".", "-.")):
            raw = raw.replace(".", "0.", 1)
        if raw.endswith("."):
            raw += "0"
        value = make_literal(raw)
        if type(value) is not LitNum and str(value) != raw:
            # `1.0`, `1e3`: keep the text so it prints as written
            out = LitNum(float(value))
            out.lit = raw
            return out
        if type(value) is LitNum:
            value.lit = raw
        return value

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        mapping = super().construct_mapping(node, deep=deep)
        return {_key(k): v for k, v in mapping.items()}


_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)
_Constructor.add_constructor("tag:yaml.org,2002:float", _Constructor.construct_yaml_float)
_Constructor.add_constructor(
    "tag:yaml.org,2002:timestamp", yaml.constructor.SafeConstructor.construct_yaml_str
)


def _key(k: Any) -> str:
    if type(k) is str:
        return k
    if k is None:
        return "null"
    if type(k) is bool:
        return "true" if k else "false"
    if type(k) in (int, float, LitNum):
        return format_number(k)
    return str(k)


# What PyYAML holds for each node of a document it composes, charged before it is made: the node, its
# two marks, its share of the events and the value constructed from it. Measured with tracemalloc:
# 544-627 bytes a node while composed, 678-993 at the peak of construction (`- [1, 2, {a: b}]`
# lines, `[[],[],...]`, `k: v` lines); 12 MB of `[],` held 3.3 GB with nothing charged.
_NODE_HELD = 1024
_ALIAS_HELD = 128  # an alias names a node composed already: its event and mark
# nodes composed or constructed between two charges and deadline checks (~100 us each)
_NODES_PER_TICK = 256
# text PyYAML's reader takes at a time: each piece is a deadline check (its scanner walks the text
# a character at a time in Python: 100 MB of comments made no node for a minute)
_FEED_PIECE = 1 << 18


class _Feed:
    """A text as the file PyYAML's reader takes it from, a piece at a time."""

    name = "<unicode string>"

    def __init__(
        self, text: str, checkpoint: Callable[[int], None], clock: Callable[[], None] | None
    ) -> None:
        self.text = text
        self.at = 0
        self.checkpoint = checkpoint
        self.clock = clock

    def read(self, size: int) -> str:
        # (the reader asks 4 KB at a time; a larger piece is taken as it comes, and keeps the
        # copies it makes of a long token's text few)
        piece = self.text[self.at : self.at + max(size, _FEED_PIECE)]
        self.at += len(piece)
        self.checkpoint(1 + (len(piece) >> 12))
        if self.clock is not None:
            self.clock()  # (checkpoint reads the clock once in 64 calls: 16 MB of text here)
        return piece


class _Charged:
    """PyYAML's steps (a node composed, constructed or represented) counted: what they hold is
    charged to `hold` and the deadline checked every _NODES_PER_TICK steps."""

    hold: MemoryHold | None = None
    tick: Callable[[int], None] | None = None
    owed = 0  # bytes held by the steps since the last charge
    steps = 0

    def step(self, cost: int) -> None:
        self.owed += cost
        self.steps += 1
        if not self.steps % _NODES_PER_TICK:
            self.settle()

    def settle(self) -> None:
        if self.hold is not None and self.owed:
            self.hold.charge(self.owed)
        self.owed = 0
        if self.tick is not None:
            self.tick(1)
        if self.hold is not None:
            # the deadline itself: a checkpoint reads the clock once in 64 calls (16,384 nodes)
            self.hold.budget.check_time()


class _Loader(
    _Charged,
    yaml.reader.Reader,  # type: ignore[misc]
    yaml.scanner.Scanner,  # type: ignore[misc]
    yaml.parser.Parser,  # type: ignore[misc]
    yaml.composer.Composer,  # type: ignore[misc]
    _Constructor,
    _Resolver,
):
    def __init__(
        self, stream: str, hold: MemoryHold | None = None, checkpoint: Callable[[int], None] | None = None
    ) -> None:
        clock = hold.budget.check_time if hold is not None else None
        yaml.reader.Reader.__init__(self, stream if checkpoint is None else _Feed(stream, checkpoint, clock))
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)
        self.hold = hold
        self.tick = checkpoint

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.step(_ALIAS_HELD if self.check_event(yaml.events.AliasEvent) else _NODE_HELD)
        return super().compose_node(parent, index)

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        self.step(0)
        return super().construct_object(node, deep)


def load_yaml(
    text: str, hold: MemoryHold | None = None, checkpoint: Callable[[int], None] | None = None
) -> list[Any]:
    """All documents of a YAML stream (an empty stream is no documents). With `hold`, what they hold
    is charged to it: PyYAML's nodes as they are composed, then each document's values (deep_size),
    all of them live in the list; with `checkpoint`, a deadline check every few nodes and pieces."""
    loader = _Loader(text, hold, checkpoint)
    docs: list[Any] = []
    kept = 0
    try:
        while loader.check_data():
            docs.append(loader.get_data())
            if hold is not None:
                loader.settle()
                kept += deep_size([docs[-1]], checkpoint or _no_checkpoint)
                hold.set(kept)  # (the nodes are gone)
    finally:
        loader.dispose()
    return docs


def _no_checkpoint(work: int) -> None:
    pass


# ---------------------------------------------------------------- YAML writing


class _Emitter(LongScalars):
    def choose_scalar_style(self) -> str:
        style = str(super().choose_scalar_style())
        # yaml.v3 quotes with double quotes, and keeps multi-line text literal
        if style == "'":
            return '"'
        return style


# control characters other than newline and tab (one search: a per-character loop over a 9 MB string
# took a second with no deadline check)
# (stdlib re: a value may hold lone surrogates, which re2 cannot take)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")


class _Representer(yaml.representer.SafeRepresenter):  # type: ignore[misc]
    def represent_str(self, data: str) -> Any:
        if "\n" in data and not _CONTROL.search(data) and data.strip(" ") == data:
            return self.represent_scalar("tag:yaml.org,2002:str", data, style="|")
        return self.represent_scalar("tag:yaml.org,2002:str", data)

    def represent_number(self, data: Any) -> Any:
        if data != data:
            return self.represent_scalar("tag:yaml.org,2002:float", ".nan")
        if math.isinf(data):
            return self.represent_scalar("tag:yaml.org,2002:float", ".inf" if data > 0 else "-.inf")
        text = format_number(data)
        # tag by what the text reads back as, so no explicit `!!float` appears
        tag = "tag:yaml.org,2002:float" if any(c in text for c in ".eE") else "tag:yaml.org,2002:int"
        return self.represent_scalar(tag, text)

    def represent_dict_ordered(self, data: dict[str, Any]) -> Any:
        return self.represent_mapping("tag:yaml.org,2002:map", data.items())

    def represent_list(self, data: list[Any]) -> Any:
        node = self.represent_sequence("tag:yaml.org,2002:seq", data)
        if not data:
            node.flow_style = True
        return node

    def represent_mapping(self, tag: str, mapping: Any, flow_style: Any = None) -> Any:
        node = super().represent_mapping(tag, mapping, flow_style)
        if not node.value:
            node.flow_style = True
        return node


_Representer.add_representer(str, _Representer.represent_str)
_Representer.add_representer(int, _Representer.represent_number)
_Representer.add_representer(float, _Representer.represent_number)
_Representer.add_representer(LitNum, _Representer.represent_number)
_Representer.add_representer(dict, _Representer.represent_dict_ordered)
_Representer.add_representer(list, _Representer.represent_list)


class _Dumper(_Charged, _Emitter, yaml.serializer.Serializer, _Representer, _Resolver):  # type: ignore[misc]
    def __init__(self, stream: Any, indent: int = 2, **kw: Any) -> None:
        # the PyYAML bases are untyped: their constructors are called through Any
        emitter: Any = yaml.emitter.Emitter
        representer: Any = yaml.representer.SafeRepresenter
        emitter.__init__(self, stream, indent=indent, width=1 << 30, allow_unicode=True)
        yaml.serializer.Serializer.__init__(self, explicit_start=False, explicit_end=False)
        representer.__init__(self, default_flow_style=False, sort_keys=False)
        _Resolver.__init__(self)

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # yq indents sequences inside mappings
        super().increase_indent(flow, False)

    def represent_data(self, data: Any) -> Any:
        self.step(_REPRESENTED_HELD)
        return super().represent_data(data)


# What PyYAML holds for each value it writes, charged as it represents it: the node (kept until the
# whole value is written), its entries in the representer's and serializer's tables, and the pieces
# of text written. Measured with tracemalloc: 283-441 bytes a value over six shapes; 3.2 MB of JSON
# written as YAML held 542 MB under a 256 MB max_memory.
_REPRESENTED_HELD = 512


class _Sink:
    """The text a dumper writes, in pieces: charged with what its values hold."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.dumper: _Charged | None = None

    def write(self, s: str) -> None:
        self.out.append(s)
        dumper = self.dumper
        if dumper is not None:
            dumper.owed += _STR_HELD + len(s)
            # one long scalar is written a word at a time between two steps: charged as it goes
            # (a 9 MB string of words held 280 MB under 256 MB and ran 10 s past a 2 s timeout)
            if dumper.owed > _WRITTEN_SETTLE:
                dumper.settle()


_STR_HELD = 49  # a str's header
_WRITTEN_SETTLE = 1 << 18  # text pieces charged at once


def to_yaml(value: Any, indent: int = 2) -> str:
    mem = MEM.get()
    with MemoryHold(mem.hold.budget) if mem is not None else nullcontext() as hold:
        sink = _Sink()
        dumper = sink.dumper = _Dumper(sink, indent=max(indent, 1))
        dumper.hold = hold
        dumper.tick = mem.checkpoint if mem is not None else None
        try:
            dumper.open()
            dumper.represent(value)
            dumper.close()
        finally:
            dumper.dispose()
        text = "".join(sink.out)
    # a bare scalar document ends with "...": yq prints the scalar alone
    if text.endswith("\n...\n"):
        text = text[:-4]
    return text
