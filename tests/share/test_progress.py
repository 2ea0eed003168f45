"""The spinner: animated on a terminal, one plain line otherwise; echo() never tears its line."""

from __future__ import annotations

import io
import time

from sessiontree.share.progress import CLEAR_LINE, FRAMES, echo, spinner


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_line_when_not_a_terminal() -> None:
    out = io.StringIO()
    with spinner("Creating gist...", out):
        echo("handler says hi", out)
    assert out.getvalue() == "Creating gist...\nhandler says hi\n"


def test_spinner_on_a_terminal_clears_before_echo_and_at_the_end() -> None:
    out = FakeTerminal()
    with spinner("Sharing...", out, interval=0.01):
        time.sleep(0.1)
        echo("log line", out)
        time.sleep(0.05)
    text = out.getvalue()
    assert f"\r{FRAMES[0]} Sharing..." in text and f"\r{FRAMES[1]} Sharing..." in text
    assert f"{CLEAR_LINE}log line\n" in text
    assert text.index("log line") < text.rindex("Sharing...")  # it went on spinning after the line
    assert text.endswith(CLEAR_LINE)
    out2 = FakeTerminal()
    echo("after", out2)
    assert out2.getvalue() == "after\n"  # no spinner left registered
