"""The spinner: animated on a terminal, one plain line otherwise; echo() never tears its line."""

from __future__ import annotations

import io
import time
from collections.abc import Callable

from sessiontree.share.progress import CLEAR_LINE, FRAMES, echo, spinner

DEADLINE = 60.0  # a bound for a stuck spinner, not a timing assertion


def wait_for(condition: Callable[[], bool]) -> None:
    """Wait for a state the spinner's thread makes (under load its frames come late)."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, "the spinner never drew it"
        time.sleep(0.01)


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
        wait_for(lambda: f"\r{FRAMES[1]} Sharing..." in out.getvalue())  # two frames drawn
        echo("log line", out)
        wait_for(lambda: "Sharing..." in out.getvalue().split("log line", 1)[1])  # drawn again after it
    text = out.getvalue()
    assert f"\r{FRAMES[0]} Sharing..." in text and f"\r{FRAMES[1]} Sharing..." in text
    assert f"{CLEAR_LINE}log line\n" in text
    assert text.index("log line") < text.rindex("Sharing...")  # it went on spinning after the line
    assert text.endswith(CLEAR_LINE)
    out2 = FakeTerminal()
    echo("after", out2)
    assert out2.getvalue() == "after\n"  # no spinner left registered
