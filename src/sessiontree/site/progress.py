"""What a build tells its caller as it goes: steps, items done, one-line notes."""

from __future__ import annotations

from typing import Protocol


class BuildProgress(Protocol):
    """Receives a build's progress (the CLI draws a bar on a terminal, lines on a pipe)."""

    def begin(self, step: str, total: int | None = None) -> None:
        """A step starts: ``total`` items, or None when it has no count."""

    def advance(self, done: int, label: str) -> None:
        """``done`` items of the current step are finished; ``label`` names the last one."""

    def end(self) -> None:
        """The current step is over."""

    def note(self, message: str) -> None:
        """Something the user should read (a warning, a wait)."""


class Silent:
    """Progress that goes nowhere (the library's default)."""

    def begin(self, step: str, total: int | None = None) -> None:
        pass

    def advance(self, done: int, label: str) -> None:
        pass

    def end(self) -> None:
        pass

    def note(self, message: str) -> None:
        pass
