"""The static check's command models, pinned: every command name's facts on a table of argument
lists must stay what they were when the pin was written. A refactor of check/models.py or
check/wrappers.py (the check is security code) may change how the facts are computed, never
what they are. The pin holds one digest per command name (tests/unit/check_model_facts.json);
after an intended change of a model, write it again with
`.venv/bin/python tests/unit/test_check_model_facts.py --write` and say why in the commit."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import pytest

from sandbash.check.models import Arg, Facts
from sandbash.check.wrappers import model
from sandbash.commands.registry import BUILTIN_TABLE

PIN = Path(__file__).with_name("check_model_facts.json")

# argument lists every model sees: plain operands, run-time words (None), the options that decide
# file roles (-o, -t, -r, -p, -s, -l, -d, -c, -k, -i, -C, --reference), usage errors and --help,
# and the shapes of the wrappers' and languages' command lines
ARGS: list[list[Arg]] = [
    [],
    ["a"],
    ["a", "b"],
    ["a", "b", "c"],
    ["-", "a"],
    ["--", "-a"],
    ["a", "a"],
    ["a/", "a"],
    [None],
    ["a", None],
    [None, "a"],
    ["-r", None],
    ["-o", None, "in"],
    ["-r", "a", "b"],
    ["-R", "a"],
    ["-f", "a", "b"],
    ["-o", "out", "in"],
    ["-p", "a/b/c"],
    ["-t", "dir", "a", "b"],
    ["-T", "a", "b"],
    ["-s", "tgt", "lnk"],
    ["-sf", "tgt", "d/"],
    ["-l", "a", "b"],
    ["-a", "src", "dst"],
    ["-d", "a", "b"],
    ["-c", "a"],
    ["-d", "a.gz"],
    ["-k", "a"],
    ["-dk", "a.xz", "b.bz2"],
    ["-n", "5", "a"],
    ["-5", "a"],
    ["--reference=r", "a"],
    ["-L", "a"],
    ["--help"],
    ["--bogus", "a"],
    ["-XXXXX"],
    ["-m", "755", "a"],
    ["755", "a", "b"],
    ["-Rv", "u+x", "d"],
    ["-S", ".z", "a"],
    ["-u", "a"],
    ["--dry-run", "a"],
    ["-i", "p", "a"],
    ["-e", "s/x/y/w out", "a"],
    ["-n", "1e ls", "a"],
    ['{print > "o"; system("ls")}', "a"],
    ["-f", "prog", "a"],
    ["."],
    [".", "-name", "x", "-delete"],
    ["d", "-exec", "rm", "{}", ";"],
    ["d", "-newer", "r", "-fprint", "out"],
    ["-c", "echo hi; rm x"],
    ["-C", "dir", "ls", "a"],
    ["-S", "ls -l", "x"],
    ["-I", "{}", "mv", "{}", "d"],
    ["-a", "list", "cat"],
    ["5", "sleep", "1"],
    ["-o", "t.txt", "ls"],
    ["VAR=1", "PATH=/x", "ls"],
    ["czf", "a.tar", "d"],
    ["xzf", "a.tar", "-C", "out"],
    ["-tf", "a.tar"],
    ["-cf", "a.tar", "x", "-T", "list"],
    ["--create", "--file=a.tar", "d"],
    ["-r", "a.zip", "d"],
    ["-d", "out", "a.zip"],
    ["-l", "a.zip"],
    ["s", "in", "pre"],
    ["-b", "10", "--filter=gzip > $FILE", "in", "pre"],
    ["in", "/x/", "{2}"],
    ["-f", "a.patch"],
    ["-p1", "-i", "a.diff", "f"],
    ["-o", "o", "f", "p"],
    ["-N", "a"],
    ["-z", "a"],
    ["-e", "a"],
    ["-v", "a"],
    ["-r", "f", "+%s"],
    ["-f", "dates"],
    ["-t", "/tmp/x"],
    ["-p", "d", "tmp.XXXX"],
    ["a.XXX"],
    ["--files0-from=l"],
    ["-cw", "sums"],
    ["-o", "out", "-i", "x", "y"],
    ["-r", "--from-file=f", "a", "b"],
    ["-I", "e", "d"],
    ["-sq", "a"],
    ["http://h/p", "-o", "f"],
    ["-O", "f", "http://h/p"],
    ["-d", "@f", "-T", "u", "http://h/"],
    ["-e", "pat", "-f", "pats", "a"],
    ["-rl", "x", "d"],
    [".a", "f.json", "--slurpfile", "s", "g"],
    ["-i", ".a = 1", "f.yaml"],
    ["-L", "2", "-o", "o", "d"],
    ["-f", "a", "-d", "b"],
    ["-e", "x", "--", "y"],
]


def _facts_json(name: str) -> str:
    """Every argument list's facts (or the exception a model raised) for one command name."""
    rows = []
    for args in ARGS:
        try:
            facts: Facts | None = model(name, args)
            rows.append(None if facts is None else dataclasses.asdict(facts))
        except Exception as e:  # a model that raises is pinned too: its behaviour must not change silently
            rows.append({"raises": type(e).__name__})
    return json.dumps(rows, sort_keys=True, default=list)


def _digests() -> dict[str, str]:
    return {
        n: hashlib.sha256(_facts_json(n).encode("utf-8", "surrogateescape")).hexdigest()[:20]
        for n in [*BUILTIN_TABLE.names(), "bash", "sh"]
    }


def test_every_models_facts_are_as_pinned() -> None:
    pinned = json.loads(PIN.read_text())
    now = _digests()
    changed = sorted(n for n in set(pinned) | set(now) if pinned.get(n) != now.get(n))
    assert not changed, (
        f"models changed for: {changed[:20]} (first one's facts now: {_facts_json(changed[0])[:2000]})"
    )


@pytest.mark.parametrize("name", ["cp", "tar", "find", "env", "awk", "gzip", "zcat", "mv", "ln", "rm"])
def test_the_table_reaches_the_models(name: str) -> None:
    """The pin means something only if the table gives the models work: each of these names
    has many argument lists with effects or sub-commands, and many different facts."""
    rows = json.loads(_facts_json(name))
    busy = [r for r in rows if r and (r.get("effects") or r.get("commands") or r.get("opaque"))]
    assert len(busy) > 10 and len({json.dumps(r, sort_keys=True) for r in rows}) > 10


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    PIN.write_text(json.dumps(_digests(), indent=0, sort_keys=True) + "\n")
