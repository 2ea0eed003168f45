"""Relocation: a session's artifacts copied for a fork, its files moved to another folder with undo."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from sessiontree.errors import PersistError
from sessiontree.store.atomic import temp_path_for
from sessiontree.store.paths import artifacts_dir_for
from sessiontree.store.persist import describe_os_error
from sessiontree.store.storage import SessionStorage

log = logging.getLogger(__name__)


def copy_artifacts(storage: SessionStorage, source_file: Path, target_file: Path) -> None:
    """Copy a session's artifact folder to another session's (best effort: failures are logged).

    The copy is made under a temp name and renamed when whole, so a copy cut short (SIGKILL)
    leaves a temp folder the next open removes, never a half folder that looks real.
    """
    source, target = artifacts_dir_for(source_file), artifacts_dir_for(target_file)
    if source == target or not storage.exists_sync(source) or storage.stat_sync(source).is_file:
        return
    if storage.exists_sync(target):
        log.warning("not copying artifacts %s -> %s: the target already exists", source, target)
        return
    tmp = temp_path_for(target)
    try:
        storage.copy_tree_sync(source, tmp)
    except OSError as exc:  # shutil.Error too: the files it could copy are there, keep them
        log.warning("could not copy artifacts %s -> %s: %s", source, target, exc)
    try:
        if storage.exists_sync(tmp):
            storage.rename_sync(tmp, target)
    except OSError as exc:
        log.warning("could not copy artifacts %s -> %s: %s", source, target, exc)
        try:
            storage.remove_tree_sync(tmp)
        except OSError:
            log.warning("could not remove the partial copy %s", tmp)


def movable_artifacts(storage: SessionStorage, old_file: Path, new_file: Path) -> tuple[Path, Path] | None:
    """The (old, new) artifact folders of a move, when the session has a folder to move."""
    old_art, new_art = artifacts_dir_for(old_file), artifacts_dir_for(new_file)
    if storage.exists_sync(old_art) and not storage.stat_sync(old_art).is_file:
        return old_art, new_art
    return None


def move_session_files(
    storage: SessionStorage,
    old_file: Path,
    new_file: Path,
    artifacts: tuple[Path, Path] | None,
    finish: Callable[[], None],
    undo_finish: Callable[[], None],
) -> None:
    """Rename the session file and its artifact folder, then ``finish`` (rewrite the file there).

    Any failing step undoes the earlier ones (``undo_finish`` restores the caller's state), so
    the session stays whole where it was.
    """
    undo: list[Callable[[], None]] = []
    try:
        if new_file != old_file:
            storage.ensure_dir_sync(new_file.parent)
            if storage.exists_sync(old_file):
                storage.rename_sync(old_file, new_file)
                undo.append(lambda: storage.rename_sync(new_file, old_file))
            if artifacts is not None:
                storage.rename_sync(*artifacts)
                undo.append(lambda: storage.rename_sync(artifacts[1], artifacts[0]))
        finish()
    except (OSError, PersistError) as exc:
        undo_finish()
        for step in reversed(undo):
            try:
                step()
            except OSError as undo_exc:
                log.error("rollback of session move failed: %s", undo_exc)
        raise PersistError(
            f"Cannot move session to {new_file.parent}: {describe_os_error(exc)}; it was left in place"
        ) from exc
