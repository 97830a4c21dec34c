"""curl against HTTP servers these tests start on 127.0.0.1 (private-range rule off
for them via `local_config`; tests/security/test_ssrf.py covers the rule itself)."""

from __future__ import annotations

import time

import pytest

from sandbash.limits import LimitExceeded, Limits
from sandbash.net import Credential

from .netfixtures import Server, StubResolver, echoed, local_config, run_net


def curl(
    server: Server, *args: str, stdin: bytes = b"", files: dict[str, bytes | str] | None = None, **cfg: object
) -> tuple[bytes, str, int]:
    r = run_net(["curl", *args], local_config(server, **cfg), stdin=stdin, files=files)
    return r.stdout, r.stderr.decode(), r.status


def test_get_with_curls_default_headers(server: Server) -> None:
    r = run_net(["curl", "-sS", f"{server.url}/hello?x=1"], local_config(server))
    seen = echoed(r)
    assert r.status == 0 and seen["path"] == "/hello?x=1" and seen["method"] == "GET"
    assert list(seen["headers"].items()) == [
        ("Host", f"127.0.0.1:{server.port}"),
        ("User-Agent", "curl/7.88.1"),
        ("Accept", "*/*"),
    ]


def test_scheme_defaults_to_http(server: Server) -> None:
    r = run_net(["curl", "-s", f"127.0.0.1:{server.port}/text"], local_config(server))
    assert (r.stdout, r.status) == (b"hello\n", 0)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-H", "X-Test: 1"], {"X-Test": "1"}),
        (["-H", "Accept:"], {"Accept": None}),
        (["-H", "X-Empty;"], {"X-Empty": ""}),
        (["-A", "agent/1"], {"User-Agent": "agent/1"}),
        (["-A", ""], {"User-Agent": None}),
        (["-e", "http://ref/"], {"Referer": "http://ref/"}),
        (["-u", "me:secret"], {"Authorization": "Basic bWU6c2VjcmV0"}),
        (["-b", "a=1; b=2"], {"Cookie": "a=1; b=2"}),
        (["--compressed"], {"Accept-Encoding": "deflate, gzip"}),
    ],
)
def test_request_headers(server: Server, args: list[str], expected: dict[str, str | None]) -> None:
    out, _, status = curl(server, "-s", *args, server.url + "/")
    headers = echoed_bytes(out)["headers"]
    assert status == 0
    for name, value in expected.items():
        assert headers.get(name) == value


def echoed_bytes(out: bytes) -> dict[str, object]:
    import json

    data: dict[str, object] = json.loads(out)
    return data


def test_userinfo_in_url_becomes_basic_auth(server: Server) -> None:
    out, _, _ = curl(server, "-s", f"http://me:pw@127.0.0.1:{server.port}/")
    assert echoed_bytes(out)["headers"]["Authorization"] == "Basic bWU6cHc="  # type: ignore[index]


POST = {"allowed_methods": ["GET", "HEAD", "POST", "PUT", "DELETE"]}


@pytest.mark.parametrize(
    ("args", "body", "ctype"),
    [
        (["-d", "a=1", "-d", "b=2"], "a=1&b=2", "application/x-www-form-urlencoded"),
        (["-d", "@data.txt"], "l1l2", "application/x-www-form-urlencoded"),
        (["--data-binary", "@data.txt"], "l1\r\nl2\n", "application/x-www-form-urlencoded"),
        (["--data-raw", "@data.txt"], "@data.txt", "application/x-www-form-urlencoded"),
        (
            ["--data-urlencode", "q=a b&c", "--data-urlencode", "=x y"],
            "q=a+b%26c&x+y",
            "application/x-www-form-urlencoded",
        ),
        (["--data-urlencode", "f@data.txt"], "f=l1%0D%0Al2%0A", "application/x-www-form-urlencoded"),
        (["-d", "@-"], "fromstdin", "application/x-www-form-urlencoded"),
        (["--json", '{"a":1}'], '{"a":1}', "application/json"),
        (["-d", "x", "-H", "Content-Type: text/plain"], "x", "text/plain"),
    ],
)
def test_request_bodies(server: Server, args: list[str], body: str, ctype: str) -> None:
    out, err, status = curl(
        server, "-s", *args, server.url + "/", stdin=b"fromstdin", files={"data.txt": "l1\r\nl2\n"}, **POST
    )
    seen = echoed_bytes(out)
    assert (status, seen["method"], seen["body"]) == (0, "POST", body), err
    assert seen["headers"]["Content-Type"] == ctype  # type: ignore[index]


