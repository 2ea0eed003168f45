"""Plant corpus secrets in every place a session holds text, and read back what a page shows."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from sessiontree.exporter.page import unpack_fragments
from tests.share.corpus import Secret

PLACEMENTS = (
    "user",
    "thinking",
    "tool-args",
    "tool-output",
    "bash-ansi",
    "markdown",
    "title",
    "label",
    "custom",
)


def with_ansi(secret: Secret) -> str:
    """Colour the secret as ``grep --color=always`` does, with one more code inside the token."""
    value = secret.value
    cut = max(1, len(value) // 3)
    coloured = f"\x1b[01;31m\x1b[K{value[:cut]}\x1b[0;1m{value[cut:]}\x1b[m\x1b[K"
    return "\x1b[32m$\x1b[0m " + secret.context.replace("{s}", coloured)


def with_markdown_escapes(secret: Secret) -> str:
    """Write the secret as markdown that shows it unchanged: ``\\_``, ``\\-`` and an entity."""
    value = secret.value.replace("\\", "\\\\").replace("_", "\\_").replace("-", "\\-").replace("*", "\\*")
    # One character as a numeric entity, one as a named one where there is a ``.``.
    i = next((k for k, c in enumerate(value) if c.isalnum()), 0)
    value = value[:i] + f"&#{ord(value[i])};" + value[i + 1 :]
    value = value.replace(".", "&period;", 1)
    return secret.context.replace("{s}", value)


def standalone(secret: Secret) -> bool:
    """Tell whether the value alone says it is a secret (a prefix), so it can be planted bare."""
    return len(secret.fixed) >= 2 and secret.fixed[0].isalpha() and not secret.kind.endswith("password")


def _entry(n: int, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"p{n:07d}",
        "parentId": parent,
        "timestamp": f"2026-02-16T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        **fields,
    }


def planted_entries(secrets: list[Secret], placements: tuple[str, ...] = PLACEMENTS) -> list[dict[str, Any]]:
    """Return a chain of entries holding every secret in every placement (but the title)."""
    entries: list[dict[str, Any]] = []

    def add(**fields: Any) -> str:
        parent = entries[-1]["id"] if entries else None
        entries.append(_entry(len(entries), parent, **fields))
        return str(entries[-1]["id"])

    def message(role: str, content: Any, **extra: Any) -> str:
        return add(type="message", message={"role": role, "content": content, **extra})

    for i, secret in enumerate(secrets):
        text = secret.text
        user_id = message("user", [{"type": "text", "text": text}] if "user" in placements else "next")
        blocks: list[dict[str, Any]] = []
        if "thinking" in placements:
            blocks.append({"type": "thinking", "thinking": f"The user pasted this:\n{text}"})
        if "markdown" in placements:
            blocks.append(
                {"type": "text", "text": f"Noted, **do not** share it:\n\n{with_markdown_escapes(secret)}"}
            )
        call_id = f"call_{i}"
        if "tool-args" in placements:
            args: dict[str, Any] = {"request": {"steps": [{"note": text, "depth": {"more": [text]}}]}}
            if standalone(secret):
                args["by_key"] = {secret.value: {"seen": True}}
            blocks.append({"type": "toolCall", "id": call_id, "name": "configure", "arguments": args})
        if blocks:
            message("assistant", blocks, provider="p", model="m", usage={"input": 1, "output": 1})
        if "tool-output" in placements:
            message("toolResult", [{"type": "text", "text": text}], toolCallId=call_id, toolName="read")
        if "bash-ansi" in placements:
            bash_id = f"bash_{i}"
            message(
                "assistant",
                [
                    {
                        "type": "toolCall",
                        "id": bash_id,
                        "name": "bash",
                        "arguments": {"command": "grep -r key ."},
                    }
                ],
                provider="p",
                model="m",
            )
            message(
                "toolResult",
                [{"type": "text", "text": with_ansi(secret)}],
                toolCallId=bash_id,
                toolName="bash",
            )
        if "label" in placements:
            add(type="label", targetId=user_id, label=text)
        if "custom" in placements:
            add(type="custom", customType="ext-state", data={"env": {"vars": [text]}})
            add(
                type="custom_message",
                customType="ext-note",
                content=text,
                display=True,
                details={"raw": text},
            )
    return entries


def write_planted_session(
    path: Path, secrets: list[Secret], placements: tuple[str, ...] = PLACEMENTS
) -> Path:
    """Write a v3 session holding every secret in every placement; the title holds them all too."""
    header = {
        "type": "session",
        "version": 3,
        "id": "5eed5eed5eed5eed",
        "timestamp": "2026-02-16T10:00:00.000Z",
    }
    header["cwd"] = "/home/dev/app"
    if "title" in placements:
        header["title"] = " | ".join(s.text for s in secrets)
    lines = [json.dumps(header)] + [json.dumps(e) for e in planted_entries(secrets, placements)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _strings(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def shown_text(page: str) -> str:
    """Return every text a page holds: markup, fragments unpacked, st-data decoded, tags removed."""
    match = re.search(r'<script type="application/json" id="st-data">(.*?)</script>', page, re.DOTALL)
    assert match, "no st-data in the page"
    data = json.loads(match.group(1))
    frags = unpack_fragments(data.pop("frags"))
    parts = [page, *frags, *_strings(data)]
    joined = "\n".join(parts)
    untagged = re.sub(r"<[^>]*>", "", joined)
    return "\n".join([joined, html.unescape(joined), html.unescape(untagged)])


def surviving(secrets: list[Secret], text: str) -> list[Secret]:
    """Return the secrets of which the text still shows the whole or a piece."""
    lowered = text.lower()
    return [s for s in secrets if any(f in text or f.lower() in lowered for f in s.fragments())]
