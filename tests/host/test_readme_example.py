"""The README's host-mode example runs as written (its log directory moved to a temporary one)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _example() -> str:
    text = README.read_text()
    section = text[text.index("## Host mode") :]
    start = section.index("```python\n") + len("```python\n")
    return section[start : section.index("```\n", start)]


def test_the_readme_example(tmp_path: Path) -> None:
    logs = tmp_path / "nginx"
    logs.mkdir()
    (logs / "error.log").write_text("a\nb\nupstream timed out\nworker exited\nbind() failed\n")
    code = _example().replace("/var/log/nginx", str(logs))
    out = io.StringIO()
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), scope)  # the README's own text
    printed = out.getvalue()
    assert printed.startswith("upstream timed out\nworker exited\nbind() failed\n")
    assert (
        "● nginx.service - nginx\n     Loaded: loaded (enabled)\n     Active: active (running)\n" in printed
    )
    assert "deny: service_not_allowed: systemctl: stop nginx.service" in printed
    backend = scope["backend"]
    assert backend.calls[:2] == [("nginx.service", "restart"), ("nginx.service", "status")]  # type: ignore[attr-defined]
    assert scope["r"].exit_code == 0  # type: ignore[attr-defined]