def test_multipart_form(server: Server) -> None:
    out, _, status = curl(
        server,
        "-s",
        "-F",
        "a=1",
        "-F",
        "f=@up.txt",
        "-F",
        "g=<up.txt",
        "-F",
        "h=v;type=text/x",
        server.url + "/",
        files={"up.txt": "content\n"},
        **POST,
    )
    seen = echoed_bytes(out)
    ctype = str(seen["headers"]["Content-Type"])  # type: ignore[index]
    boundary = ctype.split("boundary=")[1]
    assert status == 0 and ctype.startswith("multipart/form-data; boundary=------------------------")
    body = str(seen["body"])
    assert f'--{boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n' in body
    assert 'name="f"; filename="up.txt"\r\nContent-Type: text/plain\r\n\r\ncontent\n\r\n' in body
    assert 'name="g"\r\n\r\ncontent\n\r\n' in body
    assert 'name="h"\r\nContent-Type: text/x\r\n\r\nv\r\n' in body
    assert body.endswith(f"--{boundary}--\r\n")


def test_get_puts_data_in_the_query(server: Server) -> None:
    out, _, _ = curl(server, "-s", "-G", "-d", "a=1", "--data-urlencode", "b=x y", server.url + "/q?z=0")
    assert echoed_bytes(out)["path"] == "/q?z=0&a=1&b=x+y"


def test_data_and_form_together_is_a_usage_error(server: Server) -> None:
    _, err, status = curl(server, "-d", "a", "-F", "b=c", server.url + "/")
    assert status == 2 and "You can only select one HTTP request method" in err


def test_methods_follow_the_configuration(server: Server) -> None:
    _, err, status = curl(server, "-d", "a=1", server.url + "/")
    assert status == 7 and "curl: (7) Access denied: method POST not allowed (allowed: GET, HEAD)" in err
    _, err, status = curl(server, "-X", "DELETE", server.url + "/")
    assert status == 7 and "method DELETE" in err
    out, _, status = curl(server, "-s", "-X", "PUT", "-d", "z", server.url + "/", **POST)
    assert status == 0 and echoed_bytes(out)["method"] == "PUT"
    assert len(server.requests) == 1


def test_head_and_include(server: Server) -> None:
    out, _, status = curl(server, "-sI", server.url + "/text")
    assert status == 0 and out.startswith(b"HTTP/1.1 200 OK\r\n") and out.endswith(b"\r\n\r\n")
    assert b"Content-Type: text/plain\r\n" in out and server.requests[0].method == "HEAD"
    out, _, _ = curl(server, "-si", server.url + "/text")
    assert out.startswith(b"HTTP/1.1 200 OK\r\n") and out.endswith(b"\r\n\r\nhello\n")


def test_output_files(server: Server) -> None:
    r = run_net(
        ["curl", "-s", "-o", "out.txt", server.url + "/text", "-O", server.url + "/dir/name.txt?x=1"],
        local_config(server),
    )
    assert r.status == 0 and r.stdout == b""
    view = r.vfs.view("/home/user")
    assert view.read_bytes("out.txt") == b"hello\n"
    assert view.read_bytes("name.txt").startswith(b"{")
    r = run_net(
        ["curl", "-s", "--create-dirs", "-o", "a/b/c.txt", server.url + "/text"], local_config(server)
    )
    assert r.vfs.view("/home/user").read_bytes("a/b/c.txt") == b"hello\n"
    r = run_net(["curl", "-O", server.url + "/"], local_config(server))
    assert r.status == 23 and "Remote file name has no length" in r.stderr.decode()
    r = run_net(["curl", "-o", "nodir/x", server.url + "/text"], local_config(server))
    assert r.status == 23 and "curl: (23) Failure writing output to destination" in r.stderr.decode()


