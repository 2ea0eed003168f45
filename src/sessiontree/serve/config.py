"""How a server was started: ``ServeConfig``, resolved once when it is made."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sessiontree.archive.collection import default_cache_dir
from sessiontree.serve.security import is_loopback, new_token
from sessiontree.store.paths import blob_dirs_near


@dataclass(frozen=True)
class ServeConfig:
    """The served folders and options; paths, cache dir, blob dirs and token settled on creation.

    Made once (by the CLI, or a test) and passed down unchanged: ``roots`` are absolute and
    resolved, ``cache_dir`` is the given one or the user cache dir, ``blob_dirs`` those of every
    root unless given, and a server reachable beyond loopback always has a ``token``.
    """

    roots: tuple[Path, ...]
    """The served folders; with more than one, keys start with each folder's agent."""
    cache_dir: Path = field(default_factory=default_cache_dir)
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    agent_dir: Path | None = None
    theme: str = "auto"
    watch: bool = True
    blob_dirs: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        roots = tuple(Path(r).expanduser().resolve() for r in self.roots)
        settle = object.__setattr__  # frozen: fields are settled here, once
        settle(self, "roots", roots)
        settle(self, "cache_dir", Path(self.cache_dir).expanduser())
        if not self.blob_dirs:
            found = (d for root in roots for d in blob_dirs_near(root, self.agent_dir))
            settle(self, "blob_dirs", tuple(dict.fromkeys(found)))
        if self.token is None and not is_loopback(self.host):
            settle(self, "token", new_token())
