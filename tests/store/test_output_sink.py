"""OutputSink: sanitising, the tail window, spilling to a real artifact file, and the fallback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessiontree.store.artifacts import ArtifactManager
from sessiontree.store.output_sink import DEFAULT_MAX_BYTES, OutputSink, count_lines, sanitize_text


def test_sanitize_keeps_newline_and_tab_only() -> None:
    raw = "a\tb\nc\r\n\x00d\x07e\x08f\x1b[31mred\x1b[0m\x7fg\x85h\x1b]0;title\x07i"
    assert sanitize_text(raw) == "a\tb\nc\ndefredghi"


def test_sanitize_replaces_lone_surrogates() -> None:
    assert sanitize_text("x\ud800y") == "x\ufffdy"


def test_count_lines() -> None:
    assert [count_lines(t) for t in ("", "a", "a\n", "a\nb", "\n\n")] == [0, 1, 1, 2, 2]


def test_small_output_stays_in_memory_and_creates_no_file(tmp_path: Path) -> None:
    path = tmp_path / "art" / "0.bash.log"
    sink = OutputSink(path, "0")
    sink.push("hello\n")
    sink.push(b"world")
    summary = sink.dump()
    assert summary.output == "hello\nworld"
    assert not summary.truncated
    assert (summary.total_lines, summary.total_bytes) == (2, 11)
    assert (summary.output_lines, summary.output_bytes) == (2, 11)
    assert summary.artifact_id is None
    assert summary.artifact_url is None
    assert not path.exists()


def test_invalid_utf8_is_replaced_and_split_characters_are_joined() -> None:
    sink = OutputSink()
    euro = "€".encode()
    sink.push(b"bad \xff\xfe byte ")
    sink.push(euro[:1])
    sink.push(euro[1:] + b" ok")
    sink.push(b"\xe2\x82")  # dangling at the end
    assert sink.dump().output == "bad \ufffd\ufffd byte € ok\ufffd"


def test_control_characters_are_dropped_from_chunks() -> None:
    sink = OutputSink()
    sink.push(b"\x1b[32mgreen\x1b[0m\r\nbell\x07\n")
    assert sink.dump().output == "green\nbell\n"


def test_past_threshold_everything_goes_to_the_artifact(tmp_path: Path) -> None:
    slot = ArtifactManager(tmp_path / "s").allocate("bash")
    chunks = [f"line {i:05d} ".encode() + b"x" * 90 + b"\n" for i in range(2000)]
    expected = b"".join(chunks)
    with OutputSink(slot.path, slot.id, spill_threshold=10_000) as sink:
        for chunk in chunks:
            sink.push(chunk)
            # The in-memory buffer never outgrows the window.
            assert sink.buffered_bytes <= 10_000
        summary = sink.dump()
    assert summary.truncated
    assert summary.artifact_id == "0"
    assert summary.artifact_url == "artifact://0"
    assert slot.path.read_bytes() == expected
    assert summary.total_bytes == len(expected)
    assert summary.total_lines == 2000
    assert summary.output_bytes <= 10_000
    assert expected.decode().endswith(summary.output)
    assert summary.output.endswith("line 01999 " + "x" * 90 + "\n")


def test_buffer_is_cut_to_the_tail_window_while_streaming(tmp_path: Path) -> None:
    sink = OutputSink(tmp_path / "0.bash.log", "0", spill_threshold=4096, tail_bytes=1000)
    for _ in range(500):
        sink.push("y" * 300)
        # Up to the threshold everything is kept; once truncated only the tail window is.
        assert sink.buffered_bytes <= (1000 if sink.truncated else 4096)
    assert sink.truncated
    summary = sink.dump()
    assert summary.output == "y" * 1000
    assert (tmp_path / "0.bash.log").stat().st_size == 150_000


def test_tail_cut_lands_on_a_character_boundary() -> None:
    sink = OutputSink(spill_threshold=101)
    for _ in range(100):
        sink.push("ж€😀")  # 2 + 3 + 4 bytes
    summary = sink.dump()
    assert summary.truncated
    assert summary.output_bytes <= 101
    assert "\ufffd" not in summary.output
    assert ("ж€😀" * 100).endswith(summary.output)


def test_one_huge_chunk_is_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "3.python.log"
    sink = OutputSink(path, "3")
    big = "z" * (DEFAULT_MAX_BYTES * 3) + "\nend\n"
    sink.push(big)
    summary = sink.dump()
    assert path.read_text() == big
    assert summary.output_bytes == DEFAULT_MAX_BYTES
    assert summary.output.endswith("\nend\n")
    assert summary.artifact_id == "3"


def test_no_artifact_path_means_tail_only_truncation() -> None:
    sink = OutputSink(spill_threshold=100)
    sink.push("a" * 250)
    summary = sink.dump()
    assert summary.truncated
    assert summary.output == "a" * 100
    assert summary.artifact_id is None


def test_unopenable_artifact_falls_back_to_tail_only(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the artifact dir should be")
    sink = OutputSink(blocker / "0.bash.log", "0", spill_threshold=100)
    sink.push("b" * 300)
    sink.push("c" * 50)
    summary = sink.dump()
    assert summary.truncated
    assert summary.artifact_id is None
    assert summary.output == "b" * 50 + "c" * 50
    assert sink.file_error is not None
    assert blocker.read_text() == "a file where the artifact dir should be"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_artifact_dir_falls_back(tmp_path: Path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        sink = OutputSink(directory / "0.bash.log", "0", spill_threshold=10)
        sink.push("x" * 20)
        assert sink.dump().artifact_id is None
        assert list(directory.iterdir()) == []
    finally:
        directory.chmod(0o700)


def test_existing_artifact_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "0.bash.log"
    path.write_text("older output")
    sink = OutputSink(path, "0", spill_threshold=10)
    sink.push("new output that spills")
    assert sink.dump().artifact_id is None
    assert path.read_text() == "older output"


def test_file_is_flushed_and_closed_by_dump(tmp_path: Path) -> None:
    path = tmp_path / "0.bash.log"
    sink = OutputSink(path, "0", spill_threshold=10)
    sink.push("0123456789abc")
    sink.dump()
    assert path.read_text() == "0123456789abc"
    with pytest.raises(ValueError, match="closed"):
        sink.push("more")


def test_on_chunk_sees_sanitised_text() -> None:
    seen: list[str] = []
    sink = OutputSink(on_chunk=seen.append)
    sink.push(b"a\x00b")
    sink.push("")
    sink.push("\x1b[1mc")
    assert seen == ["ab", "c"]


def test_spill_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        OutputSink(spill_threshold=0)


def test_spilled_output_is_readable_as_artifact_url(tmp_path: Path) -> None:
    from sessiontree.store.urls import resolve_internal_url

    session = tmp_path / "2026_x.jsonl"
    manager = ArtifactManager.for_session(session)
    manager.save("bash", "an older artifact\n")
    lines = [f"\x1b[1mstep {i}\x1b[0m\r\n".encode() for i in range(20_000)]
    with manager.open_sink("bash") as sink:
        for line in lines:
            sink.push(line)
        summary = sink.dump()
    assert summary.artifact_url == "artifact://1"
    full = "".join(f"step {i}\n" for i in range(20_000))
    resource = resolve_internal_url(summary.artifact_url, session.with_suffix(""))
    assert resource.content == full
    assert full.endswith(summary.output)
    page = resolve_internal_url("artifact://1", session.with_suffix(""), offset=19_999, limit=5)
    assert page.content == "step 19998\nstep 19999\n"
    small = manager.open_sink("python")
    small.push("short")
    assert small.dump().artifact_id is None
    assert resolve_internal_url("artifact://0", session.with_suffix("")).content == "an older artifact\n"


FSIZE_SCRIPT = """
import resource, signal, sys
from pathlib import Path
from sessiontree.store.output_sink import OutputSink
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
path = Path(sys.argv[1])
sink = OutputSink(path, "0")
for i in range(5000):
    sink.push(f"row {i:06d} ".encode() + b"." * 100 + b"\\n")
summary = sink.dump()
print(summary.artifact_id, summary.truncated, summary.output.endswith("row 004999 " + "." * 100 + "\\n"))
print(path.exists(), sink.file_error is not None)
"""


@pytest.mark.parametrize("limit", [10_000, 200_000])
def test_write_failure_drops_the_partial_artifact(tmp_path: Path, limit: int) -> None:
    import subprocess
    import sys

    path = tmp_path / "0.bash.log"
    args = [sys.executable, "-c", FSIZE_SCRIPT, str(path), str(limit)]
    done = subprocess.run(args, capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split("\n")[:2] == ["None True True", "False True"]
    assert not path.exists()
