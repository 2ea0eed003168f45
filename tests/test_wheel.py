"""An install without a clone: the built wheel carries everything a page needs (templates, JS, CSS)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

DEMO = ROOT / "examples" / "demo-session.jsonl"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # hatchling comes with the test packages, so the build needs no download
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    (found,) = out.glob("sessiontree-*.whl")
    return found


def test_the_wheel_holds_the_templates_scripts_styles_and_licence(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    package = ROOT / "src" / "sessiontree"
    data = [p for p in package.rglob("*") if p.is_file() and p.suffix in {".j2", ".js", ".css", ".typed"}]
    assert len(data) > 20
    missing = [
        str(p.relative_to(package)) for p in data if f"sessiontree/{p.relative_to(package)}" not in names
    ]
    assert missing == []
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), sorted(names)[-8:]


@pytest.mark.slow
def test_the_wheel_installed_in_a_fresh_venv_exports_a_session(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=240)
    python = venv / "bin" / "python"
    # the wheel itself, with no source tree on the path; its dependencies (already installed for
    # these tests) are lent through a path file, so no registry is needed
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        timeout=240,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "borrowed-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["HOME"] = str(tmp_path / "home")
    where = subprocess.run(
        [str(python), "-c", "import sessiontree; print(sessiontree.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tmp_path,
    ).stdout.strip()
    assert where.startswith(purelib), where  # the installed copy, not the source tree
    version = subprocess.run(
        [str(venv / "bin" / "sessiontree"), "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert version.returncode == 0 and "version" in version.stdout, version.stderr
    page = tmp_path / "demo.html"
    export = subprocess.run(
        [str(venv / "bin" / "sessiontree"), "export", "--no-cache", str(DEMO), str(page)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=240,
    )
    assert export.returncode == 0, export.stderr
    html = page.read_text(encoding="utf-8")
    assert html.lower().startswith("<!doctype html>") and "Content-Security-Policy" in html
    assert "st-data" in html and "</script>" in html and len(html) > 50_000
