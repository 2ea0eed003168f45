# ruff: noqa: E501  (a table of slots: one row a line reads better than wrapped lambdas)
"""Held-out secrets by slot and shape, not by vendor: where a password goes in a syntax.

Facts read from tools' usage texts and rule sets (Nosey Parker's and Kingfisher's rules for
passwords in commands, config languages and connection strings; detect-secrets' keyword and
basic-auth plugins; vendor documentation for the separator-laden formats). No code of theirs:
each family below is a generator of our own, seeded, so each seed is a new draw.

A family is a group of slots (``cli``, ``config``, ``printed``...); each slot makes the text a
session holds from a drawn value. ``printed-alone`` puts the command in a tool call and the value
alone in its output.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

from tests.share.heldout.generate import Case

_SYMBOLS = "!#^*-_+=.~"
Make = Callable[[str, random.Random], str]


def password(rng: random.Random) -> str:
    """Return a password as people and generators make them: letters, digits, a symbol or two."""
    n = rng.randint(10, 22)
    while True:
        chars = [rng.choice(string.ascii_letters + string.digits) for _ in range(n)]
        for _ in range(rng.randint(0, 2)):
            chars[rng.randrange(1, n - 1)] = rng.choice(_SYMBOLS)
        value = "".join(chars)
        if (
            any(c.isdigit() for c in value)
            and any(c.isupper() for c in value)
            and any(c.islower() for c in value)
        ):
            return value


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _alnum(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


def _user(rng: random.Random) -> str:
    return rng.choice(["admin", "deploy", "svc_app", "root", "ci-bot", "alice", "backup"])


# Each slot: (family, slot name, value maker, text maker). The value maker draws the secret.
Slot = tuple[str, str, Callable[[random.Random], str], Make]
_PW = password
SLOTS: tuple[Slot, ...] = (
    # --- passwords as command arguments, by flag and by position ---
    ("cli", "smbclient-U", _PW, lambda v, r: f"smbclient //files/share -U {_user(r)}%{v} -c 'ls'"),
    ("cli", "rpcclient-U", _PW, lambda v, r: f"rpcclient -U '{_user(r)}%{v}' 10.0.0.7"),
    ("cli", "htpasswd-b", _PW, lambda v, r: f"htpasswd -b /etc/nginx/.htpasswd {_user(r)} {v}"),
    ("cli", "htpasswd-nb", _PW, lambda v, r: f"htpasswd -nbB {_user(r)} {v}"),
    ("cli", "7z-p", _PW, lambda v, r: f"7z a -p{v} -mhe=on backup.7z data/"),
    ("cli", "ldap-w", _PW, lambda v, r: f"ldapsearch -x -H ldap://dc1 -D 'cn=admin,dc=corp' -w {v} -b dc=corp"),
    ("cli", "zip-P", _PW, lambda v, r: f"zip -r -P {v} export.zip reports/"),
    ("cli", "sqlcmd-P", _PW, lambda v, r: f"sqlcmd -S db01 -U sa -P '{v}' -Q 'SELECT 1'"),
    ("cli", "sudo-S", _PW, lambda v, r: f"echo '{v}' | sudo -S systemctl restart nginx"),
    ("cli", "password-stdin", _PW, lambda v, r: f"echo {v} | docker login ghcr.io -u {_user(r)} --password-stdin"),
    ("cli", "composer-http-basic", _PW, lambda v, r: f"composer config http-basic.repo.example.com {_user(r)} {v}"),
    ("cli", "secret-set-body", _PW, lambda v, r: f"gh secret set DEPLOY_PASSWORD --body {v} --repo acme/site"),
    ("cli", "openssl-pass", _PW, lambda v, r: f"openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{v}"),
    ("cli", "mongo-p", _PW, lambda v, r: f"mongosh --host db -u {_user(r)} -p {v} --authenticationDatabase admin"),
    ("cli", "rabbitmqctl", _PW, lambda v, r: f"rabbitmqctl add_user {_user(r)} {v}"),
    ("cli", "ipmitool-P", _PW, lambda v, r: f"ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P {v} power status"),
    # --- the output of a command whose job is to print a secret ---
    ("printed", "next-line", lambda r: _hex(r, 32), lambda v, r: f"$ sudo cat /var/jenkins_home/secrets/initialAdminPassword\n{v}\n$ "),
    ("printed", "openssl-rand", lambda r: _hex(r, 64), lambda v, r: f"$ openssl rand -hex 32\n{v}"),
    ("printed", "alone", lambda r: _alnum(r, 32), lambda v, r: f"kubectl get secret app -o jsonpath='{{.data.password}}' | base64 -d\x1e{v}"),
    ("printed", "alone-token", lambda r: "gho_" + _alnum(r, 36), lambda v, r: f"gh auth token\x1e{v}\n"),
    ("printed", "alone-master-key", lambda r: _hex(r, 32), lambda v, r: f"cat config/master.key\x1e{v}"),
    # --- configuration languages ---
    ("config", "xml-element", _PW, lambda v, r: f"<datasource>\n  <username>app</username>\n  <password>{v}</password>\n</datasource>"),
    ("config", "xml-attribute", _PW, lambda v, r: f'<appSettings>\n  <add key="SmtpPassword" value="{v}" />\n</appSettings>'),
    ("config", "xml-property", _PW, lambda v, r: f'<property name="db.password" value="{v}"/>'),
    ("config", "maven-settings", _PW, lambda v, r: f"<server>\n  <id>nexus</id>\n  <username>ci</username>\n  <password>{v}</password>\n</server>"),
    ("config", "gradle-property", _PW, lambda v, r: f"signingConfigs {{\n  release {{\n    storePassword \"{v}\"\n    keyAlias 'upload'\n  }}\n}}"),
    ("config", "ipsec-psk", _PW, lambda v, r: f'# /etc/ipsec.secrets\n%any 203.0.113.5 : PSK "{v}"'),
    ("config", "call-credential", _PW, lambda v, r: f'var cred = new NetworkCredential("{_user(r)}", "{v}");'),
    ("config", "call-basic-auth", _PW, lambda v, r: f"r = requests.get(url, auth=HTTPBasicAuth('{_user(r)}', '{v}'))"),
    ("config", "auth-tuple", _PW, lambda v, r: f"requests.post(url, auth=('{_user(r)}', '{v}'), timeout=5)"),
    ("config", "yaml-folded", _PW, lambda v, r: f"database:\n  password: >-\n    {v}\n  host: db"),
    ("config", "openvpn-static-key", lambda r: _hex(r, 32), lambda v, r: "-----BEGIN OpenVPN Static key V1-----\n" + "\n".join([v, *(_hex(r, 32) for _ in range(15))]) + "\n-----END OpenVPN Static key V1-----"),
    ("config", "terraform-state", _PW, lambda v, r: '{"mode": "managed", "type": "random_password", "name": "db", "instances": [{"attributes": {"id": "none", "length": 24, "result": "' + v + '", "special": true}}]}'),
    ("config", "hardhat-accounts", lambda r: "0x" + _hex(r, 64), lambda v, r: f"networks: {{\n  sepolia: {{\n    url: RPC_URL,\n    accounts: [\"{v}\"],\n  }},\n}}"),
    # --- tables ---
    ("table", "markdown-column", _PW, lambda v, r: f"| user | password | role |\n|---|---|---|\n| {_user(r)} | {v} | admin |"),
    ("table", "psql-column", _PW, lambda v, r: f" id | username | password\n----+----------+---------\n  1 | {_user(r)} | {v}\n(1 row)"),
    ("table", "sql-insert", _PW, lambda v, r: f"INSERT INTO users (id, login, password) VALUES (1, '{_user(r)}', '{v}');"),
    ("table", "sql-identified", _PW, lambda v, r: f"CREATE USER '{_user(r)}'@'%' IDENTIFIED BY '{v}';"),
    # --- connection strings of any scheme ---
    ("connection", "go-dsn", _PW, lambda v, r: f'dsn := "{_user(r)}:{v}@tcp(db.internal:3306)/app?parseTime=true"'),
    ("connection", "host-port", _PW, lambda v, r: f"connect with {_user(r)}:{v}@10.0.0.12:5432/app"),
    ("connection", "amqp", _PW, lambda v, r: f"BROKER=amqp://{_user(r)}:{v}@mq.internal:5672/vhost"),
    # --- values that go on past a line ---
    ("continued", "shell-backslash", lambda r: _alnum(r, 40), lambda v, r: f"export API_TOKEN={v[:20]}\\\n{v[20:]}"),
    ("continued", "concatenation", lambda r: _alnum(r, 40), lambda v, r: f'API_KEY = ("{v[:20]}"\n           "{v[20:]}")'),
    ("continued", "js-plus", lambda r: _alnum(r, 40), lambda v, r: f"const secret = '{v[:18]}' +\n  '{v[18:]}';"),
    # --- prose and cookies ---
    ("prose", "default-password", _PW, lambda v, r: f"The default password is '{v}', change it after the first login."),
    ("prose", "password-was", _PW, lambda v, r: f"I reset it: the password is now {v} for the staging admin."),
    ("prose", "signed-cookie", lambda r: "s%3A" + _alnum(r, 32) + "." + _alnum(r, 43), lambda v, r: f"Set-Cookie: connect.sid={v}; Path=/; HttpOnly"),
    # --- vendor formats with separators inside, glued prefixes ---
    ("separators", "digits-hex-hex", lambda r: f"{r.randint(10**9, 10**10)}.{_hex(r, 32)}.{_hex(r, 32)}", lambda v, r: f"the key {v} was issued"),
    ("separators", "vault-legacy", lambda r: "s." + _alnum(r, 24), lambda v, r: f"vault login {v}"),
    ("separators", "salesforce", lambda r: "00D" + _alnum(r, 12) + "!" + _alnum(r, 80), lambda v, r: f"sfdx token: {v}"),
    ("glued", "lowercase-hex", lambda r: "dose" + _hex(r, 32), lambda v, r: f"use {v} for the staging account"),
    ("glued", "akid", lambda r: "AKID" + _alnum(r, 32), lambda v, r: f"SecretId {v}"),
)  # fmt: skip
SLOT_FIELDS = ("user", "assistant", "tool-args", "tool-output")


def _evidence(value: str) -> tuple[str, ...]:
    """Return the value and every 8-character piece of it (a partial mask leaves one)."""
    core = value.removeprefix("s%3A")
    return tuple(dict.fromkeys([value, *(core[i : i + 8] for i in range(0, max(1, len(core) - 7), 4))]))


def draw_slot_cases(seed: int, per_slot: int = 2) -> list[Case]:
    """Return ``per_slot`` cases of every slot, each value drawn anew, in a random field."""
    return draw_rows(SLOTS, random.Random(seed ^ 0x5107), per_slot, _evidence)


def draw_rows(
    rows: tuple[Slot, ...], rng: random.Random, per_row: int, evidence: Callable[[str], tuple[str, ...]]
) -> list[Case]:
    """Return ``per_row`` cases of every (family, name, value maker, text maker) row.

    A text holding ``\\x1e`` is a command and its output (a tool call); any other goes in a random field.
    """
    cases: list[Case] = []
    for family, name, make_value, make_text in rows:
        for _ in range(per_row):
            value = make_value(rng)
            text = make_text(value, rng)
            if "\x1e" in text:
                command, output = text.split("\x1e")
                case = Case(
                    f"{family}-{name}", name, "tool-pair", value, command, evidence(value), output, family
                )
            else:
                field = rng.choice(SLOT_FIELDS)
                case = Case(f"{family}-{name}", name, field, value, text, evidence(value), family=family)
            cases.append(case)
    return cases
