"""The shared boundary: one read-open relative to a root, one clamped time conversion."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sessiontree.store.pricing import _day
from sessiontree.store.storage import open_regular, read_reason
from sessiontree.store.times import MAX_TIME_MS, time_millis, utc_day


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "in.jsonl").write_text("inside\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return root


def test_a_file_inside_its_root_opens(root: Path) -> None:
    (root / "link.jsonl").symlink_to("sub/in.jsonl")  # a link that stays inside is followed
    with open_regular(root / "link.jsonl", root) as fh:
        assert fh.read() == b"inside\n"


@pytest.mark.parametrize("link", ["../secret.txt", "sub/../../secret.txt", "/etc/passwd"])
def test_a_link_out_of_its_root_is_never_opened(root: Path, link: str) -> None:
    (root / "out.jsonl").symlink_to(link)
    with pytest.raises(OSError) as caught:
        open_regular(root / "out.jsonl", root)
    assert caught.value.errno == errno.EXDEV and read_reason(caught.value) == "it links outside its root"


def test_a_folder_linked_out_of_its_root_is_refused_for_what_is_under_it(root: Path, tmp_path: Path) -> None:
    (root / "away").symlink_to(tmp_path)
    with pytest.raises(OSError, match="outside its root"):
        open_regular(root / "away" / "secret.txt", root)
    with open_regular(tmp_path / "secret.txt") as fh:  # no root: no fence
        assert fh.read() == b"outside\n"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.symlink_to(p.name), "a symlink loop"),
        (lambda p: p.symlink_to("nowhere"), "it is a link to nothing"),
        (lambda p: os.mkfifo(p), "it is a named pipe"),
        (lambda p: p.mkdir(), "it is a directory"),
    ],
)
def test_what_cannot_be_read_says_why_in_one_line(root: Path, make: object, reason: str) -> None:
    path = root / "odd.jsonl"
    make(path)  # type: ignore[operator]
    for fence in (None, root):
        with pytest.raises(OSError) as caught:
            open_regular(path, fence)
        assert read_reason(caught.value) == reason


def test_a_file_under_a_file_says_a_part_of_its_path_is_not_a_folder(root: Path) -> None:
    with pytest.raises(OSError) as caught:
        open_regular(root / "sub" / "in.jsonl" / "x.jsonl", root)
    assert read_reason(caught.value) == "a part of its path is not a folder"


@pytest.mark.parametrize(
    "value",
    [
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59-14:00",
        "0001-01-01",
        1e300,
        -5,
        float("nan"),
        True,
        "x",
    ],
)
def test_a_time_out_of_range_is_no_time(value: object) -> None:
    assert time_millis(value) is None
    assert len(_day(value)) == 10  # today: the message is still priced, never an OverflowError


def test_times_in_range_convert() -> None:
    assert time_millis("2026-02-16T10:20:34.000Z") == 1_771_237_234_000
    assert time_millis("2026-02-16T10:20:34") == 1_771_237_234_000  # UTC unless it says
    assert time_millis(1_771_237_234_000) == 1_771_237_234_000
    assert utc_day(MAX_TIME_MS * 10) == "9999-12-31" and utc_day(-1) == "1970-01-01"
