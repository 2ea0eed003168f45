"""One Pagefind service process per batch of documents: HTML documents in, the bundle's files back.

The service's ``WriteFiles`` answers before its files are on disk (its writes finish in the
background and a close kills them: 14 of 150 builds wrote a damaged bundle). ``GetFiles``
answers with every file's bytes, so when that answer has arrived the bundle is complete by
construction, and the builder writes it itself. The service reads its requests from stdin and
exits at end of file, so it dies with the build however the build ends.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import importlib
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from sessiontree.errors import SearchIndexError

_READ = 1 << 16
WINDOW = 16
"""Documents sent ahead of the service's answers: more would only queue in its memory."""
_UNUSED = re.compile(r"pagefind-(?:ui|modular-ui|component-ui|highlight)\.(?:js|css)")
"""Files of Pagefind's own search UIs: the site has its own box, so they are left out of bundles."""


def _executable() -> Path:
    # pagefind.service's own get_executable, in its order, without importing that module: it
    # imports asyncio (~90 ms of every build's start, an incremental build's too).
    named = os.getenv("PAGEFIND_BINARY_PATH")
    if named is not None:
        return Path(named)
    for package in ("pagefind_bin_extended", "pagefind_bin"):
        try:
            found = importlib.import_module(package).get_executable()
        except ImportError:
            continue
        return Path(found)
    path = shutil.which("pagefind_extended") or shutil.which("pagefind")
    if path is None:
        raise SearchIndexError(
            "Pagefind is not installed; install sessiontree with its build extra or pass --no-search"
        )
    return Path(path)


def _frame(message_id: int, payload: dict[str, Any]) -> bytes:
    text = json.dumps({"message_id": message_id, "payload": payload}, ensure_ascii=True)
    return base64.b64encode(text.encode("ascii")) + b","


class _Answers(threading.Thread):
    """Reads the service's comma-ended base64 JSON answers as they come; keeps the files or the error."""

    def __init__(self, stream: IO[bytes], on_answer: Callable[[], None] | None) -> None:
        super().__init__(name="pagefind-answers", daemon=True)
        self.stream = stream
        self.on_answer = on_answer
        self.files: dict[str, bytes] | None = None
        self.error: str | None = None
        self.finished = threading.Event()
        self.window = threading.Semaphore(WINDOW)

    def run(self) -> None:
        buffer = bytearray()
        searched = 0
        try:
            while not self.finished.is_set():
                chunk = self.stream.read1(_READ)  # type: ignore[attr-defined]
                if not chunk:
                    self.error = self.error or "the Pagefind service stopped before it answered"
                    return
                buffer += chunk
                while (end := buffer.find(b",", searched)) >= 0:
                    self._answer(bytes(buffer[:end]))
                    del buffer[: end + 1]
                    searched = 0
                searched = len(buffer)
        except (OSError, ValueError) as exc:
            self.error = f"reading Pagefind's answers: {exc}"
        finally:
            self.finished.set()

    def _answer(self, frame: bytes) -> None:
        try:
            answer = json.loads(base64.b64decode(frame, validate=True))
            payload = answer["payload"]
            kind = payload["type"]
        except (ValueError, binascii.Error, KeyError, TypeError):
            self.error = "Pagefind answered something that is not an answer"
            self.finished.set()
            return
        if kind == "Error":
            self.error = f"Pagefind: {payload.get('message')}"
            self.finished.set()
            self.window.release()
        elif kind == "GetFiles":
            self.files = {
                str(f["path"]): base64.b64decode(f["content"])
                for f in payload.get("files", ())
                if not _UNUSED.fullmatch(str(f["path"]))
            }
            self.finished.set()
        elif kind == "IndexedFile":
            self.window.release()
            if self.on_answer is not None:
                self.on_answer()


def index_documents(
    documents: Iterable[tuple[str, str]], on_document: Callable[[], None] | None = None
) -> dict[str, bytes]:
    """Index ``(url, html)`` documents in a fresh service; return the bundle's files (path -> bytes).

    ``on_document`` is called (from a reader thread) as each document is indexed.
    """
    try:
        proc = subprocess.Popen(
            [str(_executable()), "--service"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:
        raise SearchIndexError(f"Pagefind could not start: {exc}") from None
    assert proc.stdin is not None and proc.stdout is not None  # started with pipes
    answers = _Answers(proc.stdout, on_document)
    answers.start()
    try:
        try:
            message = 1
            proc.stdin.write(_frame(message, {"type": "NewIndex", "config": None}))
            for url, html in documents:
                while not answers.window.acquire(timeout=0.5):
                    if answers.finished.is_set():
                        break
                if answers.finished.is_set():
                    break
                message += 1
                add = {"type": "AddFile", "index_id": 0, "url": url, "file_path": None, "file_contents": html}
                proc.stdin.write(_frame(message, add))
                proc.stdin.flush()
            proc.stdin.write(_frame(message + 1, {"type": "GetFiles", "index_id": 0}))
            proc.stdin.flush()
        except OSError:
            pass  # the service is gone: the reader says why
        answers.finished.wait()
        if answers.error is not None or answers.files is None:
            raise SearchIndexError(answers.error or "Pagefind gave no files")
        return answers.files
    finally:
        # End of input is the service's signal to exit; it holds nothing that needs finishing.
        with contextlib.suppress(OSError):
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        answers.join(timeout=10)
        proc.stdout.close()
