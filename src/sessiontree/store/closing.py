"""One context-manager shape for the objects that hold a file or a database open."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """``with obj:`` closes it at the end, however the block ends; a subclass defines ``close``."""

    def close(self) -> None:
        """Release what the object holds (files, connections); a second call does nothing."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
