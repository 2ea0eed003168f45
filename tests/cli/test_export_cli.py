"""The export command: both forms, default output, options, and one-line errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli, main
from tests.conftest import GenSession
from tests.exporter.conftest import parse_page


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_export_to_given_output(gen_session: GenSession, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    code, stdout, _ = run("export", str(gen_session(5)), str(out))
    assert code == 0
    assert stdout == f"Exported to: {out}\n"
    assert parse_page(out.read_text(encoding="utf-8")).data["v"] == 1


def test_default_output_and_legacy_flag(
    gen_session: GenSession,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["--export", str(gen_session(5))])
    assert exc.value.code == 0
    expected = tmp_path / "session-session.html"
    assert capsys.readouterr().out == f"Exported to: {expected}\n"
    assert expected.exists()


def test_theme_leaf_open(gen_session: GenSession, tmp_path: Path, no_browser: list[str]) -> None:
    session = gen_session(130)
    ids = [json.loads(line)["id"] for line in session.read_text().splitlines()[1:]]
    out = tmp_path / "p.html"
    code, _, _ = run("export", str(session), str(out), "--theme", "light", "--leaf", ids[5], "--open")
    assert code == 0
    html = out.read_text(encoding="utf-8")
    assert '<html lang="en" data-theme="light">' in html
    assert parse_page(html).data["leafId"] == ids[5]
    assert no_browser == [out.resolve().as_uri()]


def test_system_prompt_and_tools_files(gen_session: GenSession, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Only <safe> answers.")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "websearch", "description": "Search the web"}]))
    out = tmp_path / "p.html"
    code, _, _ = run(
        "export", str(gen_session(5)), str(out), "--system-prompt", str(prompt), "--tools", str(tools)
    )
    assert code == 0
    html = out.read_text(encoding="utf-8")
    assert "Only &lt;safe&gt; answers." in html
    assert '<code class="st-tool-name">websearch</code>' in html


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.jsonl", "Error: File not found: {p}\n"),
        (lambda d: d, "Error: Not a session file: {p} (it is a directory)\n"),
        (lambda d: _write(d / "bad.jsonl", "nonsense\n"), "Error: Not a session file: {p} "),
        (lambda d: _write(d / "empty.jsonl", ""), "Error: Not a session file: {p} (it is empty)\n"),
    ],
)
def test_bad_inputs_give_one_line_and_exit_1(
    tmp_path: Path, make: Callable[[Path], Path], message: str
) -> None:
    path = make(tmp_path)
    code, stdout, stderr = run("export", str(path), str(tmp_path / "o.html"))
    assert code == 1
    assert stdout == ""
    assert stderr.startswith(message.format(p=path))
    assert stderr.count("\n") == 1
    assert "Traceback" not in stderr


def test_bad_options_are_refused(gen_session: GenSession, tmp_path: Path) -> None:
    session = str(gen_session(5))
    code, _, stderr = run("export", session, str(tmp_path / "o.html"), "--leaf", "nope")
    assert (code, stderr.count("\n")) == (1, 1)
    assert "Entry not found: nope" in stderr
    code, _, stderr = run("export", session, "--copy")
    assert code == 1
    assert "sessiontree dump" in stderr
    code, _, stderr = run("export", session, "--tools", str(tmp_path / "none.json"))
    assert code == 1
    assert f"File not found: {tmp_path / 'none.json'}" in stderr
    code, _, _ = run("export", session, "--theme", "sepia")
    assert code == 2


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_output_directory_and_missing_parent(gen_session: GenSession, tmp_path: Path) -> None:
    session = gen_session(3)
    code, stdout, _ = run("export", str(session), str(tmp_path))
    assert code == 0
    assert stdout == f"Exported to: {tmp_path / 'session-session.html'}\n"
    code, _, stderr = run("export", str(session), str(tmp_path / "no" / "such" / "p.html"))
    assert code == 1
    missing = tmp_path / "no" / "such"
    assert stderr == f"Error: Directory not found: {missing}; create it or choose another output path\n"


def test_output_onto_the_input_is_refused(gen_session: GenSession, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes(gen_session(3).read_bytes())
    before = session.read_bytes()
    code, _, stderr = run("export", str(session), str(session))
    assert code == 1
    assert "is the session file itself" in stderr
    assert session.read_bytes() == before


def test_a_session_copied_out_of_its_agent_folder_warns_once_with_the_count(
    gen_session: GenSession, tmp_path: Path
) -> None:
    lines = gen_session(60, blobs=True).read_text(encoding="utf-8").splitlines()
    # the same image sent again: a second reference to one blob
    with_image = json.loads(next(line for line in lines if "blob:sha256:" in line))
    again = {**with_image, "id": "again0001", "parentId": json.loads(lines[-1])["id"]}
    text = "\n".join([*lines, json.dumps(again)]) + "\n"
    refs = re.findall(r"blob:sha256:[0-9a-f]{64}", text)
    assert len(refs) > len(set(refs)) >= 1
    alone = tmp_path / "copied" / "session.jsonl"  # copied without the blobs/ folder beside it
    alone.parent.mkdir()
    alone.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["export", str(alone), str(tmp_path / "out.html")])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"Warning: session.jsonl: {len(refs)} images refer to {len(set(refs))} "
        f"blob{'' if len(set(refs)) == 1 else 's'} not found (looked in the agent dir's blobs/ and a "
        "blobs/ folder beside the file); the page shows a notice in their place"
    ]


def test_export_reuses_the_fragment_cache_and_no_cache_skips_it(
    gen_session: GenSession, tmp_path: Path
) -> None:
    session, cache = gen_session(15), tmp_path / "cache"
    pages = [tmp_path / f"{name}.html" for name in ("cold", "warm", "none")]
    assert run("export", str(session), str(pages[0]), "--cache-dir", str(cache))[0] == 0
    assert (cache / "fragments.sqlite").is_file()
    assert run("export", str(session), str(pages[1]), "--cache-dir", str(cache))[0] == 0
    none = tmp_path / "unused"
    assert run("export", str(session), str(pages[2]), "--cache-dir", str(none), "--no-cache")[0] == 0
    assert not none.exists()
    assert pages[0].read_bytes() == pages[1].read_bytes() == pages[2].read_bytes()


def test_a_cache_dir_inside_the_sessions_folder_is_refused(gen_session: GenSession, tmp_path: Path) -> None:
    session = gen_session(3)
    code, _, stderr = run(
        "export", str(session), str(tmp_path / "p.html"), "--cache-dir", str(session.parent / "c")
    )
    assert code == 1
    assert stderr.startswith("Error: The cache dir") and stderr.count("\n") == 1
    assert not (session.parent / "c").exists()
