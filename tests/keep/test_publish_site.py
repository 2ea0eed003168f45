"""``build --out s3://…``: a site published to a real ``rclone serve s3`` (through a proxy that
records the order of requests): only changed files travel, pages before the index that links
them, stale files deleted last."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from tests.keep.conftest import claude_session
from tests.keep.s3server import ACCESS, SECRET, FaultProxy, S3Server


@pytest.fixture
def proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    server = S3Server(tmp_path / "s3").start()
    front = FaultProxy(server)
    for key, value in {
        "AWS_ENDPOINT_URL": front.endpoint,
        "AWS_ACCESS_KEY_ID": ACCESS,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    yield front
    front.close()
    server.stop()


def publish(seen: list[tuple[str, str]]) -> str:
    seen.clear()
    result = CliRunner().invoke(cli, ["build", "--out", "s3://bucket0/site", "-j", "1", "--no-search"])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_site_published_to_a_bucket_sends_what_changed_pages_first_stale_last(
    proxy: FaultProxy, claude_root: Path
) -> None:
    seen: list[tuple[str, str]] = []

    def record(method: str, path: str, n: int) -> None:
        if method == "POST" and path.endswith("?delete"):  # obstore deletes with a multi-object POST
            seen.append(("DELETE", path))
        elif method not in ("GET", "HEAD"):
            seen.append((method, path.split("?", 1)[0].removeprefix("/bucket0/site/")))
        return None

    proxy.fault = record
    first = claude_session(
        claude_root / "-home-dev-demo", "7a7a0001-0000-4000-8000-000000000001", "first words"
    )
    second = claude_session(claude_root / "-home-dev-demo", "7b7b0002-0000-4000-8000-000000000002", "second")
    out = publish(seen)
    assert "Published to s3://bucket0/site" in out
    served = proxy.target.folder / "bucket0" / "site"
    pages = sorted(p.relative_to(served).as_posix() for p in (served / "sessions").rglob("*.html"))
    assert len(pages) == 2 and (served / "index.html").is_file()
    assert "first words" in (served / pages[0]).read_text() + (served / pages[1]).read_text()
    order = [path for method, path in seen]
    assert (
        max(order.index(p) for p in pages)
        < order.index("index.html")
        < order.index(".sessiontree/published.json")
    )
    # The top-level data the pages fetch (the pane's list, the usage page's months) before the pages.
    data = [n for n, p in enumerate(order) if "/" not in p and p.endswith(".json")]
    assert "sessions.json" in order and any(p.startswith("usage-sessions-") for p in order)
    assert max(data) < min(n for n, p in enumerate(order) if "/" not in p and p.endswith(".html"))

    assert "0 sent" in publish(seen) and [p for m, p in seen] == [".sessiontree/published.json"]

    with first.open("a") as fh:
        fh.write('{"type":"user","message":{"role":"user","content":"a later prompt"}}\n')
    publish(seen)
    sent = [p for m, p in seen if m == "PUT"]
    changed = [p for p in pages if "7a7a0001" in p]
    assert changed[0] in sent and not any("7b7b0002" in p for p in sent)
    assert sent.index(changed[0]) < sent.index("index.html")

    second.unlink()
    out = publish(seen)
    assert "1 deleted" in out
    assert [m for m, p in seen].count("DELETE") == 1 and seen[-1][0] == "DELETE", seen  # the last request
    assert not any("7b7b0002" in p.name for p in (served / "sessions").rglob("*.html"))
