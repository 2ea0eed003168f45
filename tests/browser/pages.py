"""Hand-made contract fragments assembled by exporter/page.py (the viewer alone), and shared test inputs."""

from __future__ import annotations

import base64
import hashlib
import html
import shutil
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessiontree.exporter.page import PageOptions, assemble_page, live_script
from tests.archive.sessions import make_session, write_lines
from tests.conftest import real_file


def real_session() -> Path:
    """A real pi-harness session: custom tools, diffs, long bash output, notices."""
    return real_file("pi/kimchi-dev--session.jsonl")


def real_empty() -> Path:
    """A real session file with a header and nothing else."""
    return real_file("pi/pi-session-manager--.pi_messenger_crew_artifacts_873fc059_crew-planner_0.jsonl")


def tiny_png() -> str:
    """Return a 2x2 red PNG as a data: URL."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    ihdr = (2).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    png = (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    )
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def head(role: str) -> str:
    return (
        f'<div class="st-head"><span class="st-role">{html.escape(role)}</span>'
        '<button class="st-link" type="button" title="Copy link"></button></div>'
    )


def article(cat: str, entry_id: str, body: str, role: str | None = None) -> str:
    return (
        f'<article class="st-entry st-{cat}" data-id="{html.escape(entry_id)}">'
        f"{head(role or cat)}{body}</article>"
    )


def text(value: str) -> str:
    return f'<div class="st-text"><p>{html.escape(value)}</p></div>'


def long_output(lines: list[str], preview: int = 3) -> str:
    shown = html.escape("\n".join(lines[:preview]))
    rest = html.escape("\n".join(lines[preview:]))
    more = len(lines) - preview
    return (
        f'<div class="st-output" data-more="{more}"><pre class="st-preview">{shown}'
        f'<span class="st-rest" hidden>\n{rest}</span></pre>'
        f'<button class="st-more" type="button">{more} more lines</button></div>'
    )


def tool_call(call_id: str, name: str, args: str) -> str:
    return (
        f'<div class="st-call" data-call-id="{html.escape(call_id)}" data-status="pending">'
        f'<div class="st-call-head"><span class="st-tool-name">{html.escape(name)}</span> '
        f"<code>{html.escape(args)}</code></div>"
        '<div class="st-call-result"></div></div>'
    )


def tool_result(call_id: str, body: str) -> str:
    return f'<div class="st-result" data-call-id="{html.escape(call_id)}">{body}</div>'


@dataclass
class Built:
    """Entries meta, fragments and images of a hand-made session."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    frags: list[str] = field(default_factory=list)
    images: dict[str, str] = field(default_factory=dict)

    def add(self, frag: str, **meta: Any) -> str:
        meta.setdefault("parentId", self.entries[-1]["id"] if self.entries else None)
        meta.setdefault("type", "message")
        meta.setdefault("preview", "")
        meta.setdefault("ts", "2026-02-16T10:21:00.000Z")
        self.entries.append(meta)
        self.frags.append(frag)
        return str(meta["id"])


