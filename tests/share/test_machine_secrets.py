"""This machine's own secrets, planted in a temporary home, are masked in every form a session holds them."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from sessiontree.exporter import make_page
from sessiontree.readers import load_for_export
from sessiontree.share.machine_secrets import collect_machine_secrets, encoded_forms
from sessiontree.share.publish import redact_session
from sessiontree.share.redact import MACHINE
from tests.share.sessions import page_text

# Human-style passwords and tokens in places no detector names: only knowing the machine finds them.
# Assembled at run time so no literal credential sits in the repository.
PLANTED = {
    "aws": "wJalr" + "Zq8vB3Lk9Tt2Hx4Pq7Yy1Nm6Sd0Fg5Hj2Kl",
    "aws_session": "IQoJb3JpZ2luX2Vj" + "EAcaCXVzLWVhc3QtMSJHMEUCIQD",
    "netrc": "mellow" + "-Tundra-84",
    "docker": "Quartz" + "Lantern!71",
    "npm": "npm_" + "k2L9xQ7vTb3Wm8Rz4Ny6Pd1Hs5Fj0Ga7Ce2",
    "pypi": "violet" + "Harbor%29",
    "gh": "gho_" + "R4nD0mT0k3nF0rGh4u7hZq9Xw2Lk5Vb8Np",
    "git": "ghp_" + "Gi7Cr3dSt0r3T0k3nQ8w4Er6Ty1Ui3Op5As",
    "kube": "eyJhbGciOi" + "kubeTokenZx81Qw",
    "env_project": "plum" + "-Ocelot-3390",
    "env_var": "Saffron" + "Kettle#5521",
    "generated_var": "x8Kq2" + "Lm9Vz4Tb7Nw1Rc6Hy3Pd",
}
NOT_SECRETS = {
    "commit": "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "uuid": "3b6f8a2c-1d4e-4f5a-9b8c-7d6e5f4a3b2c",
    "port": "3000",
    "node_env": "development",
    "example": "example" + "-only-Value-77",
}
SSH_BODY = [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "QyNTUxOQAAACBm" + "ySSHpriv7K3yQ9wE2rT5uI8oP1aS4dF7gH0jK3lZ6xC9vB2nM5qW8eR1tY4u",
]


def plant_home(home: Path, project: Path) -> dict[str, str]:
    """Write every credential file of the issue with one secret each; return the environment."""
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = AKIAZQ7VB3LK9TT2HX4P\naws_secret_access_key = {PLANTED['aws']}\n"
        f"aws_session_token={PLANTED['aws_session']}\nregion = eu-west-1\n"
    )
    (home / ".netrc").write_text(f"machine api.example.org\n  login dev\n  password {PLANTED['netrc']}\n")
    (home / ".docker").mkdir()
    auth = base64.b64encode(f"dev:{PLANTED['docker']}".encode()).decode()
    (home / ".docker" / "config.json").write_text(
        json.dumps({"auths": {"registry.example.org": {"auth": auth}}})
    )
    (home / ".npmrc").write_text(f"//registry.npmjs.org/:_authToken={PLANTED['npm']}\nsave-exact=true\n")
    (home / ".pypirc").write_text(f"[pypi]\nusername = __token__\npassword = {PLANTED['pypi']}\n")
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text(
        f"github.com:\n    oauth_token: {PLANTED['gh']}\n    user: dev\n    git_protocol: https\n"
    )
    (home / ".git-credentials").write_text(f"https://dev:{PLANTED['git']}@github.com\n")
    (home / ".kube").mkdir()
    (home / ".kube" / "config").write_text(
        "apiVersion: v1\nusers:\n- name: dev\n  user:\n"
        f"    token: {PLANTED['kube']}\n    client-certificate-data: {'Q' * 40}\n"
    )
    (home / ".ssh").mkdir()
    key = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(SSH_BODY)
        + "\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    (home / ".ssh" / "id_ed25519").write_text(key)
    (home / ".ssh" / "id_ed25519.pub").write_text("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPubliC dev@host\n")
    os.mkfifo(home / ".ssh" / "agent.fifo")  # a special file is never opened for reading
    project.mkdir(parents=True)
    (project / ".env").write_text(
        f"DATABASE_PASSWORD={PLANTED['env_project']}\nPORT={NOT_SECRETS['port']}\n"
        f"NODE_ENV={NOT_SECRETS['node_env']}\n"
    )
    (project / ".env.example").write_text(f"DATABASE_PASSWORD={NOT_SECRETS['example']}\n")
    return {
        "HOME": str(home),
        "MY_SERVICE_PASSWORD": PLANTED["env_var"],
        "BUILD_NONCE": PLANTED["generated_var"],
        "GIT_COMMIT": NOT_SECRETS["commit"],
        "BUILD_ID": NOT_SECRETS["uuid"],
        "PATH": os.environ.get("PATH", ""),
    }


def test_every_place_gives_its_secret_and_no_look_alike(tmp_path: Path) -> None:
    environ = plant_home(tmp_path / "home", tmp_path / "project")
    found = collect_machine_secrets([str(tmp_path / "project")], environ=environ).found
    for name, value in PLANTED.items():
        assert value in found, name
    assert "".join(SSH_BODY) in found
    for name, value in NOT_SECRETS.items():
        assert value not in found, name
    assert environ["PATH"] not in found
    assert found[PLANTED["docker"]] == "~/.docker/config.json"
    assert found[PLANTED["env_var"]] == "$MY_SERVICE_PASSWORD"
    assert found[PLANTED["env_project"]] == str(tmp_path / "project" / ".env")


def _session(path: Path, texts: list[str]) -> Path:
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": "ma5ec0de", "timestamp": "2026-03-01T10:00:00.000Z"}
        | {"cwd": str(path.parent / "project")}
    ]
    parent = None
    for n, text in enumerate(texts):
        entry = f"e{n:07d}"
        role = "user" if n % 2 == 0 else "assistant"
        lines.append(
            {
                "type": "message",
                "id": entry,
                "parentId": parent,
                "timestamp": f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}.000Z",
                "message": {"role": role, "content": [{"type": "text", "text": text}]},
            }
        )
        parent = entry
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _forms_in_prose(value: str) -> list[str]:
    """The value raw, base64 alone and inside ``user:value``, URL-encoded, JSON-escaped, split."""
    inside = base64.b64encode(f"admin:{value}".encode()).decode()
    cut = len(value) // 2
    return [
        f"it printed {value} and stopped",
        f"encoded: {base64.b64encode(value.encode()).decode()} (base64)",
        f"Authorization: Basic {inside}",
        f"curl 'https://api.example.org/login?pw={quote(value, safe='')}&x=1'",
        "the body was " + json.dumps({"note": f'said "{value}" twice'}),
        f"wrapped output:\n  {value[:cut]}\n  {value[cut:]}\nend",
    ]


def _shown_forms(value: str) -> list[str]:
    cut = len(value) // 2
    return [f for f in encoded_forms(value) if len(f) >= 8] + [f"{value[:cut]}\n  {value[cut:]}"]


def test_a_share_masks_the_machines_secrets_in_every_form(tmp_path: Path) -> None:
    environ = plant_home(tmp_path / "home", tmp_path / "project")
    values = [*PLANTED.values(), "".join(SSH_BODY)]
    texts = [text for value in values for text in _forms_in_prose(value)]
    texts += [f"kept as they are: {' '.join(NOT_SECRETS.values())} and the commit {NOT_SECRETS['commit']}"]
    session = load_for_export(_session(tmp_path / "s.jsonl", texts))
    machine = collect_machine_secrets([str(tmp_path / "project")], environ=environ)
    redacted, report = redact_session(session, machine=machine)
    shared = json.dumps(redacted.entries, ensure_ascii=False)
    page = page_text("".join(make_page(redacted).chunks))
    for value in values:
        for form in _shown_forms(value):
            assert form not in shared, (value, form)
            assert form not in page, (value, form)
        inside = base64.b64encode(f"admin:{value}".encode()).decode()
        assert inside not in shared
    for value in NOT_SECRETS.values():
        assert value in shared
    assert report.counts[MACHINE] >= len(PLANTED)
    assert set(report.machine) >= {
        "~/.aws/credentials",
        "~/.netrc",
        "$MY_SERVICE_PASSWORD",
        "~/.ssh/id_ed25519",
    }
    for finding in report.findings:
        if finding.kind == MACHINE:
            assert finding.preview == "" and finding.source


def test_the_review_names_where_each_came_from_never_the_value(tmp_path: Path) -> None:
    environ = plant_home(tmp_path / "home", tmp_path / "project")
    path = _session(
        tmp_path / "s.jsonl", [f"the pypi password is {PLANTED['pypi']}", "ok", PLANTED["env_var"]]
    )
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, **environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env["SESSIONTREE_AGENT_DIR"] = str(tmp_path / "home" / ".xcsh" / "agent")
    done = subprocess.run(
        [sys.executable, "-m", "sessiontree", "share", "--dry-run", str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "this machine's own secrets, from: ~/.pypirc (1), $MY_SERVICE_PASSWORD (1)" in said
    for value in (PLANTED["pypi"], PLANTED["env_var"]):
        assert value not in said and value[:4] not in said
    written = "".join(p.read_text(encoding="utf-8") for p in work.iterdir())
    assert PLANTED["pypi"] not in written and PLANTED["env_var"] not in written


@pytest.mark.parametrize("length", [8, 13, 40])
def test_a_value_inside_any_longer_base64_text_is_found(length: int) -> None:
    value = ("Kx7#Lm2@Qz9!" * 4)[:length]
    forms = encoded_forms(value)
    for before in range(6):
        for after in range(4):
            encoded = base64.b64encode(b"u" * before + value.encode() + b"v" * after).decode()
            assert any(form in encoded for form in forms if form != value), (before, after)
