"""Conveniences over `Bash`: `Sandbox.create()`, `write_files`, `run_command`,
`read_file`, and `ExecOptions` (per-call overrides), plus `new_bash`, which
registers installed command plugins before building a `Bash`.

    sandbox = Sandbox.create(files={"/data/a.csv": "x,1\\n"})
    r = sandbox.run_command("cut -d, -f2 /data/a.csv", env={"LC_ALL": "C"})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..api import Bash, ExecResult, Session
from ..leanclass import field_names
from ..limits import Limits
from ..vfs.memory import FileContent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any

    from ..net import NetworkConfig
    from ..policy import Policy
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass

LimitsArg = Limits | str | Mapping[str, float] | None


def new_bash(**kw: Any) -> Bash:
    """`Bash(**kw)` with the commands installed packages declare (entry points) added to its own
    `commands=` (which win over a plugin of the same name)."""
    from ..custom import load_entry_points  # reads importlib.metadata: only here (start-up time)

    kw["commands"] = [*load_entry_points(), *kw.get("commands", ())]
    return Bash(**kw)


@dataclass(frozen=True)
class ExecOptions:
    """Per-call overrides; None keeps the sandbox's own setting."""

    env: Mapping[str, str] | None = None
    cwd: str | None = None
    stdin: bytes | str | None = None
    args: Sequence[str] | None = None
    replace_env: bool | None = None
    limits: LimitsArg = None

    def merged(self, **overrides: Any) -> dict[str, Any]:
        """The keyword arguments for `Bash.exec`: these options, then the overrides."""
        names = field_names(self)
        unknown = set(overrides).difference(names)
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
        values = {k: getattr(self, k) for k in names} | overrides
        return {k: v for k, v in values.items() if v is not None}


class Sandbox:
    """A `Bash` with a file-first interface."""

    def __init__(self, bash: Bash) -> None:
        self.bash = bash

    @classmethod
    def create(
        cls,
        *,
        files: Mapping[str, FileContent] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str = "/home/user",
        limits: LimitsArg = None,
        network: NetworkConfig | None = None,
        policy: Policy | None = None,
        **kw: Any,
    ) -> Sandbox:
        """A new sandbox; `kw` goes to `Bash` (fs=, identity=, seed=, ...)."""
        return cls(
            new_bash(files=files, env=env, cwd=cwd, limits=limits, network=network, policy=policy, **kw)
        )

    def write_files(self, files: Mapping[str, FileContent]) -> None:
        """Write several files (parents created); relative paths are under the cwd."""
        for path, content in files.items():
            self.bash.write_file(path, content)

    def read_file(self, path: str) -> bytes:
        """The file's exact bytes, as `Bash.read_file` (relative paths count from the cwd)."""
        return self.bash.read_file(path)

    def read_bytes(self, path: str) -> bytes:
        return self.bash.read_file(path)

    def read_text(self, path: str, encoding: str = "utf-8", errors: str = "replace") -> str:
        """The file decoded, as `Bash.read_text`."""
        return self.bash.read_text(path, encoding, errors)

    def run_command(self, cmd: str, options: ExecOptions | None = None, **overrides: Any) -> ExecResult:
        """Run `cmd` (a script) in a fresh shell over this sandbox's files."""
        return self.bash.exec(cmd, **(options or ExecOptions()).merged(**overrides))

    async def arun_command(
        self, cmd: str, options: ExecOptions | None = None, **overrides: Any
    ) -> ExecResult:
        return await self.bash.aexec(cmd, **(options or ExecOptions()).merged(**overrides))

    def session(self, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> Session:
        return self.bash.session(env=env, cwd=cwd)