def test_dump_header(server: Server) -> None:
    r = run_net(["curl", "-s", "-D", "h.txt", server.url + "/text"], local_config(server))
    assert r.stdout == b"hello\n"
    assert r.vfs.view("/home/user").read_bytes("h.txt").startswith(b"HTTP/1.1 200 OK\r\n")


def test_write_out(server: Server) -> None:
    out, _, _ = curl(
        server,
        "-s",
        "-o",
        "/dev/null",
        "-w",
        r"%{http_code} %{num_redirects} %{content_type} %{size_download} %{url_effective}\n%%",
        "-L",
        server.url + f"/redirect?to={server.url}/text",
    )
    assert out.decode() == f"200 1 text/plain 6 {server.url}/text\n%"
    out, err, status = curl(
        server,
        "-s",
        "-w",
        "%{http_code}:%{exitcode}:%{foo}:%header{content-type}",
        server.url + "/status/404",
    )
    assert out == b"status 404\n404:0::" and "unknown --write-out variable: 'foo'" in err and status == 0
    out, _, _ = curl(server, "-s", "-w", "%{http_code} %{errormsg}", f"{server.url}x/")
    assert out.startswith(b"000 ")


def test_fail_options(server: Server) -> None:
    out, err, status = curl(server, "-f", server.url + "/status/404")
    assert (out, status) == (b"", 22) and err == "curl: (22) The requested URL returned error: 404\n"
    out, err, status = curl(server, "-sf", server.url + "/status/500")
    assert (out, err, status) == (b"", "", 22)
    out, _, status = curl(server, "-s", "--fail-with-body", server.url + "/status/404")
    assert (out, status) == (b"status 404\n", 22)
    out, _, status = curl(server, "-s", server.url + "/status/404")
    assert (out, status) == (b"status 404\n", 0)


def test_redirects_only_with_location(server: Server) -> None:
    target = f"/redirect?to={server.url}/text"
    out, _, status = curl(server, "-s", "-w", "%{http_code} %{redirect_url}", server.url + target)
    assert status == 0 and out == f"302 {server.url}/text".encode()
    out, _, status = curl(server, "-sL", server.url + target)
    assert (out, status) == (b"hello\n", 0)
    out, _, status = curl(server, "-siL", server.url + target)
    assert out.count(b"HTTP/1.1 ") == 2


def test_redirect_limits(server: Server) -> None:
    loop = "/redirect?to=/redirect%3Fto%3D/text"
    _, err, status = curl(server, "-L", "--max-redirs", "1", server.url + loop)
    assert status == 47 and "curl: (47) Maximum (1) redirects followed" in err
    _, err, status = curl(server, "-L", server.url + loop, max_redirects=1)
    assert status == 47
    out, _, status = curl(server, "-sL", server.url + loop, max_redirects=2)
    assert (out, status) == (b"hello\n", 0)


def test_post_becomes_get_after_302_but_not_307(server: Server) -> None:
    out, _, _ = curl(server, "-sL", "-d", "a=1", server.url + "/redirect?to=/after", **POST)
    seen = echoed_bytes(out)
    assert (seen["method"], seen["body"]) == ("GET", "")
    out, _, _ = curl(server, "-sL", "-d", "a=1", server.url + "/redirect?code=307&to=/after", **POST)
    seen = echoed_bytes(out)
    assert (seen["method"], seen["body"]) == ("POST", "a=1")