def branchy_session() -> Built:
    """Build a small session: thinking, a tool call with a long output, an image, a label, two branches.

    u1 -> a1 (calls c1) -> t1 -> a2 -> u2 -> a3          (main branch, leaf a3)
                                   \\-> u2b -> a3b        (other branch)
    plus a label entry (meta) under a3 and a model-change notice.
    """
    b = Built()
    png = tiny_png()
    sha = hashlib.sha256(png.encode()).hexdigest()
    b.images[sha] = png
    b.add(
        article("user", "u1", text("Hello tree, please list files")),
        id="u1",
        role="user",
        cat="user",
        preview="Hello tree, please list files",
        label="checkpoint",
    )
    think = '<details class="st-thinking"><summary>Thinking</summary><p>secret plan zebra</p></details>'
    b.add(
        article("assistant", "a1", think + text("Listing.") + tool_call("c1", "bash", "ls -la")),
        id="a1",
        role="assistant",
        cat="assistant",
        preview="Listing.",
        calls=["c1"],
    )
    lines = [f"file-{k}.txt" for k in range(12)]
    b.add(
        article("tool", "t1", tool_result("c1", long_output(lines))),
        id="t1",
        role="toolResult",
        cat="tool",
        preview="file-0.txt",
        result="c1",
    )
    b.add(
        article("notice", "m1", '<p class="st-notice-text">Model changed to anthropic/claude-x</p>'),
        id="m1",
        type="model_change",
        cat="notice",
        preview="model anthropic/claude-x",
    )
    b.add(
        article("assistant", "a2", text("Here are the files.")),
        id="a2",
        role="assistant",
        cat="assistant",
        preview="Here are the files.",
    )
    b.add(
        article(
            "user", "u2", text("Show me the picture") + f'<img class="st-img" data-img="{sha}" alt="pic">'
        ),
        id="u2",
        role="user",
        cat="user",
        preview="Show me the picture",
    )
    b.add(
        article("assistant", "a3", text("A red square.")),
        id="a3",
        role="assistant",
        cat="assistant",
        preview="A red square.",
    )
    b.add(
        article("meta", "l1", text("label: done")),
        id="l1",
        type="label",
        cat="meta",
        preview="label done",
        parentId="a3",
    )
    b.add(
        article("user", "u2b", text("Alternate question walrus")),
        id="u2b",
        role="user",
        cat="user",
        preview="Alternate question walrus",
        parentId="a2",
    )
    b.add(
        article("assistant", "a3b", text("Alternate answer.")),
        id="a3b",
        role="assistant",
        cat="assistant",
        preview="Alternate answer.",
    )
    return b


def linear_session(turns: int) -> Built:
    """Build a long linear session of user/assistant pairs (scrolling, windowing, j/k)."""
    b = Built()
    for k in range(turns):
        b.add(
            article("user", f"u{k}", text(f"question number {k}")),
            id=f"u{k}",
            role="user",
            cat="user",
            preview=f"question number {k}",
        )
        b.add(
            article("assistant", f"a{k}", text(f"answer number {k} " + "lorem ipsum " * 20)),
            id=f"a{k}",
            role="assistant",
            cat="assistant",
            preview=f"answer number {k}",
        )
    return b


def write_page(
    built: Built,
    out: Path,
    *,
    leaf_id: str | None = None,
    theme: str = "auto",
    compress: bool = True,
    title: str = "Test session",
) -> Path:
    """Assemble ``built`` with the real page assembler and write it to ``out``.

    These pages carry the live script, as a served page does, so tests can drive ``appendEntry``.
    """
    leaf = leaf_id if leaf_id is not None else (built.entries[-1]["id"] if built.entries else None)
    session = {"id": "sess-1", "title": title, "cwd": "/tmp/project", "timestamp": "2026-02-16T10:20:00Z"}
    header = f"<h1>{html.escape(title)}</h1>"
    page = assemble_page(
        session,
        built.entries,
        built.frags,
        built.images,
        header,
        "<p>system</p>",
        leaf_id=leaf,
        compress=compress,
        options=PageOptions(theme=theme, compress=compress, extra_scripts=(live_script(),)),
    )
    out.write_text(page, encoding="utf-8")
    return out


def write_sessions_folder(root: Path) -> Path:
    """Fill a sessions folder: real pi sessions (one empty), generated ones on three days, a broken file."""
    project = root / "--home-dev-real--"
    project.mkdir(parents=True)
    for real in (real_session(), real_file("pi/kimchi-dev--statsuline.jsonl"), real_empty()):
        shutil.copy(real, project / real.name)
    (project / "broken.jsonl").write_text("not a session\n", encoding="utf-8")
    for i in range(3):
        path, lines = make_session(
            root / "--home-dev-demo--", f"s{i}", seed=40 + i, title=f"Session {i}", days=i
        )
        write_lines(path, lines)
    return root
