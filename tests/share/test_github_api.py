"""The REST path: secret gists created and deleted through a local GitHub API server."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from sessiontree.errors import GistNotFound, ShareError
from sessiontree.share.github_api import DEFAULT_API_BASE, GitHubAPI, api_base, github_token
from tests.share.github_server import FakeGitHub, Reply, serve_github


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with serve_github() as fake:
        yield fake


def test_create_gist_posts_a_secret_gist_with_the_token(github: FakeGitHub) -> None:
    with GitHubAPI("tok-123", base_url=github.url) as api:
        gist = api.create_gist(
            "sessiontree-fix-bug-2026-02-16.html", "<html>x</html>", "sessiontree: fix bug"
        )
    assert gist.url == f"https://gist.github.com/tester/{gist.id}"
    assert gist.preview_url == f"https://gistpreview.github.io/?{gist.id}"
    [seen] = github.requests
    assert (seen.method, seen.path) == ("POST", "/gists")
    assert seen.headers["Authorization"] == "Bearer tok-123"
    assert seen.headers["Accept"] == "application/vnd.github+json"
    assert seen.body == {
        "description": "sessiontree: fix bug",
        "public": False,
        "files": {"sessiontree-fix-bug-2026-02-16.html": {"content": "<html>x</html>"}},
    }


def test_delete_gist_and_a_missing_one(github: FakeGitHub) -> None:
    with GitHubAPI("tok", base_url=github.url) as api:
        gist = api.create_gist("a.html", "x", "d")
        api.delete_gist(gist.id)
        assert github.gists == {}
        with pytest.raises(GistNotFound, match=f"Gist {gist.id} was not found"):
            api.delete_gist(gist.id)
    assert [r.method for r in github.requests] == ["POST", "DELETE", "DELETE"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            Reply(403, {"message": "API rate limit exceeded"}, {"x-ratelimit-remaining": "0"}),
            "GitHub API rate limit reached, cannot create the gist: try again later",
        ),
        (
            Reply(429, {"message": "Too Many Requests"}, {"x-ratelimit-remaining": "0"}),
            "GitHub API rate limit reached",
        ),
        (
            Reply(403, {"message": "You have exceeded a secondary rate limit"}, {"retry-after": "60"}),
            "secondary rate limit hit, cannot create the gist: retry in 60 s",
        ),
        (
            Reply(401, {"message": "Bad credentials"}),
            "GitHub rejected the token in GH_TOKEN/GITHUB_TOKEN (Bad credentials)",
        ),
        (
            Reply(404, {"message": "Not Found"}),
            "GitHub refused to create the gist (404: Not Found): the token needs the gist scope",
        ),
        (Reply(422, {"message": "Validation Failed"}), "GitHub did not accept the gist (Validation Failed)"),
        (Reply(502, None), "GitHub API error 502, cannot create the gist: try again later"),
        (Reply(201, {"nope": 1}), "GitHub API answered without a gist id and URL"),
    ],
    ids=["rate-limit-403", "rate-limit-429", "secondary", "401", "404", "422", "502", "bad-body"],
)
def test_errors_are_one_clear_line(github: FakeGitHub, reply: Reply, expected: str) -> None:
    github.replies.append(reply)
    with GitHubAPI("tok", base_url=github.url) as api, pytest.raises(ShareError) as info:
        api.create_gist("a.html", "x", "d")
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_rate_limit_reset_time_is_told(github: FakeGitHub) -> None:
    reset = int(time.time()) + 25 * 60
    github.replies.append(
        Reply(403, {"message": "rate"}, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)})
    )
    with GitHubAPI("tok", base_url=github.url) as api, pytest.raises(ShareError) as info:
        api.create_gist("a.html", "x", "d")
    hhmm = time.strftime("%H:%M", time.gmtime(reset))
    assert f"it resets at {hhmm} UTC (in 25 min)" in str(info.value)


def test_timeout_is_reported(github: FakeGitHub) -> None:
    github.replies.append(Reply(201, {"id": "1", "html_url": "u"}, delay=2.0))
    with GitHubAPI("tok", base_url=github.url, timeout=0.3) as api, pytest.raises(ShareError) as info:
        api.create_gist("a.html", "x", "d")
    assert f"GitHub API at {github.url} did not answer within 0.3 s" in str(info.value)


def test_unreachable_api_is_reported() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with GitHubAPI("tok", base_url=f"http://127.0.0.1:{port}") as api, pytest.raises(ShareError) as info:
        api.create_gist("a.html", "x", "d")
    assert f"Cannot reach the GitHub API at http://127.0.0.1:{port}" in str(info.value)


def test_mock_transport_sees_the_same_request() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            201,
            json={"id": "abc123abc123abc123ab", "html_url": "https://gist.github.com/abc123abc123abc123ab"},
        )

    with GitHubAPI("tok", transport=httpx.MockTransport(handle)) as api:
        gist = api.create_gist("a.html", "x", "d")
    assert gist.id == "abc123abc123abc123ab"
    assert str(seen[0].url) == f"{DEFAULT_API_BASE}/gists"


def test_token_and_base_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GH_TOKEN", "GITHUB_TOKEN", "SESSIONTREE_GITHUB_API"):
        monkeypatch.delenv(name, raising=False)
    assert github_token() is None
    assert api_base() == DEFAULT_API_BASE
    monkeypatch.setenv("GITHUB_TOKEN", "from-github")
    assert github_token() == "from-github"
    monkeypatch.setenv("GH_TOKEN", "from-gh")
    assert github_token() == "from-gh"  # gh's order: GH_TOKEN first
    monkeypatch.setenv("SESSIONTREE_GITHUB_API", "http://127.0.0.1:9/")
    assert api_base() == "http://127.0.0.1:9/"
