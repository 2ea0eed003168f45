"""The two-core render gives exactly the page a serial render gives."""

from __future__ import annotations

import os

import pytest

from sessiontree.exporter import parallel
from sessiontree.exporter.api import render_session_html
from sessiontree.exporter.parallel import render_all
from sessiontree.store import load_session
from tests.conftest import GenSession


def test_parallel_and_serial_pages_are_identical(
    gen_session: GenSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_path = gen_session(150, blobs=True)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ENTRIES", 10)
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    forked = render_session_html(load_session(session_path))
    monkeypatch.setenv(parallel.WORKERS_ENV, "1")
    serial = render_session_html(load_session(session_path))
    assert forked == serial
    assert "data:image/png;base64," in forked  # images found by the child reach the page


def test_a_failing_worker_falls_back_to_rendering_here(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ENTRIES", 2)
    monkeypatch.setattr(parallel, "WARM_ENTRIES", 3)
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")

    def render(i: int) -> tuple[dict[str, int], str]:
        if os.getpid() != parent:
            raise RuntimeError("worker breaks")
        return {"i": i}, f"<p>{i}</p>"

    images: dict[str, str] = {}
    out = list(render_all(10, render, images=lambda: images))
    assert out == [({"i": i}, f"<p>{i}</p>") for i in range(10)]


def test_small_sessions_render_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def render(i: int) -> tuple[int, str]:
        calls.append(os.getpid())
        return i, str(i)

    assert [m for m, _ in render_all(5, render, images=dict)] == [0, 1, 2, 3, 4]
    assert set(calls) == {os.getpid()}
