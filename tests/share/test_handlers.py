"""Custom share scripts: lookup order, Python handlers, and JS/TS handlers run through node."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sessiontree.errors import ShareError
from sessiontree.share.handlers import (
    HANDLER_NAMES,
    NODE_STRIP_TYPES,
    HandlerResult,
    find_handler,
    node_version,
    run_handler,
)


@pytest.fixture
def html_file(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_text("<!doctype html><title>t</title>", encoding="utf-8")
    return path


def test_lookup_order_prefers_python_then_ts_js_mjs(tmp_path: Path) -> None:
    assert find_handler(tmp_path) is None
    for name in reversed(HANDLER_NAMES):
        (tmp_path / name).write_text("")
        assert find_handler(tmp_path) == tmp_path / name
    assert HANDLER_NAMES == ("share.py", "share.ts", "share.js", "share.mjs")


def test_a_directory_named_like_a_handler_is_not_one(tmp_path: Path) -> None:
    (tmp_path / "share.py").mkdir()
    assert find_handler(tmp_path) is None


# ---- Python handlers -------------------------------------------------------------------------

PY_HANDLERS = {
    "string": "from pathlib import Path\ndef share(html_path):\n"
    "    return 'https://example.test/s/' + Path(html_path).read_text()[:9]\n",
    "object": "def share(html_path):\n    return {'url': 'https://example.test/o', 'message': 'Uploaded'}\n",
    "message-only": "def share(html_path):\n    return {'message': 'Copied to the team drive'}\n",
    "nothing": "from pathlib import Path\ndef share(html_path):\n"
    "    Path(html_path + '.seen').write_text('1')\n",
    "async": "import asyncio\nasync def share(html_path):\n    await asyncio.sleep(0)\n    return 'https://example.test/async'\n",
}

PY_HANDLERS["dataclass"] = (
    "from dataclasses import dataclass\n@dataclass\nclass Upload:\n    url: str\n"
    "def share(html_path):\n    return {'url': Upload('https://example.test/dc').url}\n"
)

PY_EXPECTED = {
    "dataclass": HandlerResult(url="https://example.test/dc"),
    "string": HandlerResult(url="https://example.test/s/<!doctype"),
    "object": HandlerResult(url="https://example.test/o", message="Uploaded"),
    "message-only": HandlerResult(message="Copied to the team drive"),
    "nothing": HandlerResult(),
    "async": HandlerResult(url="https://example.test/async"),
}


@pytest.mark.parametrize("case", sorted(PY_HANDLERS))
def test_python_handler_results(case: str, tmp_path: Path, html_file: Path) -> None:
    handler = tmp_path / "share.py"
    handler.write_text(PY_HANDLERS[case])
    assert run_handler(handler, html_file) == PY_EXPECTED[case]
    if case == "nothing":
        assert Path(str(html_file) + ".seen").exists()  # it was really called with the path


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "def share(html_path):\n    raise RuntimeError('bucket is full')\n",
            "failed: RuntimeError: bucket is full",
        ),
        ("def share(html_path):\n    raise SystemExit(3)\n", "failed: SystemExit: 3"),
        (
            "import nonexistent_module_xyz\ndef share(p):\n    return 'x'\n",
            "failed to load: ModuleNotFoundError",
        ),
        ("def share(html_path)\n    return 'x'\n", "failed to load: SyntaxError"),
        (
            "def publish(html_path):\n    return 'x'\n",
            "failed to load: it defines no share(html_path) function",
        ),
        ("def share(html_path):\n    return 42\n", "returned a int"),
    ],
    ids=["raises", "exits", "bad-import", "syntax", "no-share", "bad-result"],
)
def test_python_handler_errors(source: str, expected: str, tmp_path: Path, html_file: Path) -> None:
    handler = tmp_path / "share.py"
    handler.write_text(source)
    with pytest.raises(ShareError) as info:
        run_handler(handler, html_file)
    assert expected in str(info.value)
    assert str(handler) in str(info.value)
    assert "\n" not in str(info.value)


# ---- JavaScript / TypeScript handlers through node ---------------------------------------------

JS_BODIES = {
    "string": "export default async function (htmlPath) {\n"
    "  const fs = await import('node:fs');\n"
    "  return 'https://example.test/js/' + fs.readFileSync(htmlPath, 'utf8').slice(2, 9);\n}\n",
    "object": "export default async (htmlPath) => {\n"
    "  console.log('uploading', htmlPath);\n"
    "  return { url: 'https://example.test/obj', message: 'Uploaded by JS' };\n};\n",
    "nothing": "export default async function (htmlPath) {\n"
    "  const fs = await import('node:fs');\n  fs.writeFileSync(htmlPath + '.seen', '1');\n}\n",
}
JS_EXPECTED = {
    "string": HandlerResult(url="https://example.test/js/doctype"),
    "object": HandlerResult(url="https://example.test/obj", message="Uploaded by JS"),
    "nothing": HandlerResult(),
}
JS_ERRORS = {
    "multiline": (
        "export default async () => { throw new Error('first line\\nsecond line'); };\n",
        "failed: Error: first line",
    ),
    "raises": (
        "export default async function () { throw new Error('quota exceeded'); }\n",
        "failed: Error: quota exceeded",
    ),
    "syntax": ("export default async function ( {\n", "failed to load: SyntaxError"),
    "no-default": (
        "export function share() { return 'x'; }\n",
        "failed to load: TypeError: the module has no default export",
    ),
    "bad-import": ("import x from './missing-module.js';\nexport default () => x;\n", "failed to load"),
}


def write_js_handler(tmp_path: Path, suffix: str, source: str) -> Path:
    """Write share.js / share.mjs into an agent dir; ES module .js needs "type": "module" beside it."""
    agent = tmp_path / "agent"
    agent.mkdir()
    if suffix == ".js":
        (agent / "package.json").write_text(json.dumps({"type": "module"}))
    handler = agent / f"share{suffix}"
    handler.write_text(source)
    return handler


@pytest.mark.parametrize("suffix", [".js", ".mjs"])
@pytest.mark.parametrize("case", sorted(JS_BODIES))
def test_js_handler_results(
    case: str,
    suffix: str,
    tmp_path: Path,
    html_file: Path,
    node_only_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    handler = write_js_handler(tmp_path, suffix, JS_BODIES[case])
    assert run_handler(handler, html_file) == JS_EXPECTED[case]
    if case == "nothing":
        assert Path(str(html_file) + ".seen").exists()
    if case == "object":
        # console.log from the handler reaches the user on stderr, not the result channel.
        assert f"uploading {html_file}" in capfd.readouterr().err


@pytest.mark.parametrize("suffix", [".js", ".mjs"])
@pytest.mark.parametrize("case", sorted(JS_ERRORS))
def test_js_handler_errors(
    case: str, suffix: str, tmp_path: Path, html_file: Path, node_only_path: Path
) -> None:
    source, expected = JS_ERRORS[case]
    handler = write_js_handler(tmp_path, suffix, source)
    with pytest.raises(ShareError) as info:
        run_handler(handler, html_file)
    assert expected in str(info.value)
    assert str(handler) in str(info.value)
    assert "\n" not in str(info.value)


def test_commonjs_handler_with_module_exports(tmp_path: Path, html_file: Path, node_only_path: Path) -> None:
    handler = tmp_path / "share.js"
    handler.write_text("module.exports = async (p) => ({ url: 'https://example.test/cjs' });\n")
    assert run_handler(handler, html_file) == HandlerResult(url="https://example.test/cjs")


def test_handler_that_leaves_a_timer_running_still_returns(
    tmp_path: Path, html_file: Path, node_only_path: Path
) -> None:
    handler = tmp_path / "share.mjs"
    handler.write_text(
        "export default async () => { setInterval(() => {}, 1000); return 'https://example.test/t'; };\n"
    )
    assert run_handler(handler, html_file) == HandlerResult(url="https://example.test/t")


TS_HANDLER = (
    "type Result = { url: string; message?: string };\n"
    "export default async function (htmlPath: string): Promise<Result> {\n"
    "  return { url: 'https://example.test/ts', message: `shared ${htmlPath.length > 0}` };\n}\n"
)


def test_ts_handler_with_node(tmp_path: Path, html_file: Path, node_only_path: Path) -> None:
    handler = tmp_path / "share.ts"
    handler.write_text(TS_HANDLER)
    version = node_version(str(node_only_path / "node"))
    if version >= NODE_STRIP_TYPES:
        assert run_handler(handler, html_file) == HandlerResult(
            url="https://example.test/ts", message="shared true"
        )
    else:
        with pytest.raises(ShareError) as info:
            run_handler(handler, html_file)
        message = str(info.value)
        assert "is TypeScript and node" in message
        assert "install bun or deno" in message


@pytest.mark.skipif(
    not any(shutil.which(r) for r in ("bun", "deno")), reason="neither bun nor deno is installed here"
)
def test_ts_handler_with_bun_or_deno(tmp_path: Path, html_file: Path) -> None:
    handler = tmp_path / "share.ts"
    handler.write_text(TS_HANDLER)
    assert run_handler(handler, html_file) == HandlerResult(
        url="https://example.test/ts", message="shared true"
    )
    for case, body in JS_BODIES.items():
        handler.write_text(body.replace("(htmlPath)", "(htmlPath: string)"))
        assert run_handler(handler, html_file) == JS_EXPECTED[case], case
    for case, (source, expected) in JS_ERRORS.items():
        handler.write_text(source)
        with pytest.raises(ShareError) as info:
            run_handler(handler, html_file)
        assert expected.split(":")[0] in str(info.value), case


def test_js_handler_without_any_runtime(
    tmp_path: Path, html_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    handler = tmp_path / "share.mjs"
    handler.write_text(JS_BODIES["string"])
    with pytest.raises(ShareError) as info:
        run_handler(handler, html_file)
    assert "needs a JavaScript runtime: install bun, deno or node" in str(info.value)


def test_runner_is_shipped_next_to_the_module() -> None:
    from sessiontree.share import handlers

    assert handlers.RUNNER.is_file()
    assert os.access(handlers.RUNNER, os.R_OK)


def test_async_python_handler_inside_a_running_event_loop(tmp_path: Path, html_file: Path) -> None:
    import asyncio
    import concurrent.futures

    handler = tmp_path / "share.py"
    handler.write_text(PY_HANDLERS["async"])

    async def caller() -> object:
        return run_handler(handler, html_file)

    # A thread of its own, so the loop here is ours whatever else the test process runs.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        assert pool.submit(asyncio.run, caller()).result() == PY_EXPECTED["async"]
