"""iconv, numfmt, tsort, split, csplit, factor: compared with the real tools."""

from __future__ import annotations

import pytest

import oracle
from sandbash.testing import run_command

from .test_textbasic import compare

FILES: dict[str, bytes | str] = {
    "utf": "caf\u00e9 \u201cq\u201d\n",
    "lat": b"caf\xe9\n",
    "bad": b"a\xffb\n",
    "n": "".join(f"{i}\n" for i in range(1, 21)),
    "pairs": "a b\nb c\nx y\n",
    "pairs2": "b a\nd c\nc a\n",
    "loop": "a b\nb a\n",
    "odd": "a b c",
    "nums": "h 1\n2000 3\n1000 2000 3000\n",
}

CASES = [
    ["iconv", "-f", "UTF-8", "-t", "ASCII", "utf"],
    ["iconv", "-f", "UTF-8", "-t", "ASCII//TRANSLIT", "utf"],
    ["iconv", "-c", "-f", "UTF-8", "-t", "ASCII", "utf"],
    ["iconv", "-f", "LATIN1", "-t", "UTF-8", "lat"],
    ["iconv", "-t", "UTF-16", "utf"],
    ["iconv", "-f", "UTF-8", "-t", "UTF-16LE", "bad"],
    ["iconv", "-t", "LATIN1", "utf"],
    ["iconv", "-f", "UTF-8", "-t", "UTF-32BE", "n"],
    ["numfmt", "--to=si", "1500", "1000000"],
    ["numfmt", "--to=iec", "2048", "1536"],
    ["numfmt", "--to=iec-i", "2048"],
    ["numfmt", "--from=si", "1.5K", "2M"],
    ["numfmt", "--from=iec", "1K"],
    ["numfmt", "--from=auto", "1Ki", "1K"],
    ["numfmt", "--to=si", "--suffix=B", "1500"],
    ["numfmt", "--padding=8", "123"],
    ["numfmt", "--format=%08.2f", "3.14159"],
    ["numfmt", "x"],
    ["numfmt", "--to=si", "0.5", "5", "9.99", "99999", "--", "-1500"],
    ["numfmt", "--to=iec", "--round=nearest", "1536", "1535"],
    ["numfmt", "--to=si", "--padding=-8", "1500"],
    ["numfmt", "--invalid=ignore", "x", "1000"],
    ["numfmt", "--from=si", "1x"],
    ["numfmt", "--from=si", "1.5Ki"],
    ["numfmt", "--from=iec-i", "2Ki"],
    ["numfmt", "--from=iec-i", "2K"],
    ["numfmt", "--to=si", "--format=%.3f", "1234567"],
    ["numfmt", "--format=%-10f|", "12"],
    ["numfmt", "--to=iec", "1023", "1025", "10240", "1048575"],
    ["numfmt", "--round=up", "--to=si", "1001"],
    ["numfmt", "--from=si", "1.5"],
    ["numfmt", "--to=si", "999", "1000"],
    ["numfmt", "--invalid=fail", "--", "3G", "1.5M", "x"],
    ["numfmt", "--from=iec-i", "10239"],
    ["numfmt", "--from=si", "--", "1", "18446744073709551616"],
    ["numfmt", "--", "-0.5", "1e3", "7"],
    ["numfmt", "--padding=10", "--format=%.2f", "5.55"],
    ["numfmt", "--invalid=warn", "x", "5"],
    ["tsort", "pairs"],
    ["tsort", "pairs2"],
    ["tsort", "loop"],
    ["tsort", "odd"],
    ["tsort", "nope"],
    ["factor", "12", "1", "0", "97", "1000000007", "18446744073709551617", "600851475143"],
    ["factor", "x"],
    ["factor"],
    ["split", "x", "y", "z"],
    ["split", "-l", "0", "n"],
    ["split", "-n", "0", "n"],
    ["split", "-n", "2/3", "n"],
    ["split", "-n", "l/2/3", "n"],
    ["split", "--verbose", "-l", "7", "n", "v"],
    ["csplit", "n", "5", "12"],
    ["csplit", "n", "/7/", "{2}"],
    ["csplit", "-f", "pre", "-n", "3", "n", "/5/+2", "%10%", "/15/"],
    ["csplit", "n", "30"],
    ["csplit", "n", "/nomatch/"],
    ["csplit", "-k", "n", "/3/", "{*}"],
    ["csplit", "n", "/1/"],
    ["csplit", "n", "/2/", "/2/"],
    ["csplit", "n", "/5/-2", "/5/"],
    ["csplit", "n", "5", "/5/"],
    ["csplit", "n", "%5%", "/1/"],
    ["csplit", "n", "1", "1", "5"],
    ["csplit", "n", "{3}"],
    ["csplit", "n", "0"],
    ["csplit", "-s", "n", "4", "{2}"],
    ["csplit", "-z", "n", "1", "5"],
    ["csplit", "n", "5", "3"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_matches(argv: list[str]) -> None:
    compare(argv, b"6 8\n9\n", FILES)


def test_numfmt_fields() -> None:
    compare(["numfmt", "--header", "--to=si"], b"h 1\n2000 3\n")
    compare(["numfmt", "--field=1,2", "--to=si"], b"1000 2000\n")
    compare(["numfmt", "--field=2-", "--to=si"], b"1000 2000 3000\n")
    compare(["numfmt", "--field=2", "-d", ":", "--to=si"], b"a:2000:3\n")


@pytest.mark.parametrize(
    "args",
    [
        ["-l", "7", "n"],
        ["-l", "8", "-d", "n", "p_"],
        ["-b", "20", "--additional-suffix=.t", "n", "q"],
        ["-n", "3", "n", "r"],
        ["-n", "l/3", "n", "s"],
        ["-n", "r/2", "n", "w"],
        ["-C", "8", "n", "c"],
        ["-n", "l/7", "n", "m"],
        ["-e", "-n", "30", "n", "e"],
        ["-n", "30", "n", "f"],
        ["-l", "3", "-x", "n"],
        ["--numeric-suffixes=7", "-l", "5", "n", "g"],
        ["-a", "3", "-l", "10", "n"],
    ],
)
def test_split_files(args: list[str]) -> None:
    import os
    import shutil
    import tempfile

    if shutil.which("split") is None:
        pytest.skip("split not installed")
    r = run_command(["split", *args], files=FILES)
    with tempfile.TemporaryDirectory() as d:
        for name, content in FILES.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(content.encode() if isinstance(content, str) else content)
        p = oracle.run(["split", *args], cwd=d, capture_output=True, env={"LC_ALL": "C.UTF-8"})
        real = {}
        for name in sorted(os.listdir(d)):
            if name not in FILES:
                with open(os.path.join(d, name), "rb") as f:
                    real[name] = f.read()
    view = r.vfs.view("/home/user")
    ours = {n: view.read_bytes(n) for n in sorted(view.listdir(".")) if n not in FILES}
    assert (ours, r.status) == (real, p.returncode)


def test_split_widens_suffixes() -> None:
    r = run_command(
        ["split", "-l", "1", "-", "z"], stdin=b"".join(b"%d\n" % i for i in range(2000)), limits=None
    )
    names = sorted(n for n in r.vfs.view("/home/user").listdir(".") if n.startswith("z"))
    assert len(names) == 2000 and names[-1] == "zzbzx" and "zyz" in names and "zzaaa" in names


def test_split_exhausted() -> None:
    r = run_command(["split", "-a", "1", "-l", "1", "-", "t"], stdin=b"x\n" * 30)
    assert r.status == 1 and r.stderr == b"split: output file suffixes exhausted\n"


def test_csplit_removes_files_on_error() -> None:
    r = run_command(["csplit", "n", "/7/", "{5}"], files=FILES)
    assert r.status == 1 and not any(n.startswith("xx") for n in r.vfs.view("/home/user").listdir("."))
    r = run_command(["csplit", "-k", "n", "/7/", "{5}"], files=FILES)
    assert sorted(n for n in r.vfs.view("/home/user").listdir(".") if n.startswith("xx")) == [
        "xx00",
        "xx01",
        "xx02",
    ]


@pytest.mark.parametrize(
    ("script", "source", "expected"),
    [
        # GNU split refuses to create a piece that is its input (same device and inode, through a
        # link too) before it truncates it; the pieces made before stay (outputs from GNU split 9.1)
        (
            "printf abc > xaa; split -b1 xaa x",
            "xaa",
            "split: 'xaa' would overwrite input; aborting\ns=1\nxaa\nabc",
        ),
        (
            "printf abc > xab; split -b1 xab x",
            "xab",
            "split: 'xab' would overwrite input; aborting\ns=1\nxaa xab\nabc",
        ),
        (
            "printf abc > in; ln -s in xab; split -b1 in x",
            "in",
            "split: 'xab' would overwrite input; aborting\ns=1\nin xaa xab\nabc",
        ),
        (
            "printf abc > xaa; split -b1 - x < xaa",
            "xaa",
            "split: 'xaa' would overwrite input; aborting\ns=1\nxaa\nabc",
        ),
        (
            "printf 'a\\nb\\n' > xaa; split -l1 xaa x",
            "xaa",
            "split: 'xaa' would overwrite input; aborting\ns=1\nxaa\na b",
        ),
        (
            "printf abc > xaa; split -n2 xaa x",
            "xaa",
            "split: 'xaa' would overwrite input; aborting\ns=1\nxaa\nabc",
        ),
        ("printf abc > in; split -b2 in x", "in", "s=0\nin xaa xab\nabc"),
    ],
)
def test_split_never_overwrites_its_input(script: str, source: str, expected: str) -> None:
    from sandbash import Bash

    r = Bash(cwd="/tmp").exec(f"{{ {script}; }} 2>&1; echo s=$?; echo $(ls); echo $(cat {source})")
    assert r.stdout == expected + "\n"
