"""Delete a shared gist and mark its record in shares.jsonl."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sessiontree.errors import GistNotFound, ShareError
from sessiontree.share.gist import delete_gist_gh, find_gh, gist_id_from_url
from sessiontree.share.records import ShareRecord, find_record, now_iso, read_records, update_records


@dataclass(frozen=True)
class UnshareOutcome:
    """What ``unshare`` did: the record it marked, and whether the gist was already gone."""

    record: ShareRecord
    already_gone: bool


def unshare(agent_dir: Path, ref: str, *, api_base: str | None = None) -> UnshareOutcome:
    """Delete the gist a record points at (by gist id, gist URL or share URL) and mark the record."""
    record = find_record(read_records(agent_dir), ref, gist_id_from_url(ref))
    if record.deleted:
        raise ShareError(f"{ref} was already unshared on {record.deleted}")
    if not record.gist_id:
        raise ShareError(
            f"{ref} was shared by a custom handler ({record.backend}): remove it where the handler put it"
        )
    already_gone = False
    try:
        delete_gist(record.gist_id, api_base=api_base)
    except GistNotFound:
        already_gone = True
    stamp = now_iso()

    def mark(records: list[ShareRecord]) -> None:
        for item in records:
            if item.gist_id == record.gist_id and not item.deleted:
                item.deleted = stamp

    update_records(agent_dir, mark)
    record.deleted = stamp
    return UnshareOutcome(record=record, already_gone=already_gone)


def delete_gist(gist_id: str, *, api_base: str | None = None) -> None:
    """Delete a gist with gh when it is installed, else through the API with a token."""
    gh = find_gh()
    if gh is not None:
        delete_gist_gh(gh, gist_id)
        return
    from sessiontree.share.github_api import GitHubAPI, github_token  # httpx: only without gh

    token = github_token()
    if token is None:
        raise ShareError(
            "Cannot delete the gist: install the GitHub CLI (gh) and run 'gh auth login', "
            "or set GITHUB_TOKEN to a token with the gist scope"
        )
    with GitHubAPI(token, base_url=api_base) as api:
        api.delete_gist(gist_id)
