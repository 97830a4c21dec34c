"""tree's command line, declared for the one option parser: tree 2.1.0's own rules (exact long
names, `--sort=X` or `--sort X`, letters whose value is always the next word, its wording).
tree is not installed here, so the rows are fixed expectations read from tree 2.1.0's main()."""

from __future__ import annotations

import pytest

from sandbash.commands.fileinfo.tree import USAGE
from sandbash.testing import run_command

FILES = {"d/a.py": "x", "d/b.txt": "yy", "d/sub/c.py": "z"}
FULL = "d\n├── a.py\n├── b.txt\n└── sub\n    └── c.py\n"

ROWS: list[tuple[list[str], str, str, int]] = [
    (["d"], FULL + "\n2 directories, 3 files\n", "", 0),
    (["-L", "1", "d"], "d\n├── a.py\n├── b.txt\n└── sub\n\n2 directories, 2 files\n", "", 0),
    (["-LP", "1", "*.py", "d"], "d\n├── a.py\n└── sub\n\n2 directories, 1 file\n", "", 0),  # values in order
    (["d", "-L", "1", "--noreport"], "d\n├── a.py\n├── b.txt\n└── sub\n", "", 0),  # options after operands
    (["-I", "*.PY", "--ignore-case", "d"], "d\n├── b.txt\n└── sub\n\n2 directories, 1 file\n", "", 0),
    (["--noreport", "--", "d"], FULL, "", 0),
    (["-L"], "", "tree: Missing argument to -L option.\n", 1),
    (["-aL"], "", "tree: Missing argument to -L option.\n", 1),
    (["--sort"], "", "tree: Missing argument to --sort option.\n", 1),
    (["-L", "0", "d"], "", "tree: Invalid level, must be greater than 0.\n", 1),
    (["-L", "x", "-z"], "", "tree: Invalid level, must be greater than 0.\n", 1),  # met first, reported first
    (["--filelimit", "x", "d"], "", "tree: Invalid filelimit value 'x'.\n", 1),
    (
        ["--sort", "bogus", "d"],
        "name,version,size,mtime,ctime\n",
        "tree: Sort type 'bogus' not valid, should be one of: ",
        1,
    ),
    (["-z"], "", "tree: Invalid argument -`z'.\n" + USAGE, 1),
    (["-az", "d"], "", "tree: Invalid argument -`z'.\n" + USAGE, 1),
    (["--foo=1"], "", "tree: Invalid argument `--foo=1'.\n" + USAGE, 1),
    (["--nore", "d"], "", "tree: Invalid argument `--nore'.\n" + USAGE, 1),  # no prefixes
    (["--noreport=x", "d"], "", "tree: Invalid argument `--noreport=x'.\n" + USAGE, 1),
    (["--help", "--foo"], USAGE, "", 0),  # acts where it stands
    (["--sort=size", "--noreport", "d"], "d\n├── sub\n│\u00a0\u00a0 └── c.py\n├── b.txt\n└── a.py\n", "", 0),
]


@pytest.mark.parametrize(("args", "stdout", "stderr", "status"), ROWS, ids=[" ".join(a) for a, *_ in ROWS])
def test_tree_command_line(args: list[str], stdout: str, stderr: str, status: int) -> None:
    r = run_command(["tree", *args], files=FILES)
    assert (r.stdout.decode(), r.stderr.decode(), r.status) == (stdout, stderr, status)
