"""Custom share scripts in the agent dir: share.py, share.ts, share.js, share.mjs."""

from __future__ import annotations

import importlib.util
import inspect
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessiontree.errors import ShareError
from sessiontree.share.process import run_interruptible
from sessiontree.share.progress import echo

HANDLER_NAMES = ("share.py", "share.ts", "share.js", "share.mjs")
JS_RUNTIMES = ("bun", "deno", "node")
RUNNER = Path(__file__).with_name("runner.mjs")
RESULT_MARKER = "@@sessiontree-result@@"
# Node strips TypeScript types from 22.6 on (behind a flag until 23.6, where the flag is a no-op).
NODE_STRIP_TYPES = (22, 6)


@dataclass(frozen=True)
class HandlerResult:
    """What a share handler returned: a URL to show and open, a message, or neither."""

    url: str | None = None
    message: str | None = None


def find_handler(agent_dir: Path) -> Path | None:
    """Return the first share script in the agent dir, in the reference's order, or None."""
    for name in HANDLER_NAMES:
        candidate = agent_dir / name
        if candidate.is_file():
            return candidate
    return None


def run_handler(handler: Path, html_path: Path) -> HandlerResult:
    """Run a share script on the exported HTML file and return what it gave back."""
    if handler.suffix == ".py":
        value = _run_python_handler(handler, html_path)
    else:
        value = _run_js_handler(handler, html_path)
    return interpret_result(handler, value)


def interpret_result(handler: Path, value: Any) -> HandlerResult:
    """Turn a handler's return value into a result: a string is a URL, an object url/message."""
    if not value:
        return HandlerResult()
    if isinstance(value, str):
        return HandlerResult(url=value.strip() or None)
    if isinstance(value, dict):
        url, message = value.get("url"), value.get("message")
        return HandlerResult(
            url=(url.strip() or None) if isinstance(url, str) else None,
            message=message if isinstance(message, str) and message else None,
        )
    raise ShareError(
        f"Share handler {handler} returned a {type(value).__name__}: "
        "return a URL string, an object with url and/or message, or nothing"
    )


def _run_python_handler(handler: Path, html_path: Path) -> Any:
    name = "sessiontree_share_handler"
    spec = importlib.util.spec_from_file_location(name, handler)
    if spec is None or spec.loader is None:
        raise ShareError(f"Share handler {handler} failed to load: not a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered while it runs, as an import would: dataclasses and pickling look it up there.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise ShareError(f"Share handler {handler} failed to load: {_describe(exc)}") from exc
    try:
        return _call_python_handler(handler, module, html_path)
    finally:
        sys.modules.pop(name, None)


def _call_python_handler(handler: Path, module: Any, html_path: Path) -> Any:
    share = getattr(module, "share", None)
    if not callable(share):
        raise ShareError(f"Share handler {handler} failed to load: it defines no share(html_path) function")
    try:
        result = share(str(html_path))
        if inspect.isawaitable(result):
            from sessiontree.asyncrun import run_sync  # asyncio: only for an async handler

            result = run_sync(result)
    except (Exception, SystemExit) as exc:
        raise ShareError(f"Share handler {handler} failed: {_describe(exc)}") from exc
    return result


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def js_command(handler: Path, html_path: Path) -> list[str]:
    """Return the command that runs a TypeScript/JavaScript handler through the runner."""
    for runtime in JS_RUNTIMES:
        exe = shutil.which(runtime)
        if exe is None:
            continue
        if runtime == "bun":
            return [exe, "run", str(RUNNER), str(handler), str(html_path)]
        if runtime == "deno":
            return [exe, "run", "--allow-all", "--quiet", str(RUNNER), str(handler), str(html_path)]
        flags: list[str] = []
        if handler.suffix == ".ts":
            version = node_version(exe)
            if version < NODE_STRIP_TYPES:
                shown = ".".join(map(str, version)) if version else "unknown"
                raise ShareError(
                    f"Share handler {handler} is TypeScript and node {shown} cannot run it: "
                    "install bun or deno, or node 22.6 or newer"
                )
            flags = ["--experimental-strip-types", "--no-warnings"]
        return [exe, *flags, str(RUNNER), str(handler), str(html_path)]
    raise ShareError(
        f"Share handler {handler} needs a JavaScript runtime: install bun, deno or node "
        "(none was found on PATH), or write share.py instead"
    )


def node_version(exe: str) -> tuple[int, ...]:
    """Return node's version as a tuple, or () when it cannot be told."""
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    match = re.match(r"v?(\d+)\.(\d+)", out.strip())
    return tuple(int(part) for part in match.groups()) if match else ()


def _run_js_handler(handler: Path, html_path: Path) -> Any:
    command = js_command(handler, html_path)
    # The reference runs handlers in its own process, so in the user's cwd; so does this.
    code, stdout, stderr = run_interruptible(command)
    payload = _parse_runner_output(stdout)
    # The handler's own output (console.log goes to stderr in the runner) is the user's to see.
    passthrough = stdout.split("\n" + RESULT_MARKER)[0].strip("\n")
    for text in (passthrough, stderr.strip("\n")):
        if text:
            echo(text)
    if payload is None:
        tail = stderr.strip().splitlines()[-1:] or [f"exit code {code}"]
        raise ShareError(
            f"Share handler {handler} failed: {Path(command[0]).name} gave no result ({tail[0]})"
        )
    if not payload.get("ok"):
        stage = payload.get("stage")
        what = "failed to load" if stage == "load" else "failed"
        error = str(payload.get("error") or "unknown error").strip().splitlines() or ["unknown error"]
        raise ShareError(f"Share handler {handler} {what}: {error[0]}")
    return payload.get("result")


def _parse_runner_output(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            try:
                payload = json.loads(line[len(RESULT_MARKER) :])
            except json.JSONDecodeError:
                return None
            return payload if isinstance(payload, dict) else None
    return None
