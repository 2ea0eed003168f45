"""Secrets found by what holds them, whatever the program or vendor: sent into a program, named in a
name/value list, key material in JSON, a literal with a string prefix, a seed phrase (issue 40)."""

from __future__ import annotations

import pytest

from sessiontree.share.redact import redact_text

PW = "Wq81k" + "dP2qa"
TOKEN = "Ab3kd9Qp2x" + "ZZ81kdP2qa" + "Wq81kdP2qa"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f"echo '{PW}' | kinit ops@CORP.IO", "sent-secret"),
        (f"vaultctl unlock <<< '{PW}'", "sent-secret"),
        (f"openconnect vpn -u ops --passwd-on-stdin <<EOF\n{PW}\nEOF", "sent-secret"),
        (f'spawn ssh ops@bastion\nexpect "password:"\nsend "{PW}\\r"', "sent-secret"),
        (f'$s = ConvertTo-SecureString "{PW}" -AsPlainText -Force', "cli-password"),
        (f"nmcli dev wifi connect CorpNet password {PW}", "cli-password"),
        (f"net use Z: \\\\files\\share /user:corp\\ops {PW} /persistent:no", "cli-password"),
        (f"lftp -u ops,{PW} sftp://files.corp", "cli-password"),
        ('[{"name": "X-Ledger-Auth", "value": "' + TOKEN + '"}]', "name-value-secret"),
        (f'env:\n  - name: BROKER_PASSPHRASE\n    value: "{PW}"', "name-value-secret"),
        ('{"kty": "oct", "alg": "HS256", "k": "' + TOKEN + '"}', "private-key"),
        ('{"value": "' + TOKEN + '", "keyMaterialType": "SYMMETRIC"}', "private-key"),
        (f"conn = pymysql.connect(host='db', passwd=r'{PW}')", "key-value"),
        (
            "ENCRYPTION_MASTER=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "env-assignment",
        ),
        (
            'mnemonic: "abandon ability able about above absent absorb abstract absurd abuse access acid"',
            "key-value",
        ),
    ],
)
def test_a_secret_is_found_by_what_holds_it(text: str, kind: str) -> None:
    out = redact_text(text)
    assert f"[REDACTED:{kind}]" in out, out
    assert PW not in out and TOKEN not in out and "abandon" not in out and "9f86d081" not in out


@pytest.mark.parametrize(
    "text",
    [
        "echo hello | grep h",
        "echo v1.2.3 | cut -d. -f1",
        "echo $TOKEN | base64",
        "cat <<EOF\nhello\nEOF",
        "the password reset flow",
        '[{"name": "Accept", "value": "*/*"}, {"name": "X-Request-Id", "value": "r-1234"}]',
        '{"kty": "OKP", "crv": "Ed25519", "x": "jHiycUNKn7jKz7unm2ypNrtLCoBXITyleN7edc2vcNE"}',
        '{"kty": "OKP", "crv": "Ed25519", "x": "CBAQBbLr6qbeMVryEhy-YS5NHEmTJRlg7pBBkSXLvig"}',
        '{"payload": "ok", "signature": "xspujp8UgenRXpecpXd+mk14wC5x9ovlYGaovKmu"}',
        "cipher = AES.new(key, AES.MODE_GCM)",
        "created order 01HV3K5Q9XW2M8N7P4R6T0Y1ZB",
    ],
)
def test_what_only_looks_like_one_is_kept(text: str) -> None:
    assert redact_text(text) == text
