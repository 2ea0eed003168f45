"""``stats`` counts the reader's days (issue 44 item 3, one clock): real processes with ``TZ`` set,
three messages around midnight UTC that fall on other days in Los Angeles (-08:00) and in India
(+05:30); the zone is named in every output, ``--utc`` keeps UTC days, and ``--since`` / ``--until``
dates begin at the zone's midnight."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.archive.sessions import generate, set_times, write_lines

LA, INDIA = "America/Los_Angeles", "Asia/Kolkata"
TIMES = (
    datetime(2026, 3, 1, 12, tzinfo=UTC),  # the 1st everywhere
    datetime(2026, 3, 1, 20, tzinfo=UTC),  # 01:30 on the 2nd in India
    datetime(2026, 3, 2, 6, tzinfo=UTC),  # 22:00 on the 1st in Los Angeles
)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    """A pi session in three parts, one per time above; how many costed messages each holds."""
    base = tmp_path_factory.mktemp("stats-zone")
    lines = generate(12, 31)
    part = len(lines) // 3 + 1
    counts = set_times(lines, lambda n: n // part, TIMES)
    write_lines(base / "sessions" / "zone.jsonl", lines)
    return base, counts


def stats(base: Path, tz: str, *args: str) -> str:
    """Run ``sessiontree stats`` in its own process with ``TZ`` set."""
    cmd = [
        sys.executable, "-m", "sessiontree", "--agent-dir", str(base / "agent"), "stats",
        "--root", str(base / "sessions"), "--cache-dir", str(base / "cache"), *args,
    ]  # fmt: skip
    env = {**os.environ, "TZ": tz, "HOME": str(base)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def days(report: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """Day -> (messages, when it starts)."""
    return {g["key"]: (g["messages"], g["start"]) for g in report["groups"]}


def test_stats_days_are_the_machine_zones_and_named(archive: tuple[Path, list[int]]) -> None:
    base, (early, late, next_day) = archive
    utc = json.loads(stats(base, "UTC", "--json"))
    la = json.loads(stats(base, LA, "--json"))
    india = json.loads(stats(base, INDIA, "--json"))
    assert utc["zone"] == "UTC" and la["zone"] == LA and india["zone"] == INDIA
    assert days(utc) == {
        "2026-03-01": (early + late, "2026-03-01T00:00:00+00:00"),
        "2026-03-02": (next_day, "2026-03-02T00:00:00+00:00"),
    }
    assert days(la) == {"2026-03-01": (early + late + next_day, "2026-03-01T00:00:00-08:00")}
    assert days(india) == {
        "2026-03-01": (early, "2026-03-01T00:00:00+05:30"),
        "2026-03-02": (late + next_day, "2026-03-02T00:00:00+05:30"),
    }
    assert utc["total"] == la["total"] == india["total"]
    # --utc: UTC days wherever the machine is.
    assert json.loads(stats(base, LA, "--json", "--utc")) == utc
    # The week of the 1st (a Sunday) ends in India before the late messages, not in Los Angeles.
    weeks = json.loads(stats(base, INDIA, "--by", "week", "--json"))
    assert [(g["key"], g["messages"], g["start"]) for g in weeks["groups"]] == [
        ("2026-W09", early, "2026-02-23T00:00:00+05:30"),
        ("2026-W10", late + next_day, "2026-03-02T00:00:00+05:30"),
    ]
    la_weeks = json.loads(stats(base, LA, "--by", "week", "--json"))
    assert [(g["key"], g["messages"]) for g in la_weeks["groups"]] == [("2026-W09", early + late + next_day)]


def test_the_table_and_csv_name_the_zone(archive: tuple[Path, list[int]]) -> None:
    base, (early, late, next_day) = archive
    table = stats(base, LA).splitlines()
    assert table[0].startswith(f"DAY ({LA})  ")
    assert table[1].startswith("2026-03-01  ") and table[2].startswith("TOTAL  ")
    rows = list(csv.DictReader(io.StringIO(stats(base, INDIA, "--csv"))))
    assert [(r["key"], r["start"], r["messages"]) for r in rows] == [
        ("2026-03-01", "2026-03-01T00:00:00+05:30", str(early)),
        ("2026-03-02", "2026-03-02T00:00:00+05:30", str(late + next_day)),
        ("total", "", str(early + late + next_day)),
    ]
    # A zone with no name is its offset (POSIX TZ "XYZ+9" is nine hours behind UTC).
    unnamed = json.loads(stats(base, "XYZ+9", "--json"))
    assert unnamed["zone"] == "UTC-09:00"
    assert days(unnamed) == {"2026-03-01": (early + late + next_day, "2026-03-01T00:00:00-09:00")}
    by_model = stats(base, INDIA, "--by", "model", "--since", "2026-03-02").splitlines()
    assert by_model[-1] == f"Dates are days in {INDIA}."


def test_since_and_until_dates_begin_at_the_zones_midnight(archive: tuple[Path, list[int]]) -> None:
    base, (early, late, next_day) = archive
    second = ("--since", "2026-03-02", "--until", "2026-03-02", "--json")
    assert json.loads(stats(base, "UTC", *second))["total"]["messages"] == next_day
    assert json.loads(stats(base, INDIA, *second))["total"]["messages"] == late + next_day
    assert json.loads(stats(base, LA, *second))["total"]["messages"] == 0
    assert json.loads(stats(base, LA, *second, "--utc"))["total"]["messages"] == next_day
    first = ("--until", "2026-03-01", "--json")
    assert json.loads(stats(base, LA, *first))["total"]["messages"] == early + late + next_day
    assert json.loads(stats(base, INDIA, *first))["total"]["messages"] == early
    # A time without an offset is the zone's wall clock too: 21:00 on the 1st in Los Angeles is
    # 05:00 UTC on the 2nd, before the last message.
    evening = json.loads(stats(base, LA, "--since", "2026-03-01T21:00", "--json"))
    assert evening["total"]["messages"] == next_day
    assert days(evening) == {"2026-03-01": (next_day, "2026-03-01T00:00:00-08:00")}
