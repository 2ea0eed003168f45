"""The error tree: every class in errors.py under a group named for what went wrong, drawn in its
docstring as it is; exit codes as the CLI has always given them."""

from __future__ import annotations

import inspect
import re

from sessiontree import errors
from sessiontree.errors import SessiontreeError

GROUPS = {"NotFoundError", "BadInputError", "ConflictError", "IndexFailure", "PublishFailure", "StartFailure"}


def _classes() -> dict[str, type[SessiontreeError]]:
    return {
        name: value
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, SessiontreeError)
    }


def _drawn() -> dict[str, str]:
    """Each class of the docstring's tree -> the class it is drawn under."""
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in (errors.__doc__ or "").splitlines():
        match = re.match(r"^([ |*+]*?)([*+]) (\w+)", line)
        if match is None:
            continue
        depth, name = len(match.group(1)), match.group(3)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            parents[name] = stack[-1][1]
        stack.append((depth, name))
    return parents


def test_the_docstring_draws_the_tree_as_it_is() -> None:
    classes = _classes()
    drawn = _drawn()
    assert set(drawn) == set(classes) - {"SessiontreeError"}
    assert {
        name: cls.__bases__[0].__name__ for name, cls in classes.items() if name != "SessiontreeError"
    } == drawn


def test_every_class_is_under_a_group_of_what_went_wrong() -> None:
    for name, cls in _classes().items():
        if name == "SessiontreeError":
            continue
        assert name in GROUPS or GROUPS & {base.__name__ for base in cls.__mro__}, name
        assert len(cls.__bases__) == 1


def test_exit_codes_are_unchanged() -> None:
    codes = {name: cls.exit_code for name, cls in _classes().items()}
    assert codes.pop("ShareCancelled") == 130
    assert set(codes.values()) == {1}


def test_the_subsystem_classes_keep_their_old_parents() -> None:
    # What callers caught before still catches the same errors.
    assert issubclass(errors.ForeignSession, errors.InvalidSession)
    assert issubclass(errors.InputFileError, errors.ExportError)
    assert issubclass(errors.ShareCancelled, errors.ShareError)
    assert issubclass(errors.GistNotFound, errors.ShareError)
