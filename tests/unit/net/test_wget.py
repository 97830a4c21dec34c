from __future__ import annotations

import json

import pytest

from sandbash.testing import CommandResult

from .netfixtures import Server, local_config, run_net


def wget(
    server: Server, *args: str, files: dict[str, bytes | str] | None = None, **cfg: object
) -> CommandResult:
    return run_net(["wget", *args], local_config(server, **cfg), files=files)


def test_download_to_a_file_named_after_the_url(server: Server) -> None:
    r = wget(server, server.url + "/dir/file.txt")
    assert r.status == 0 and r.stdout == b""
    saved = json.loads(r.vfs.view("/home/user").read_bytes("file.txt"))
    assert (
        saved["headers"]["User-Agent"] == "Wget/1.21.3" and saved["headers"]["Accept-Encoding"] == "identity"
    )
    log = r.stderr.decode()
    assert f"--  {server.url}/dir/file.txt\nConnecting to 127.0.0.1:{server.port}... connected.\n" in log
    assert "HTTP request sent, awaiting response... 200 OK\n" in log and "Saving to: ‘file.txt’" in log
    assert "- ‘file.txt’ saved [" in log


def test_names_do_not_clobber(server: Server) -> None:
    r = wget(server, server.url + "/text", server.url + "/text", server.url + "/", files={"text": "old"})
    view = r.vfs.view("/home/user")
    assert view.read_bytes("text") == b"old"
    assert view.read_bytes("text.1") == b"hello\n" and view.read_bytes("text.2") == b"hello\n"
    assert view.exists("index.html")


def test_output_document(server: Server) -> None:
    r = wget(server, "-q", "-O-", server.url + "/text")
    assert (r.stdout, r.stderr, r.status) == (b"hello\n", b"", 0)
    r = wget(server, "-q", "-O", "both.txt", server.url + "/text", server.url + "/text")
    assert r.vfs.view("/home/user").read_bytes("both.txt") == b"hello\nhello\n"
    r = wget(server, "-q", "-P", "dl", server.url + "/text")
    assert r.vfs.view("/home/user").read_bytes("dl/text") == b"hello\n"


def test_headers_post_and_method(server: Server) -> None:
    r = wget(
        server,
        "-q",
        "-O-",
        "--header",
        "X-A: 1",
        "--post-data",
        "a=1",
        server.url + "/",
        allowed_methods=["GET", "POST", "PUT"],
    )
    seen = json.loads(r.stdout)
    assert (seen["method"], seen["body"], seen["headers"]["X-A"]) == ("POST", "a=1", "1")
    assert seen["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
    r = wget(
        server,
        "-q",
        "-O-",
        "--method",
        "PUT",
        "--body-data",
        "z",
        server.url + "/",
        allowed_methods=["GET", "POST", "PUT"],
    )
    assert json.loads(r.stdout)["method"] == "PUT"
    r = wget(server, "-q", "-O-", "--post-data", "a=1", server.url + "/")
    assert r.status == 4 and b"wget: Access denied: method POST not allowed" in r.stderr


def test_server_response_and_errors(server: Server) -> None:
    r = wget(server, "-S", "-O-", server.url + "/status/404")
    log = r.stderr.decode()
    assert r.status == 8 and r.stdout == b""
    assert "awaiting response... \n  HTTP/1.1 404 Not Found\n  " in log and "ERROR 404: Not Found.\n" in log
    r = wget(server, "-q", server.url + "/status/401")
    assert r.status == 6


def test_redirects(server: Server) -> None:
    r = wget(server, "-O-", server.url + "/redirect?to=/text")
    log = r.stderr.decode()
    assert r.stdout == b"hello\n" and "302 Found\nLocation: /text [following]\n" in log
    r = wget(server, "--max-redirect", "0", server.url + "/redirect?to=/text")
    assert r.status == 8 and "0 redirections exceeded." in r.stderr.decode()


def test_denied_and_unreachable(server: Server) -> None:
    r = wget(server, "http://127.0.0.1:1/")
    assert r.status == 4 and "wget: Access denied: URL not in allow-list" in r.stderr.decode()
    r = wget(server, "-t", "1", "http://127.0.0.1:1/", allowed_url_prefixes=["http://127.0.0.1:1/"])
    assert r.status == 4 and "failed: Connection refused." in r.stderr.decode()
    r = wget(server, "http://no-such-host.invalid/", allowed_url_prefixes=["http://no-such-host.invalid/"])
    assert r.status == 4 and "unable to resolve host address ‘no-such-host.invalid’" in r.stderr.decode()


def test_timeout_gives_up(server: Server) -> None:
    r = wget(server, "-T", "0.3", "-t", "1", server.url + "/slow?s=2")
    assert r.status == 4 and "Read error (Connection timed out) in headers.\nGiving up." in r.stderr.decode()


def test_too_large(server: Server) -> None:
    r = wget(server, "-q", "-O-", server.url + "/big?n=5000", max_response_size=1000)
    assert r.status == 1 and b"Maximum file size exceeded" in r.stderr


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        ([], 1, "wget: missing URL\n"),
        (["--bogus"], 2, "wget: unrecognized option '--bogus'\nUsage: wget [OPTION]... [URL]...\n"),
        (["ftp://x/"], 1, "ftp://x/: Unsupported scheme ‘ftp’.\n"),
    ],
)
def test_usage(server: Server, args: list[str], status: int, message: str) -> None:
    r = wget(server, *args)
    assert r.status == status and r.stderr.decode().startswith(message)


def test_no_verbose(server: Server) -> None:
    r = wget(server, "-nv", server.url + "/text")
    lines = r.stderr.decode().splitlines()
    assert (
        r.status == 0 and len(lines) == 1 and lines[0].endswith(f'URL:{server.url}/text [6/6] -> "text" [1]')
    )


@pytest.mark.parametrize("mode", ["auto", "gzip", "GZip"])
def test_compression_undoes_one_gzip_layer(server: Server, mode: str) -> None:
    r = wget(server, "-q", "-O-", f"--compression={mode}", server.url + "/gzip?n=1000")
    assert (r.stdout, r.stderr, r.status) == (b"y" * 1000, b"", 0)
    assert server.requests[-1].headers["Accept-Encoding"] == "gzip"
    # a file that is itself .gz is kept as it came (wget's broken-server workaround)
    r = wget(server, "-q", "-O-", f"--compression={mode}", server.url + "/file.gz?n=1000")
    assert r.stdout.startswith(b"\x1f\x8b") and r.status == 0


def test_compression_none_is_the_default(server: Server) -> None:
    for args in ([], ["--compression=none"]):
        r = wget(server, "-q", "-O-", *args, server.url + "/gzip?n=1000")
        assert r.stdout.startswith(b"\x1f\x8b") and r.status == 0
        assert server.requests[-1].headers["Accept-Encoding"] == "identity"


def test_compression_counts_decoded_bytes(server: Server) -> None:
    r = wget(
        server,
        "-q",
        "-O",
        "out",
        "--compression=auto",
        server.url + "/gzip?n=200000",
        max_response_size=10000,
    )
    assert r.status == 1 and "wget: Maximum file size exceeded" in r.stderr.decode()
    assert len(r.vfs.view("/home/user").read_bytes("out")) <= 10000


@pytest.mark.parametrize("value", ["xyz", "", "gzip,auto", "br"])
def test_compression_bad_value(server: Server, value: str) -> None:
    r = wget(server, f"--compression={value}", server.url + "/gzip?n=10")
    assert (r.stdout, r.status) == (b"", 2)
    assert r.stderr.decode() == f"wget: --compression: Invalid value ‘{value}’.\n"
