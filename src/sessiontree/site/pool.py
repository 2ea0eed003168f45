"""The build's render workers: child processes that die with the build, whatever kills it.

Each worker is a Python process running ``serve``, reading jobs on stdin and answering on
stdout, one job at a time. On Linux a worker asks the kernel to kill it when its parent dies
(``PR_SET_PDEATHSIG``); elsewhere a thread watches the parent's pid. So a SIGKILLed build leaves
no worker writing into the site, and no resource tracker or fork server (multiprocessing is not
used). A worker that dies fails only the session it held; the others go on in a new worker.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import selectors
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from sessiontree.site.worker import RenderJob, RenderOutcome, init_worker, render_job

Progress = Callable[[int, int, str], None]
"""Called after each rendered session with (done, total, key)."""
Render = Callable[[RenderJob], RenderOutcome]

_HEADER = struct.Struct(">I")
_PR_SET_PDEATHSIG = 1
_WORKER_MAIN = "import sys; from sessiontree.site.pool import serve; serve(int(sys.argv[1]), sys.argv[2])"
DIED = "the worker rendering it died (out of memory?)"


def _send(stream: IO[bytes], obj: object) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(head)
    data = stream.read(size)
    return pickle.loads(data) if len(data) == size else None


def _die_with_parent(parent: int) -> None:
    """Be killed when ``parent`` dies: the kernel's parent-death signal, or a watching thread."""
    armed = False
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # it died before the signal was armed
        os._exit(1)
    if not armed:

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.2)
            os._exit(1)

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _load(name: str) -> Render:
    module, _, attr = name.partition(":")
    found: Any = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    return found  # type: ignore[no-any-return]


def serve(parent: int, render_name: str) -> None:
    """A worker's life: render each job read from stdin, answer on the real stdout."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the build's to handle
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print from a library must not corrupt the answers
    jobs = sys.stdin.buffer
    render = _load(render_name)
    init_worker()
    while (job := _receive(jobs)) is not None:
        try:
            outcome = render(job)
        except Exception as exc:  # a bug in one session's render fails that session only
            outcome = RenderOutcome(job.key, error=f"{type(exc).__name__}: {exc}")
        _send(answers, outcome)


@dataclass
class _Worker:
    proc: subprocess.Popen[bytes]
    buffer: bytearray = field(default_factory=bytearray)
    job: RenderJob | None = None

    @property
    def fd(self) -> int:
        assert self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def give(self, job: RenderJob) -> bool:
        """Send a job; False when the worker is already gone."""
        assert self.proc.stdin is not None
        self.job = job
        try:
            _send(self.proc.stdin, job)
        except OSError:
            return False
        return True

    def take(self) -> tuple[list[RenderOutcome], bool]:
        """Read what is there: finished outcomes, and whether the worker's output ended."""
        chunk = os.read(self.fd, 1 << 16)
        self.buffer += chunk
        outcomes: list[RenderOutcome] = []
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + size:
                break
            outcomes.append(pickle.loads(bytes(self.buffer[_HEADER.size : _HEADER.size + size])))
            del self.buffer[: _HEADER.size + size]
        return outcomes, not chunk

    def stop(self, kill: bool) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if kill:
            self.proc.kill()
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        self.proc.wait()
        self.proc.stdout.close()


def _start(render_name: str) -> _Worker:
    proc = subprocess.Popen(
        [sys.executable, "-c", _WORKER_MAIN, str(os.getpid()), render_name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    return _Worker(proc)


def _name(render: Render) -> str:
    return f"{render.__module__}:{render.__qualname__}"


class Spare:
    """A worker started before its jobs are known (``prestart``): it starts up while the build
    lists its sessions. ``run_jobs`` takes it as its first worker; ``close`` ends it if unused."""

    def __init__(self, render: Render = render_job) -> None:
        self.render = render
        self.worker: _Worker | None = _start(_name(render))

    def take(self, render: Render) -> _Worker | None:
        worker, self.worker = self.worker, None
        if worker is not None and self.render is not render:
            worker.stop(kill=True)
            return None
        return worker

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop(kill=True)
            self.worker = None


def run_jobs(
    jobs: Sequence[RenderJob],
    workers: int,
    progress: Progress | None,
    render: Render = render_job,
    spare: Spare | None = None,
) -> Iterator[RenderOutcome]:
    """Render jobs in ``workers`` child processes, yielding outcomes as they end (the first one
    ``spare``'s worker when given)."""
    if not jobs:
        return
    render_name = _name(render)
    todo = list(reversed(jobs))
    total = len(jobs)
    done = 0
    pool: list[_Worker] = []
    selector = selectors.DefaultSelector()
    clean = False
    try:
        for _ in range(max(1, min(workers, total))):
            worker = (spare.take(render) if spare is not None else None) or _start(render_name)
            pool.append(worker)
            selector.register(worker.fd, selectors.EVENT_READ, worker)
            if not worker.give(todo.pop()):
                pass  # its death is read below and the job reported
            if not todo:
                break
        while done < total:
            for key, _ in selector.select():
                worker = key.data
                outcomes, ended = worker.take()
                finished = list(outcomes)
                if ended:
                    selector.unregister(worker.fd)
                    pool.remove(worker)
                    worker.stop(kill=True)
                    if worker.job is not None and not any(o.key == worker.job.key for o in outcomes):
                        finished.append(RenderOutcome(worker.job.key, error=DIED))
                    worker.job = None
                for outcome in finished:
                    done += 1
                    if worker.job is not None and worker.job.key == outcome.key:
                        worker.job = None
                    if progress:
                        progress(done, total, outcome.key)
                    yield outcome
                if todo:
                    if ended:
                        worker = _start(render_name)
                        pool.append(worker)
                        selector.register(worker.fd, selectors.EVENT_READ, worker)
                    if worker.job is None:
                        worker.give(todo.pop())
        clean = True
    finally:
        selector.close()
        for worker in pool:
            worker.stop(kill=not clean)