def test_cookie_jar(server: Server) -> None:
    r = run_net(["curl", "-s", "-c", "jar.txt", server.url + "/cookie"], local_config(server))
    jar = r.vfs.view("/home/user").read_bytes("jar.txt").decode()
    assert (
        jar.startswith("# Netscape HTTP Cookie File") and "\tsid\tabc123\n" in jar and "\tlang\ten\n" in jar
    )
    r = run_net(
        ["curl", "-s", "-b", "jar.txt", "-b", "x=y", server.url + "/"],
        local_config(server),
        files={"jar.txt": jar},
    )
    assert echoed(r)["headers"]["Cookie"] == "x=y; sid=abc123; lang=en"
    r = run_net(
        [
            "curl",
            "-s",
            "-L",
            "-b",
            "",
            server.url + "/redirect?to=/cookie",
            "-b",
            "missing-file",
            server.url + "/",
        ],
        local_config(server),
    )
    assert r.stdout.endswith(b"\n") and '"Cookie": "sid=abc123; lang=en"' in r.stdout.decode()


def test_verbose_shows_the_exchange(server: Server) -> None:
    _, err, status = curl(server, "-sv", "-H", "X-A: 1", server.url + "/text")
    assert status == 0
    assert f"*   Trying 127.0.0.1:{server.port}...\n" in err
    assert f"> GET /text HTTP/1.1\r\n> Host: 127.0.0.1:{server.port}\r\n" in err and "> X-A: 1\r\n" in err
    assert "< HTTP/1.1 200 OK\r\n" in err and "< Content-Type: text/plain\r\n" in err


def test_credentials_are_injected_and_hidden(server: Server) -> None:
    cred = Credential(server.url + "/api", {"Authorization": "Bearer S3CRET", "X-Key": "K3Y"})
    r = run_net(
        ["curl", "-sv", "-H", "Authorization: mine", server.url + "/api/x"],
        local_config(server, credentials=[cred]),
    )
    headers = echoed(r)["headers"]
    assert headers["Authorization"] == "Bearer S3CRET" and headers["X-Key"] == "K3Y"
    err = r.stderr.decode()
    assert (
        "S3CRET" not in err
        and "K3Y" not in err
        and "> Authorization: [injected by the sandbox; hidden]" in err
    )
    r = run_net(
        ["curl", "-s", "-H", "Authorization: mine", server.url + "/apix"],
        local_config(server, credentials=[cred]),
    )
    assert echoed(r)["headers"]["Authorization"] == "mine" and "X-Key" not in echoed(r)["headers"]
    assert "S3CRET" not in repr(cred)


def test_compressed(server: Server) -> None:
    out, _, status = curl(server, "-s", "--compressed", server.url + "/gzip?n=1000")
    assert (out, status) == (b"y" * 1000, 0)
    out, _, _ = curl(server, "-s", server.url + "/gzip?n=1000")
    assert out.startswith(b"\x1f\x8b")


@pytest.mark.parametrize("query", ["n=5000", "n=5000&stream=1"])
def test_oversize_responses_fail(server: Server, query: str) -> None:
    out, err, status = curl(server, "-s", "-S", server.url + f"/big?{query}", max_response_size=1000)
    assert status == 63 and "curl: (63) Maximum file size exceeded" in err
    assert len(out) <= 1000


def test_max_filesize_and_decoded_size(server: Server) -> None:
    _, _, status = curl(server, "-s", "--max-filesize", "100", server.url + "/big?n=500")
    assert status == 63
    _, _, status = curl(server, "-s", "--compressed", server.url + "/gzip?n=200000", max_response_size=10000)
    assert status == 63  # a small compressed body may not expand past the limit


def test_max_time(server: Server) -> None:
    started = time.monotonic()
    _, err, status = curl(server, "-m", "0.5", server.url + "/slow?s=3")
    assert status == 28 and "curl: (28) Operation timed out after" in err
    assert time.monotonic() - started < 2


