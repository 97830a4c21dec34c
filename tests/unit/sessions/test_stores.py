"""Session stores: compare-and-swap, expiry, size limits, listing; every store against a real server."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbash.sessions import SnapshotError, StoreConflict, open_store
from sandbash.sessions.stores import MemoryStore, SessionStore, SqliteStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "sqlite", "redis", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    kind = request.param
    if kind == "memory":
        s: Any = MemoryStore(max_bytes=1 << 20)
    elif kind == "sqlite":
        s = SqliteStore(str(tmp_path / "s.db"), max_bytes=1 << 20)
    elif kind == "redis":
        s = open_store(
            request.getfixturevalue("redis_url"), max_bytes=1 << 20, prefix=f"t{uuid.uuid4().hex}:"
        )
    else:
        s = open_store(
            request.getfixturevalue("postgres_url"), max_bytes=1 << 20, table=f"t{uuid.uuid4().hex[:12]}"
        )
    yield s
    s.close()


def test_compare_and_swap(store: SessionStore) -> None:
    assert store.load("a") is None
    v1 = store.save("a", b"one", None)
    assert store.load("a") == (b"one", v1)
    with pytest.raises(StoreConflict):
        store.save("a", b"again", None)  # it exists now
    v2 = store.save("a", b"two", v1)
    assert v2 != v1 and store.load("a") == (b"two", v2)
    with pytest.raises(StoreConflict):
        store.save("a", b"stale", v1)  # written by someone else since v1
    assert store.load("a") == (b"two", v2)


def test_keys_and_delete(store: SessionStore) -> None:
    for k in ("s:1", "s:2", "other", "s:*odd[chars]"):
        store.save(k, b"x", None)
    assert store.keys("s:") == ["s:*odd[chars]", "s:1", "s:2"]
    store.delete("s:1")
    store.delete("never-there")
    assert store.keys("s:") == ["s:*odd[chars]", "s:2"] and store.load("s:1") is None


def test_size_limit(store: SessionStore) -> None:
    with pytest.raises(SnapshotError, match="over the store's limit"):
        store.save("big", b"x" * ((1 << 20) + 1), None)
    assert store.load("big") is None


def test_binary_data_round_trips(store: SessionStore) -> None:
    data = bytes(range(256)) * 50
    v = store.save("bin", data, None)
    assert store.load("bin") == (data, v)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_expiry(kind: str, tmp_path: Path) -> None:
    clock = Clock()
    s: Any = (
        MemoryStore(clock=clock) if kind == "memory" else SqliteStore(str(tmp_path / "e.db"), clock=clock)
    )
    s.save("k", b"v", None, ttl=10)
    clock.now += 9
    assert s.load("k") is not None and s.keys() == ["k"]
    clock.now += 2
    assert s.load("k") is None and s.keys() == []
    s.save("k", b"new", None)  # an expired entry counts as absent
    assert s.load("k") == (b"new", 1)


def test_redis_expiry_is_redis_own(redis_url: str) -> None:
    import time

    s: Any = open_store(redis_url, prefix=f"e{uuid.uuid4().hex}:")
    s.save("k", b"v", None, ttl=0.2)
    time.sleep(0.6)
    assert s.load("k") is None


def test_concurrent_writers_lose_nothing(store: SessionStore) -> None:
    """Eight threads each add 15 to a counter by load/modify/save, retrying on conflict."""
    store.save("n", b"0", None)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(15):
                while True:
                    got = store.load("n")
                    assert got is not None
                    try:
                        store.save("n", str(int(got[0]) + 1).encode(), got[1])
                        break
                    except StoreConflict:
                        continue
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    got = store.load("n")
    assert got is not None and got[0] == b"120"


@pytest.mark.parametrize("url", ["ftp://x", "sqlite://relative.db", "nothing"])
def test_bad_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        open_store(url)


def test_sqlite_is_shared_by_two_stores_on_one_file(tmp_path: Path) -> None:
    a, b = SqliteStore(str(tmp_path / "x.db")), SqliteStore(str(tmp_path / "x.db"))
    v = a.save("k", b"from a", None)
    assert b.load("k") == (b"from a", v)
    with pytest.raises(StoreConflict):
        a.save("k", b"late", None)
