"""The reference documents stay in step with the code: every limit, policy rule and static-check
issue code is listed in docs/errors.md, and every threat id of docs/threat-model.md is cited by a
test (and every id a test cites exists)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sandbash import policy
from sandbash.limits import LIMIT_KINDS, LimitKind

ROOT = Path(__file__).resolve().parents[2]
ERRORS = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
THREATS = (ROOT / "docs" / "threat-model.md").read_text(encoding="utf-8")
THREAT_ID = re.compile(r"\bT-[A-Z]+-\d+\b")


def _listed(name: str) -> bool:
    return f"| `{name}` |" in ERRORS


def test_every_limit_is_in_errors_md() -> None:
    assert [k for k in LimitKind if not _listed(k.value)] == []
    assert [d.name for d in LIMIT_KINDS] == list(LimitKind)  # one description per kind, in enum order


def test_every_policy_rule_is_in_errors_md() -> None:
    rules = {v for k, v in vars(policy).items() if k.startswith("RULE_") and isinstance(v, str)}
    assert rules, "policy.py defines its rule ids as RULE_* constants"
    assert sorted(r for r in rules if not _listed(r)) == []


def _issue_codes() -> set[str]:
    """The codes the static check reports: `Issue("code", ...)` and `add(VERDICT, "code", ...)`."""
    codes: set[str] = set()
    for path in (ROOT / "src" / "sandbash" / "check").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            position = {"Issue": 0, "add": 1}.get(node.func.id)
            if position is not None and len(node.args) > position:
                arg = node.args[position]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    codes.add(arg.value)
    return codes


def test_every_check_issue_code_is_in_errors_md() -> None:
    codes = _issue_codes()
    assert {"command_not_allowed", "syntax_error"} <= codes  # the walk finds them
    assert sorted(c for c in codes if not _listed(c)) == []


def _cited_by_tests() -> dict[str, set[str]]:
    cited: dict[str, set[str]] = {}
    for path in (ROOT / "tests").rglob("*.py"):
        for tid in THREAT_ID.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(tid, set()).add(path.relative_to(ROOT).as_posix())
    return cited


def test_every_threat_id_is_cited_by_a_test() -> None:
    defined = set(re.findall(r"^\| (T-[A-Z]+-\d+) \|", THREATS, re.M))
    assert len(defined) >= 20
    assert sorted(defined - set(_cited_by_tests())) == []


def test_tests_cite_only_threat_ids_that_exist() -> None:
    defined = set(THREAT_ID.findall(THREATS))
    stray = {tid: files for tid, files in _cited_by_tests().items() if tid not in defined}
    assert stray == {}


def test_every_package_is_in_contributings_module_map() -> None:
    """A newcomer finds each package of src/sandbash in CONTRIBUTING.md's "Where things live" table."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    table = text.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    src = ROOT / "src" / "sandbash"
    packages = sorted(p.name for p in src.iterdir() if (p / "__init__.py").is_file())
    missing = [name for name in packages if f"{name}/" not in table]
    assert not missing, f"packages missing from CONTRIBUTING.md's module map: {missing}"
