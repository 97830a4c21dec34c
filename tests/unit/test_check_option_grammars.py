"""The static check reads jq's, yq's and tree's command lines with the commands' own parsers (the
one option parser's declarations), so it names the same files the run touches."""

from __future__ import annotations

import pytest

from sandbash.check.wrappers import model


@pytest.mark.parametrize(
    ("argv", "effects"),
    [
        (["jq", "-nf", "p.jq"], [("read", "p.jq")]),  # -f is a flag: the program operand is the file
        (["jq", "-f", "p.jq", "d.json"], [("read", "p.jq"), ("read", "d.json")]),
        (["jq", "--args", ".", "a", "b"], []),  # strings, not files
        (["jq", ".", "x.json", "--jsonargs", "1"], [("read", "x.json")]),
        (
            ["jq", ".", "x.json", "--slurpfile", "s", "y.json", "--rawfile", "r", "z"],
            [("read", "y.json"), ("read", "z"), ("read", "x.json")],
        ),
        (["jq", "--indent", "3", "-L", "lib", ".", "a.json"], [("read", "a.json")]),
        (["jq", "-rr", ".", "a.json"], []),  # a usage error: jq stops first
        (["jq", "-h", "a.json"], []),
        (
            ["yq", "-i", ".a = 1", "f.yaml", "g.yaml"],
            [("write", "f.yaml"), ("read", "g.yaml"), ("create", "f.yaml")],
        ),
        (["yq", "-o=json", "eval", ".a", "f.yaml"], [("read", "f.yaml")]),
        (["yq", "--bogus", ".", "f.yaml"], []),
        (["tree", "-o", "out.txt", "d"], [("create", "out.txt"), ("list", "d")]),
        (["tree", "-LP", "2", "*.py", "d", "e"], [("list", "d"), ("list", "e")]),  # values in the next words
        (["tree", "-L", "0", "d"], []),  # a bad value: tree stops first
        (["tree"], [("list", ".")]),
    ],
)
def test_models_use_the_commands_parsers(argv: list[str], effects: list[tuple[str, str]]) -> None:
    facts = model(argv[0], argv[1:])
    assert facts is not None
    assert [(e.action, "|".join("?" if p is None else p for p in e.paths)) for e in facts.effects] == effects