def test_config_timeout_and_trickling_body(server: Server) -> None:
    started = time.monotonic()
    _, _, status = curl(server, "-s", server.url + "/slow?s=3", timeout=0.5)
    assert status == 28
    out, _, status = curl(server, "-s", server.url + "/trickle?s=0.1", timeout=0.6)
    assert status == 28 and 0 < len(out) < 100  # the whole request is bounded, not each read
    assert time.monotonic() - started < 3


def test_the_runs_deadline_ends_the_run(server: Server) -> None:
    started = time.monotonic()
    with pytest.raises(LimitExceeded):
        run_net(["curl", "-s", server.url + "/slow?s=3"], local_config(server), limits=Limits(timeout=0.5))
    assert time.monotonic() - started < 2


def test_retry_on_transient_status(server: Server) -> None:
    out, err, status = curl(server, "--retry", "2", "--retry-delay", "0.01", server.url + "/status/503")
    assert status == 0 and out == b"status 503\n" and len(server.requests) == 3
    assert err.count("Warning: Problem : HTTP error. Will retry in 0 seconds.") == 2


def test_connection_errors(server: Server) -> None:
    _, err, status = curl(server, server.url + "/close")
    assert (status, err) == (52, "curl: (52) Empty reply from server\n")
    _, err, status = curl(server, "http://127.0.0.1:1/", allowed_url_prefixes=["http://127.0.0.1:1/"])
    assert status == 7 and "Failed to connect to 127.0.0.1 port 1 after" in err
    _, err, status = curl(
        server, "http://no-such-host.invalid/", allowed_url_prefixes=["http://no-such-host.invalid/"]
    )
    assert (status, err) == (6, "curl: (6) Could not resolve host: no-such-host.invalid\n")


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        ([], 2, "curl: no URL specified!\ncurl: try 'curl --help' or 'curl --manual' for more information\n"),
        (["--bogus", "x"], 2, "curl: option --bogus: is unknown\n"),
        (["-o"], 2, "curl: option -o: requires parameter\n"),
        (["-m", "soon", "x"], 2, "curl: option --max-time: expected a proper numerical parameter\n"),
        (["ftp://host/"], 1, 'curl: (1) Protocol "ftp" not supported or disabled in libcurl\n'),
        (["http://a b/"], 3, "curl: (3) URL using bad/illegal format or missing URL\n"),
        (
            ["http://127.0.0.1:1/x"],
            7,
            "curl: (7) Access denied: URL not in allow-list: http://127.0.0.1:1/x\n",
        ),
    ],
)
def test_errors(server: Server, args: list[str], status: int, message: str) -> None:
    _, err, got = curl(server, *args)
    assert got == status and err.startswith(message)


def test_last_transfer_sets_the_status(server: Server) -> None:
    out, _, status = curl(server, "-s", "http://127.0.0.1:1/", server.url + "/text")
    assert (out, status) == (b"hello\n", 0)
    _, _, status = curl(server, "-s", server.url + "/text", "http://127.0.0.1:1/")
    assert status == 7


def test_insecure_is_refused_with_a_warning(server: Server) -> None:
    out, err, status = curl(server, "-k", "-s", server.url + "/text")
    assert (out, status) == (b"hello\n", 0) and "always verifies TLS certificates" in err


def test_absent_without_network() -> None:
    for name in ("curl", "wget"):
        r = run_net([name, "http://example.com/"], None)
        assert (r.status, r.stderr) == (127, f"bash: {name}: command not found\n".encode())


def test_international_names_are_sent_as_idna(server: Server) -> None:
    resolver = StubResolver({"xn--bcher-kva.example": [["127.0.0.1"]]})
    cfg = local_config(allowed_url_prefixes=[f"http://bücher.example:{server.port}/"], resolver=resolver)
    r = run_net(["curl", "-s", f"http://BÜCHER.example:{server.port}/"], cfg)
    assert echoed(r)["headers"]["Host"] == f"xn--bcher-kva.example:{server.port}"
