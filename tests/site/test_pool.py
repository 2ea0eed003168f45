"""The build's process pool: a worker that dies costs its own session only."""

from __future__ import annotations

import os
from pathlib import Path

from sessiontree.site.pool import DIED, Spare, run_jobs
from sessiontree.site.worker import RenderJob, RenderOutcome


def die_on_bad(job: RenderJob) -> RenderOutcome:
    """Render stand-in run in the pool: the worker given "bad" dies as an OOM kill would."""
    if job.key == "bad":
        os._exit(9)
    return RenderOutcome(job.key, sha256=str(os.getpid()))


def _job(key: str, tmp_path: Path) -> RenderJob:
    return RenderJob(
        path=tmp_path / key, key=key, site=tmp_path, page=f"{key}.html", records=f"{key}.gz", theme="auto"
    )


def test_a_dead_worker_fails_only_its_session_and_the_rest_render(tmp_path: Path) -> None:
    keys = ["a", "b", "bad", "c", "d", "e"]
    seen: list[tuple[int, int]] = []
    outcomes = list(
        run_jobs([_job(k, tmp_path) for k in keys], 2, lambda d, t, k: seen.append((d, t)), die_on_bad)
    )
    by_key = {o.key: o for o in outcomes}
    assert sorted(by_key) == sorted(keys)
    assert by_key["bad"].error == DIED
    assert all(by_key[k].error is None for k in keys if k != "bad")
    assert all(by_key[k].sha256 != str(os.getpid()) for k in keys if k != "bad")  # rendered in workers
    assert [d for d, _ in seen] == list(range(1, 7)) and {t for _, t in seen} == {6}


def test_a_spare_worker_renders_the_first_job_and_one_unused_ends(tmp_path: Path) -> None:
    spare = Spare(die_on_bad)
    assert spare.worker is not None
    first = spare.worker.proc.pid
    outcomes = list(run_jobs([_job("a", tmp_path)], 2, None, die_on_bad, spare=spare))
    assert [(o.key, o.sha256) for o in outcomes] == [("a", str(first))]  # rendered by the spare
    assert spare.worker is None
    unused = Spare(die_on_bad)
    proc = unused.worker.proc if unused.worker is not None else None
    assert proc is not None and proc.poll() is None
    unused.close()
    assert proc.poll() is not None and unused.worker is None
    other = Spare()  # started for another render: not used, ended
    assert other.worker is not None
    its = other.worker.proc
    (done,) = run_jobs([_job("b", tmp_path)], 1, None, die_on_bad, spare=other)
    assert done.error is None and done.sha256 not in (str(its.pid), str(os.getpid()))
    assert its.poll() is not None and other.worker is None
