"""/dev/fd/N of a file gone from its name (removed or renamed away): the descriptor's own file,
opened anew with an offset of its own, in the modes the descriptor itself has (a read-only
descriptor never becomes a way to write a file it was not opened to write). Compiled and walked."""

from __future__ import annotations

import pytest

from sandbash import Policy

from .walking import compiled_and_walked

ROWS = [
    # (script, stdout, stderr)
    (
        "printf 'a\\nb\\n' > f; exec 3<f; rm f; read -r x <&3; cat /dev/fd/3; read -r y <&3; echo $x$y",
        "a\nb\nab\n",
        "",
    ),
    ("echo x > f; exec 3<f; mv f g; cat < /dev/fd/3; cat <&3; cat g", "x\nx\nx\n", ""),
    ("exec 3>f; rm f; echo one >&3; echo two >> /dev/fd/3; echo three >&3; exec 3<&-; ls", "", ""),
    (
        "echo x > f; exec 3<f; rm f; echo y > /dev/fd/3; echo rc=$?; cat <&3",
        "rc=1\nx\n",
        "bash: line 1: echo: write error: Bad file descriptor\n",
    ),
    (
        "echo x > f; exec 3<f; rm f; echo y | tee /dev/fd/3; echo rc=$?; cat <&3",
        "y\nrc=1\nx\n",
        "tee: /dev/fd/3: Bad file descriptor\n",
    ),
    (
        "exec 3>f; rm f; echo w >&3; cat /dev/fd/3; echo rc=$?",
        "rc=1\n",
        "cat: /dev/fd/3: Bad file descriptor\n",
    ),
    (
        "echo d > t; exec 4<>t; rm t; cat /dev/fd/4; echo more >&4; cat < /dev/fd/4; truncate -s 0 /dev/fd/4 2>/dev/null; cat <&4",
        "d\nmore\n",
        "",
    ),
]


@pytest.mark.parametrize(("script", "out", "err"), ROWS)
def test_dev_fd_of_a_file_gone_from_its_name(script: str, out: str, err: str) -> None:
    for got in compiled_and_walked("cd /tmp; " + script):
        assert got == (out, err, 0)


def test_a_read_only_grant_stays_read_only_through_dev_fd() -> None:
    policy = Policy(paths=["/data:ro", "/tmp:rw"], mode="remediation")
    script = "echo x > /tmp/f; exec 3</data/f; echo y > /dev/fd/3; echo rc=$?; cat /data/f"
    for stdout, stderr, _ in compiled_and_walked(script, policy=policy, files={"/data/f": "keep\n"}):
        assert stdout == "rc=1\nkeep\n"
        assert "/dev/fd/3" in stderr


@pytest.mark.parametrize(
    ("script", "out"),
    [
        # commands that size or leave a regular standard input where GNU does (tell, reposition)
        (
            "printf '1\\n2\\n3\\n' > f; exec 3<f; rm f; { head -n 1; cat; } < /dev/fd/3; cat <&3 | wc -l",
            "1\n2\n3\n3\n",
        ),
        (
            "printf 'abc' > f; exec 3<f; rm f; { read -n 1 c; wc -c; } < /dev/fd/3; read -n 2 d <&3; echo $d",
            "2\nab\n",
        ),
        (
            "seq 5 > f; exec 3<f; mv f g; { sed 2q; cat; } < /dev/fd/3 | tr '\\n' ' '; echo; cat <&3 | head -1",
            "1 2 3 4 5 \n1\n",
        ),
    ],
)
def test_a_gone_files_own_offset_serves_position_readers(script: str, out: str) -> None:
    for got in compiled_and_walked("cd /tmp; " + script):
        assert got == (out, "", 0)
