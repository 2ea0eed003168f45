"""Share a session: export to a private temp file, redact, publish, record; clean up always."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sessiontree.errors import ExportError, ShareCancelled, ShareError
from sessiontree.exporter import make_page
from sessiontree.readers import load_for_export
from sessiontree.share.gist import Gist, check_gh_auth, create_gist_gh, find_gh
from sessiontree.share.handlers import find_handler, run_handler
from sessiontree.share.machine_secrets import MachineSecrets, collect_machine_secrets
from sessiontree.share.progress import echo, spinner
from sessiontree.share.records import ShareRecord, append_record, now_iso
from sessiontree.share.redact import RedactionReport, Redactor, redact_entries, redact_value
from sessiontree.share.subagents import learn_subagents, redact_subagents
from sessiontree.store import Session
from sessiontree.store.atomic import write_atomic
from sessiontree.store.jsonl import frozen_gc
from sessiontree.store.storage import read_reason
from sessiontree.store.surrogates import replace_surrogates
from sessiontree.store.times import LOCAL_ZONE, time_millis
from sessiontree.store.titles import cut_title

MiB = 1024 * 1024
WARN_BYTES = 1 * MiB  # gistpreview reads the gist through the API, which cuts files at 1 MB
MAX_BYTES = 10 * MiB

Notify = Callable[[str], None]
# Asked after redaction and before the upload, with what was masked (None: redaction off).
Review = Callable[[RedactionReport | None], bool]
DRY_RUN = "dry-run"
# A share script is given an encrypted share's key here (the link's fragment is "#" + the key).
KEY_ENV = "SESSIONTREE_SHARE_KEY"


@dataclass(frozen=True)
class Backend:
    """Where a share goes: a custom handler script, the gh CLI, or the REST API with a token."""

    kind: str  # "handler" | "gh" | "api"
    target: str = field(repr=False)  # the handler path, the gh path, or the API token

    @property
    def label(self) -> str:
        """Return the name recorded in shares.jsonl."""
        return f"handler:{Path(self.target).name}" if self.kind == "handler" else self.kind


@dataclass(frozen=True)
class ShareOutcome:
    """What a share produced."""

    backend: str
    url: str | None
    message: str | None = None
    gist: Gist | None = None
    redaction: RedactionReport | None = None
    size: int = 0
    key: str | None = None  # an encrypted share's key (in ``url`` after "#"); None: a plain page


def share_session(
    source: Path | Session,
    agent_dir: Path,
    *,
    force: bool = False,
    redact: bool = True,
    notify: Notify | None = None,
    api_base: str | None = None,
    agent: str | None = None,
    review: Review | None = None,
    dry_run: Path | None = None,
    masks: Sequence[str] = (),
    encrypt: bool = True,
) -> ShareOutcome:
    """Export a session to a temp HTML file, publish it, record the share and remove the file.

    ``agent`` forces the reader of a file (claude, codex, pi); by default the content decides.
    ``review`` sees what was masked before the upload and may stop it (``ShareCancelled``);
    ``dry_run`` names a folder: the page is written there and nothing is uploaded or recorded.
    ``masks`` are more values to mask wherever they are (``--mask``), whatever they look like.
    ``encrypt`` uploads the page sealed with a fresh key (``exporter.seal``), which travels only
    in the link's ``#fragment`` and the local record; ``dry_run`` writes the readable page.
    """
    say = notify or _to_stderr
    session = _load(source, agent, say)
    try:
        backend = Backend(DRY_RUN, str(dry_run)) if dry_run is not None else choose_backend(agent_dir)
        steps = _Steps(force, redact, say, api_base, review, masks, encrypt)
        outcome = _export_and_publish(session, backend, steps)
    except KeyboardInterrupt:
        raise ShareCancelled("Share cancelled") from None
    if backend.kind == DRY_RUN:
        return outcome
    record = ShareRecord(
        time=now_iso(),
        session=str(session.path.resolve()) if session.path else "",
        url=outcome.url.split("#")[0] if outcome.url and outcome.key else outcome.url,
        backend=outcome.backend,
        gist_id=outcome.gist.id if outcome.gist else None,
        gist_url=outcome.gist.url if outcome.gist else None,
        key=outcome.key,
    )
    try:
        append_record(agent_dir, record)
    except OSError as exc:
        # The share is out there already: its links matter more than the record.
        say(f"Warning: could not record the share in {agent_dir}: {exc.strerror or exc}")
    return outcome


@dataclass(frozen=True)
class _Steps:
    """What a share does between loading the session and publishing it."""

    force: bool
    redact: bool
    say: Notify
    api_base: str | None
    review: Review | None
    masks: Sequence[str]
    encrypt: bool


def _export_and_publish(session: Session, backend: Backend, steps: _Steps) -> ShareOutcome:
    say, report = steps.say, None
    redact, masks = steps.redact, steps.masks
    # As an export: the collector never walks the loaded session while it is redacted and rendered
    # (its passes over the session's millions of objects were ~0.5 s of the 2,000-turn share's CPU).
    with frozen_gc():
        if redact:
            session, report = redact_session(session, masks)
            if report.total:
                say(f"Redacted {report.total} secret(s): {report.summary()} (--no-redact shares as is)")
            else:
                say("No secret found: nothing was masked")
        made = make_page(session)  # an export's page: subagents inline, images embedded
        # Encoded for the file and for the API upload: a lone surrogate would fail both.
        html = replace_surrogates("".join(made.chunks))
    title: str | None = plain_title(made.title)
    date, link_key = share_date(session), None
    if backend.kind != DRY_RUN and steps.encrypt:
        from sessiontree.exporter.seal import key_text, new_key, seal_page  # cryptography: only here

        key = new_key()
        html, link_key, title = seal_page(html, key), key_text(key), None  # the title stays in the page
    size = len(html.encode("utf-8"))
    check_size(size, force=steps.force, warn=say if backend.kind != "handler" else None)
    if backend.kind == DRY_RUN:
        page = Path(backend.target) / share_file_name(title, date)
        try:
            write_atomic(page, html)
        except OSError as exc:
            raise ShareError(
                f"Cannot write {page}: {read_reason(exc)}; run --dry-run from a folder you can write to"
            ) from None
        return ShareOutcome(backend=DRY_RUN, url=None, message=str(page), redaction=report, size=size)
    if steps.review is not None and not steps.review(report):
        raise ShareCancelled("Share cancelled: nothing was uploaded")
    # A private (0700) directory for the file to upload: the page may hold what redaction could
    # not recognise.
    workdir = Path(tempfile.mkdtemp(prefix="sessiontree-share-"))
    try:
        html_path = workdir / share_file_name(title, date)
        html_path.write_text(html, encoding="utf-8")
        outcome = _publish(backend, html_path, html, describe_share(title, date), steps.api_base, link_key)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return dataclasses.replace(outcome, redaction=report, size=size, key=link_key)


def _publish(
    backend: Backend, html_path: Path, html: str, description: str, api_base: str | None, key: str | None
) -> ShareOutcome:
    if backend.kind == "handler":
        with spinner("Sharing..."), _key_for_handler(key):
            result = run_handler(Path(backend.target), html_path)
        return ShareOutcome(backend=backend.label, url=with_key(result.url, key), message=result.message)
    with spinner("Creating gist..."):
        if backend.kind == "gh":
            gist = create_gist_gh(backend.target, html_path, description)
        else:
            from sessiontree.share.github_api import GitHubAPI  # httpx: only for an upload by the API

            with GitHubAPI(backend.target, base_url=api_base) as api:
                gist = api.create_gist(html_path.name, html, description)
    return ShareOutcome(backend=backend.label, url=with_key(gist.preview_url, key), gist=gist)


def with_key(url: str | None, key: str | None) -> str | None:
    """The link that opens an encrypted page: ``url`` with ``#`` and the key (once; a URL that
    carries the fragment already, as a share script may return it, is kept)."""
    if url is None or key is None or url.endswith("#" + key):
        return url
    return url.split("#")[0] + "#" + key


@contextmanager
def _key_for_handler(key: str | None) -> Iterator[None]:
    """Give a share script the key in ``SESSIONTREE_SHARE_KEY`` while it runs (unset for a plain
    page, whatever the environment held), then put the environment back."""
    before = os.environ.pop(KEY_ENV, None)
    if key is not None:
        os.environ[KEY_ENV] = key
    try:
        yield
    finally:
        os.environ.pop(KEY_ENV, None)
        if before is not None:
            os.environ[KEY_ENV] = before


def choose_backend(agent_dir: Path) -> Backend:
    """Return the custom handler if there is one, else gh (logged in), else the API with a token."""
    handler = find_handler(agent_dir)
    if handler is not None:
        return Backend("handler", str(handler))
    gh = find_gh()
    if gh is not None:
        check_gh_auth(gh)
        return Backend("gh", gh)
    from sessiontree.share.github_api import github_token  # httpx: only when there is no gh

    token = github_token()
    if token is not None:
        return Backend("api", token)
    raise ShareError(
        "GitHub CLI (gh) is not installed: install it from https://cli.github.com and run "
        "'gh auth login', or set GITHUB_TOKEN to a token with the gist scope"
    )


def _load(source: Path | Session, agent: str | None, say: Notify) -> Session:
    if isinstance(source, Session):
        if source.path is None:
            raise ExportError("Cannot export in-memory session to HTML")
        return source
    return load_for_export(source, agent=agent, warn=say)


def redact_session(
    session: Session, masks: Sequence[str] = (), machine: MachineSecrets | None = None
) -> tuple[Session, RedactionReport]:
    """Return a copy of the session with secrets masked; the original is left as it was.

    The title slot is redacted with the same values as the entries (the page's title, the gist
    description and the uploaded file's name come from it), and so are the subagent transcripts
    the page embeds: all in memory, nothing written. ``masks`` are values masked wherever they
    are (``share --mask``); ``machine`` this machine's own secrets (default: collected now, the
    session's project folder's ``.env`` files included). The report lists the random-looking
    values kept too, and why, and where the machine's secrets it masked came from.
    """
    if machine is None:
        cwd = session.header.get("cwd")
        machine = collect_machine_secrets([cwd] if isinstance(cwd, str) else [])
    redactor = Redactor(masks, machine.forms())
    learn_subagents(session.subagents, redactor)
    slot = session.title_slot
    extra = [("title-slot", slot)] if slot else []
    header, entries, report = redact_entries(session.header, session.entries, extra, redactor)
    if slot:
        slot = redact_value(slot, report, redactor=redactor, entry="title-slot")
    subagents = redact_subagents(session.subagents, redactor, report)
    report.kept = redactor.kept()
    redacted = dataclasses.replace(
        session, header=header, entries=entries, title_slot=slot, subagents=subagents
    )
    return redacted, report


def check_size(size: int, *, force: bool, warn: Notify | None) -> None:
    """Refuse pages over 10 MB unless forced; warn over 1 MB (gist previews may cut them)."""
    if size > MAX_BYTES and not force:
        raise ShareError(
            f"The exported page is {size / MiB:.1f} MB, over the {MAX_BYTES // MiB} MB share limit: "
            "pass --force to share it anyway"
        )
    if size > WARN_BYTES and warn is not None:
        warn(f"Warning: the exported page is {size / MiB:.1f} MB; gist previews may not load more than 1 MB")


def plain_title(title: str) -> str:
    """Return a page title on one line of printable characters (for file names and descriptions)."""
    return " ".join("".join(c if c.isprintable() else " " for c in title).split())


def share_date(session: Session) -> str:
    """The day the session began (``YYYY-MM-DD``) in this machine's zone, as every list shows it:
    its first entry's time, or the header's when earlier (``Session.started``); today's when it has
    none."""
    ms = time_millis(session.started)
    return LOCAL_ZONE.day_of(int(time.time() * 1000) if ms is None else ms).isoformat()


def slugify(text: str, limit: int = 40) -> str:
    """Return a lowercase ASCII slug of ``text`` (``""`` when nothing is left)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:limit].rstrip("-")


def share_file_name(title: str | None, date: str) -> str:
    """Return ``sessiontree-<title slug>-<date>.html`` (the gist's file name, not index.html); an
    encrypted page's (``title`` None: its title stays inside it) ``sessiontree-encrypted-<date>.html``."""
    slug = "encrypted" if title is None else slugify(title) or "session"
    return f"sessiontree-{slug}-{date}.html"


def describe_share(title: str | None, date: str) -> str:
    """Return the gist description: the title and the date (``title`` None: an encrypted page)."""
    shown = "encrypted session" if title is None else cut_title(title, 100) or "session"
    return f"sessiontree: {shown} ({date})"


def _to_stderr(text: str) -> None:
    echo(text)
