"""A box: a workspace that is a git repository, the agent's home, a box.toml, the shell service on a
socket under tmp_path (in a thread of the test process) and the bash/sh/zsh alias scripts bound to it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sandbash.box.alias import install
from sandbash.box.config import parse_config
from sandbash.box.runner import BoxRunner
from sandbash.box.service import BoxServer

TOML = """
[agent]
home = "{root}/home"
workspace = "{root}/ws"
operator_home = "{root}/operator"

[agent.filesystem]
read = ["{root}/outside"]

[limits]
timeout = {timeout}

[tool.git]
command = ["git"]
[tool.git.filesystem]
read = ["{root}/shared"]
deny = ["{root}/ws/secret"]

[tool.hostsleep]
command = ["/usr/bin/sleep"]

[tool.netgit]
command = ["git"]
[tool.netgit.network]
allow = true

[tool.hostyes]
command = ["/usr/bin/yes"]

[tool.hostcat]
command = ["/usr/bin/cat"]

[tool.hosttouch]
command = ["/usr/bin/touch"]
[tool.hosttouch.filesystem]
read = ["{root}/shared"]

[tool.hostsh]
command = ["/usr/bin/sh"]
[tool.hostsh.filesystem]
read = ["{root}/shared"]

[tool.listls]
command = ["/usr/bin/ls"]
[tool.listls.filesystem]
list = ["{root}/listed", "{root}/shared/missing"]
read = ["{root}/listed/open", "{root}/listed/sub/deep"]
deny = ["{root}/listed/open/masked"]

[tool.listcat]
command = ["/usr/bin/cat"]
[tool.listcat.filesystem]
list = ["{root}/listed"]
read_file = ["{root}/listed/open/f"]
"""


@dataclass
class Box:
    root: Path
    socket: Path
    aliases: Path
    server: BoxServer

    def run(
        self, *args: str, shell: str = "bash", env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.aliases / shell), *args], capture_output=True, text=True, timeout=60, env=env
        )


def make_box(tmp_path: Path, timeout: float = 20) -> Iterator[Box]:
    for d in ("home", "ws", "operator", "outside", "shared", "ws/secret"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    (tmp_path / "ws/secret/key").write_text("s3cret\n")
    (tmp_path / "outside/note").write_text("outside\n")
    for d in ("listed/sub/deep", "listed/open/masked", "listed/empty"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    for f in (
        "listed/a.txt",
        "listed/sub/b.txt",
        "listed/sub/deep/c.txt",
        "listed/open/f",
        "listed/open/masked/m",
    ):
        (tmp_path / f).write_text(f"content of {f}\n")
    (tmp_path / "listed/link").symlink_to(tmp_path / "outside/note")
    subprocess.run(["git", "init", "-q", str(tmp_path / "ws")], check=True)
    config_path = tmp_path / "box.toml"
    config_path.write_text(TOML.format(root=tmp_path, timeout=timeout))
    sock = tmp_path / "box.sock"
    config = parse_config(config_path.read_text(), (str(config_path), str(sock)))
    server = BoxServer(BoxRunner(config), str(sock))
    server.start()
    install(str(tmp_path / "bin"), str(sock), sys.executable)
    try:
        yield Box(tmp_path, sock, tmp_path / "bin", server)
    finally:
        server.close()


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from make_box(tmp_path)


@pytest.fixture
def quick_box(tmp_path: Path) -> Iterator[Box]:
    """A box whose commands end after 2 s."""
    yield from make_box(tmp_path, timeout=2)
