"""Secrets held by a cookie, a data file's column, or a command that prints one (issue 40 item 1)."""

from __future__ import annotations

from typing import Any

import pytest

from sessiontree.share.redact import redact_entries, redact_text

PW = "Wq81k" + "dP2qa"
TOKEN = "Ab3kd9Qp2x" + "ZZ81kdP2qa" + "Wq81kdP2qa"


@pytest.mark.parametrize(
    "text",
    [
        f"Cookie: theme=dark; ledger_sess={TOKEN}; lang=en",
        f"cookie: lang=en; connect.sid=s%3A{TOKEN}",
        f"< set-cookie: __Host-auth={TOKEN}; Path=/; Secure; HttpOnly",
        f"Set-Cookie: ASP.NET_SessionId={PW}; path=/",
        f'"cookie": "theme=dark; XSRF-TOKEN={TOKEN}"',
        f"curl --cookie 'sid={PW}; theme=dark' https://app.example",
        f"curl -b 'PHPSESSID={TOKEN}' https://app.example",
        f".example.com\tTRUE\t/\tTRUE\t1767225600\tsessionid\t{TOKEN}",
        f"#HttpOnly_app.example\tFALSE\t/\tTRUE\t0\tremember_user_token\t{TOKEN}",
        '[{"domain": ".app.example", "name": "auth_token", "value": "' + TOKEN + '", "path": "/"}]',
    ],
)
def test_a_session_cookie_is_masked_whatever_its_name(text: str) -> None:
    shared = redact_text(text)
    assert TOKEN not in shared and PW not in shared


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Cookie: theme=darkmode2; lang=en-GB; sidebar=collapsed1", ["darkmode2", "en-GB", "collapsed1"]),
        ("Set-Cookie: sessionid=deleted; Expires=Thu, 01 Jan 1970 00:00:00 GMT", ["deleted"]),
        (".example.com\tTRUE\t/\tFALSE\t0\ttheme\tdarkmode123", ["darkmode123"]),
        ("git checkout -b feature/session-cookies", ["feature/session-cookies"]),
    ],
)
def test_other_cookies_are_kept(text: str, kept: list[str]) -> None:
    shared = redact_text(text)
    assert all(value in shared for value in kept), shared


@pytest.mark.parametrize(
    ("text", "secrets", "kept"),
    [
        (f"id,username,password,email\n1,alice,{PW},a@x.org\n", [PW], ["alice", "a@x.org"]),
        ('user,"Pass Word",role\nann,"c0rrect, horse",admin\n', ["c0rrect, horse"], ["admin"]),
        (f"name\tAPI Key\tcreated\nbilling\t{TOKEN}\t2026-01-02", [TOKEN], ["billing", "2026-01-02"]),
        (f"SECRET;host\n{PW};db1\r\nx9Yk2Lp0Qz;db2\r\n", [PW, "x9Yk2Lp0Qz"], ["db1", "db2"]),
        ("host,port,db_password\nlocalhost,5432,pgpass123\n", ["pgpass123"], ["localhost", "5432"]),
        (f"| User | CREDENTIAL |\n|---|---|\n| ops | {PW} |", [PW], ["ops"]),
    ],
)
def test_a_secret_column_is_masked_in_any_position_and_case(
    text: str, secrets: list[str], kept: list[str]
) -> None:
    shared = redact_text(text)
    assert not any(secret in shared for secret in secrets), shared
    assert all(value in shared for value in kept), shared


@pytest.mark.parametrize(
    "text",
    [
        # A key's id names the key, it is not the key: public ids stay.
        "key_id,region\nkid-7f3a9c2e1b4d,us-east-1\nkid-0a9b8c7d6e5f,eu-west-1",
        "token_count,model\n18234,gpt-5\n991,claude",
        "sort_key,public_key\ncreatedAt,kid-7f3a9c2e1b4d",
        "the key, the value, and the rest\nare words, of prose, said plainly",
    ],
)
def test_columns_that_only_mention_a_secret_are_kept(text: str) -> None:
    assert redact_text(text) == text


def _tool_call(command: str, output: str) -> list[dict[str, Any]]:
    call = {"type": "toolCall", "id": "call_9", "name": "bash", "arguments": {"command": command}}
    result = {"role": "toolResult", "toolCallId": "call_9", "content": [{"type": "text", "text": output}]}
    return [
        {"type": "message", "id": "a1", "message": {"role": "assistant", "content": [call]}},
        {"type": "message", "id": "a2", "parentId": "a1", "message": result},
    ]


def _shared_output(command: str, output: str) -> tuple[str, dict[str, int]]:
    _, entries, report = redact_entries({"type": "session", "id": "s"}, _tool_call(command, output))
    return entries[1]["message"]["content"][0]["text"], report.counts


@pytest.mark.parametrize(
    "command",
    [
        "gh auth token",
        "aws ecr get-login-password --region eu-west-1",
        "vault read -field=password secret/db",
        "az account get-access-token --query accessToken -o tsv",
        "op read op://infra/ledger/credential",
        "kubectl get secret app -o jsonpath={.data.password} | base64 -d",
        "heroku auth:token",
        "security find-generic-password -s ledger -w",
        "cat ~/.config/ledger/api.key",
    ],
)
@pytest.mark.parametrize("value", [PW, "7qgA5=49xC5nFQRhAjhh"])  # a password may hold "="
def test_the_one_line_output_of_a_command_that_prints_a_credential_is_masked(
    command: str, value: str
) -> None:
    shown, counts = _shared_output(command, f"{value}\n")
    assert value not in shown
    assert counts.get("printed-secret") == 1  # the reason is kept for the review


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("git log -1 --format=%H", "9fceb02d0ae598e95dc970b74767f19372d61af8\n"),
        (
            "sha256sum secret.key | cut -d' ' -f1",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n",
        ),
        ("docker images -q app", "5d0da3dc9764\n"),
        ("python -c 'import uuid; print(uuid.uuid4())'", "3f0e6a1c-6e1b-4c1e-9f0a-1b2c3d4e5f60\n"),
        ("gh auth status", "github.com\n  Logged in to github.com account ops (keyring)\n"),
        ("echo $TOKEN_COUNT", "18234\n"),
    ],
)
def test_a_command_whose_words_say_nothing_of_secrets_keeps_its_output(command: str, output: str) -> None:
    shown, _ = _shared_output(command, output)
    assert shown == output
