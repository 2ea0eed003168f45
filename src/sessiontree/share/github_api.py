"""Secret gists through the GitHub REST API with a token (when ``gh`` is not installed)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import httpx

from sessiontree.errors import GistNotFound, ShareError
from sessiontree.share.gist import Gist

DEFAULT_API_BASE = "https://api.github.com"
API_BASE_ENV = "SESSIONTREE_GITHUB_API"
TOKEN_ENVS = ("GH_TOKEN", "GITHUB_TOKEN")  # gh's own order of precedence
DEFAULT_TIMEOUT = 60.0


def github_token() -> str | None:
    """Return the token from GH_TOKEN or GITHUB_TOKEN, or None."""
    for name in TOKEN_ENVS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def api_base() -> str:
    """Return the API base URL (``SESSIONTREE_GITHUB_API`` overrides it, for tests and GHES)."""
    return os.environ.get(API_BASE_ENV, "").strip() or DEFAULT_API_BASE


class GitHubAPI:
    """The two gist calls sessiontree needs, with errors that say what to do."""

    def __init__(
        self,
        token: str,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = (base_url or api_base()).rstrip("/")
        self.timeout = timeout
        self._client = httpx.Client(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {token}",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "sessiontree",
            },
        )

    def __enter__(self) -> GitHubAPI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def create_gist(self, filename: str, content: str, description: str) -> Gist:
        """Create a secret gist with one file and return it."""
        body = {"description": description, "public": False, "files": {filename: {"content": content}}}
        response = self._request("POST", "/gists", json=body)
        if response.status_code != 201:
            raise ShareError(_explain(response, "create the gist"))
        try:
            data = response.json()
            gist = Gist(id=str(data["id"]), url=str(data["html_url"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ShareError("GitHub API answered without a gist id and URL") from exc
        return gist

    def delete_gist(self, gist_id: str) -> None:
        """Delete a gist."""
        response = self._request("DELETE", f"/gists/{gist_id}")
        if response.status_code == 404:
            raise GistNotFound(f"Gist {gist_id} was not found on GitHub")
        if response.status_code != 204:
            raise ShareError(_explain(response, f"delete gist {gist_id}"))

    def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            return self._client.request(method, url, **kwargs)
        except httpx.TimeoutException as exc:
            raise ShareError(
                f"GitHub API at {self.base_url} did not answer within {self.timeout:g} s: try again later"
            ) from exc
        except httpx.HTTPError as exc:
            raise ShareError(f"Cannot reach the GitHub API at {self.base_url}: {exc}") from exc


def _explain(response: httpx.Response, action: str) -> str:
    """Return a one-line reason a call failed, with what to do about it."""
    code = response.status_code
    message = _api_message(response)
    if code in (403, 429) and response.headers.get("x-ratelimit-remaining") == "0":
        return f"GitHub API rate limit reached, cannot {action}: {_reset_hint(response)}"
    if code in (403, 429) and "retry-after" in response.headers:
        wait = response.headers["retry-after"]
        return f"GitHub API secondary rate limit hit, cannot {action}: retry in {wait} s"
    if code == 401:
        return f"GitHub rejected the token in GH_TOKEN/GITHUB_TOKEN ({message}): set a valid token"
    if code in (403, 404):
        return f"GitHub refused to {action} ({code}: {message}): the token needs the gist scope"
    if code == 422:
        return f"GitHub did not accept the gist ({message})"
    if code >= 500:
        return f"GitHub API error {code}, cannot {action}: try again later"
    return f"GitHub API error {code}, cannot {action}: {message}"


def _api_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.reason_phrase or "no message"
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return response.reason_phrase or "no message"


def _reset_hint(response: httpx.Response) -> str:
    raw = response.headers.get("x-ratelimit-reset", "")
    if not raw.isdigit():
        return "try again later"
    reset = datetime.fromtimestamp(int(raw), UTC)
    minutes = max(0, round((reset - datetime.now(UTC)).total_seconds() / 60))
    return f"it resets at {reset:%H:%M} UTC (in {minutes} min)"
