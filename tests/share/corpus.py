"""A secret corpus: realistic secrets of many kinds in the forms people paste them, and look-alikes.

Every value is generated from a fixed seed at import time, so no literal credential sits in the
repository and every run sees the same corpus. ``SECRETS`` must all be masked wherever a session
holds them; ``LOOKALIKES`` (hashes, ids, public keys, placeholders, cursors...) must be left alone.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from dataclasses import dataclass

_rng = random.Random(20261201)
UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"


def rand(n: int, alphabet: str = ALNUM) -> str:
    """Return random text with a digit and a letter when the alphabet has both (as real keys do)."""
    need_mix = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        if not need_mix or (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
            return value


@dataclass(frozen=True)
class Secret:
    """One secret: ``value`` must not survive; ``context`` places it (``{s}``) in realistic text."""

    kind: str
    value: str
    context: str = "{s}"
    fixed: str = ""  # a public prefix of value (``ghp_``): fragments are checked after it

    @property
    def text(self) -> str:
        """Return the context with the secret in it."""
        return self.context.replace("{s}", self.value)

    def fragments(self) -> list[str]:
        """Return pieces of the secret that a page must not show either (a half-masked token leaks)."""
        body = self.value[len(self.fixed) :]
        if len(body) < 24:
            return [self.value]
        return [self.value] + [body[i : i + 16] for i in range(0, len(body) - 15, 8)]


def pem(label: str, lines: int = 8, width: int = 64) -> str:
    """Return the base64 body of a PEM block (no BEGIN/END lines)."""
    return "\n".join(rand(width, B64) for _ in range(lines)) + "\n" + rand(width // 2, B64) + "=="


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = {"sub": rand(10, DIGITS), "name": "dev", "iat": 1700000000}
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"{head}.{body}.{rand(43, URLSAFE)}"


def _human_password() -> str:
    return (
        _rng.choice(["Tr0ub4dor", "Summer", "Kestrel", "Velvet", "Orbit"]) + _rng.choice("!#%*-.") + rand(6)
    )


_RSA, _EC, _OPENSSH, _PKCS8 = pem("RSA"), pem("EC", 3), pem("OPENSSH", 6, 70), pem("PRIVATE")
_ENC = pem("ENC", 5)

SECRETS: list[Secret] = [
    # Private keys: whole blocks, a block cut short, and a body read from the middle of the file.
    Secret(
        "private-key",
        _RSA,
        "$ cat ~/.ssh/id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----\n",
    ),
    Secret("private-key", _EC, "-----BEGIN EC PRIVATE KEY-----\n{s}\n-----END EC PRIVATE KEY-----"),
    Secret(
        "private-key",
        _OPENSSH,
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----\n",
    ),
    Secret("private-key", _PKCS8, "output truncated:\n-----BEGIN PRIVATE KEY-----\n{s}"),
    Secret(
        "private-key", _ENC, "-----BEGIN ENCRYPTED PRIVATE KEY-----\n{s}\n-----END ENCRYPTED PRIVATE KEY-----"
    ),
    Secret("private-key-body", pem("X", 6), "(read lines 2-9)\n{s}\n-----END RSA PRIVATE KEY-----\n"),
    Secret("private-key-body", pem("Y", 5), "(read lines 10-15 of key.pem)\n{s}\n"),
    Secret(
        "private-key-json",
        pem("Z", 4).replace("\n", "\\n"),
        '{"type": "service_account", "private_key": '
        '"-----BEGIN PRIVATE KEY-----\\n{s}\\n-----END PRIVATE KEY-----\\n"}',
    ),
    # Cloud providers.
    Secret("aws-access-key", "AKIA" + rand(16, UPPER + DIGITS), "export AWS_ACCESS_KEY_ID={s}", "AKIA"),
    Secret("aws-access-key", "ASIA" + rand(16, UPPER + DIGITS), "temporary creds: {s} (1h)", "ASIA"),
    Secret("aws-secret-key", rand(40, B64), "aws_secret_access_key = {s}"),
    Secret("aws-secret-key", rand(40, B64), '{"AccessKeyId": "AKIA...", "SecretAccessKey": "{s}"}'),
    Secret("aws-secret-key", rand(40, B64), "AWS_SECRET_ACCESS_KEY: {s}"),
    Secret(
        "google-api-key",
        "AIza" + rand(35, URLSAFE),
        "https://maps.googleapis.com/maps/api/js?key={s}&q=x",
        "AIza",
    ),
    Secret("google-api-key", "AIza" + rand(35, URLSAFE), "firebase.initializeApp({apiKey: '{s}'})", "AIza"),
    Secret(
        "google-oauth-secret",
        "GOCSPX-" + rand(28, URLSAFE),
        '{"client_id": "1.apps", "client_secret": "{s}"}',
        "GOCSPX-",
    ),
    Secret(
        "azure-storage-key",
        rand(86, B64) + "==",
        "DefaultEndpointsProtocol=https;AccountName=prod;AccountKey={s};EndpointSuffix=core.windows.net",
    ),
    Secret(
        "azure-sas",
        rand(43, B64) + "%3D",
        "https://prod.blob.core.windows.net/c/f.zip?sv=2022-11-02&se=2026&sig={s}",
    ),
    Secret(
        "azure-client-secret", rand(3, ALNUM) + "8Q~" + rand(34, URLSAFE + "."), "AZURE_CLIENT_SECRET={s}"
    ),
    Secret("digitalocean-token", "dop_v1_" + rand(64, HEX), "doctl auth init -t {s}", "dop_v1_"),
    Secret("heroku-key", "HRKU-" + rand(60, URLSAFE), "heroku config: HEROKU_API_KEY={s}", "HRKU-"),
    Secret("fly-token", "fo1_" + rand(43, URLSAFE), "fly deploy --access-token {s}", "fo1_"),
    # Code hosting and package registries.
    Secret("github-token", "ghp_" + rand(36), "git clone https://github.com/o/r # token {s}", "ghp_"),
    Secret("github-token", "gho_" + rand(36), "Your token: {s}", "gho_"),
    Secret("github-token", "ghs_" + rand(36), "GITHUB_TOKEN={s}", "ghs_"),
    Secret("github-token", "github_pat_" + rand(22) + "_" + rand(59), "use {s} for the API", "github_pat_"),
    Secret("github-token", "ghp_" + rand(36), '{"tokens": {"{s}": {"scopes": ["repo"]}}}', "ghp_"),
    Secret(
        "gitlab-token",
        "glpat-" + rand(20, URLSAFE),
        "git remote set-url origin https://oauth2:x@gitlab.com/r.git # {s}",
        "glpat-",
    ),
    Secret("gitlab-token", "glpat-" + rand(20, URLSAFE), "PRIVATE-TOKEN: {s}", "glpat-"),
    Secret("npm-token", "npm_" + rand(36), "//registry.npmjs.org/:_authToken={s}", "npm_"),
    Secret(
        "pypi-token",
        "pypi-AgEIcHlwaS5vcmc" + rand(60, URLSAFE),
        "[pypi]\nusername = __token__\npassword = {s}\n",
        "pypi-AgEIcHlwaS5vcmc",
    ),
    Secret(
        "pypi-token",
        "pypi-AgEIcHlwaS5vcmc" + rand(70, URLSAFE),
        "twine upload -p {s} dist/*",
        "pypi-AgEIcHlwaS5vcmc",
    ),
    Secret("docker-auth", _b64("deploy:" + rand(20)), '{"auths": {"ghcr.io": {"auth": "{s}"}}}'),
    Secret("huggingface-token", "hf_" + rand(34), "huggingface-cli login --token {s}", "hf_"),
    # AI providers.
    Secret("openai-key", "sk-" + rand(48), "client = OpenAI(api_key='{s}')", "sk-"),
    Secret("openai-key", "sk-proj-" + rand(74, URLSAFE) + rand(20), "OPENAI_API_KEY={s}", "sk-proj-"),
    Secret(
        "openai-key", "sk-svcacct-" + rand(60, URLSAFE) + "T3BlbkFJ" + rand(20), "key: {s}", "sk-svcacct-"
    ),
    Secret(
        "anthropic-key",
        "sk-ant-api03-" + rand(93, URLSAFE) + "AA",
        "Anthropic key {s} works",
        "sk-ant-api03-",
    ),
    Secret(
        "anthropic-key", "sk-ant-admin01-" + rand(93, URLSAFE) + "AA", "x-api-key: {s}", "sk-ant-admin01-"
    ),
    Secret("openrouter-key", "sk-or-v1-" + rand(64, HEX), "OPENROUTER_API_KEY={s}", "sk-or-v1-"),
    Secret("groq-key", "gsk_" + rand(52), 'Groq(api_key="{s}")', "gsk_"),
    Secret("replicate-token", "r8_" + rand(37), "REPLICATE_API_TOKEN={s}", "r8_"),
    Secret("xai-key", "xai-" + rand(80), "export XAI_API_KEY='{s}'", "xai-"),
    Secret("perplexity-key", "pplx-" + rand(48), "Authorization: Bearer {s}", "pplx-"),
    # Chat, mail, payments, SaaS.
    Secret(
        "slack-token",
        "xoxb-" + rand(11, DIGITS) + "-" + rand(13, DIGITS) + "-" + rand(24),
        "SLACK_BOT_TOKEN={s}",
        "xoxb-",
    ),
    Secret(
        "slack-token",
        "xoxp-" + rand(11, DIGITS) + "-" + rand(11, DIGITS) + "-" + rand(32, HEX),
        "user token {s}",
        "xoxp-",
    ),
    Secret(
        "slack-app-token",
        "xapp-1-A" + rand(10, UPPER + DIGITS) + "-" + rand(13, DIGITS) + "-" + rand(64, HEX),
        "socket mode: {s}",
        "xapp-1-",
    ),
    Secret(
        "slack-webhook",
        "https://hooks.slack.com/services/T"
        + rand(8, UPPER + DIGITS)
        + "/B"
        + rand(10, UPPER + DIGITS)
        + "/"
        + rand(24),
        "curl -X POST {s} -d '{}'",
        "https://hooks.slack.com/services/",
    ),
    Secret(
        "discord-webhook",
        "https://discord.com/api/webhooks/" + rand(18, DIGITS) + "/" + rand(68, URLSAFE),
        "webhook = '{s}'",
        "https://discord.com/api/webhooks/",
    ),
    Secret(
        "discord-token",
        rand(24, "MN")[:1] + rand(23, ALNUM) + "." + rand(6, URLSAFE) + "." + rand(38, URLSAFE),
        "DISCORD_TOKEN={s}",
    ),
    Secret("telegram-token", rand(10, DIGITS) + ":AA" + rand(33, URLSAFE), "bot = Bot('{s}')"),
    Secret("stripe-key", "sk_live_" + rand(99), 'stripe.api_key = "{s}"', "sk_live_"),
    Secret("stripe-key", "rk_live_" + rand(99), "restricted: {s}", "rk_live_"),
    Secret("stripe-key", "sk_test_" + rand(24), "test mode: {s}", "sk_test_"),
    Secret("stripe-webhook-secret", "whsec_" + rand(32), "STRIPE_WEBHOOK_SECRET={s}", "whsec_"),
    Secret(
        "sendgrid-key",
        "SG." + rand(22, URLSAFE) + "." + rand(43, URLSAFE),
        "sg = SendGridAPIClient('{s}')",
        "SG.",
    ),
    Secret("mailgun-key", "key-" + rand(32, HEX), "api: {s}", "key-"),
    Secret("twilio-key", "SK" + rand(32, HEX), "TWILIO_API_KEY={s}", "SK"),
    Secret("twilio-auth-token", rand(32, HEX), "TWILIO_AUTH_TOKEN={s}"),
    Secret("shopify-token", "shpat_" + rand(32, HEX), "X-Shopify-Access-Token: {s}", "shpat_"),
    Secret("square-token", "EAAA" + rand(60, URLSAFE), "square access token {s}", "EAAA"),
    Secret("linear-key", "lin_api_" + rand(40), "LINEAR_API_KEY={s}", "lin_api_"),
    Secret("notion-token", "ntn_" + rand(46), "notion = Client(auth='{s}')", "ntn_"),
    Secret(
        "atlassian-token",
        "ATATT3xFfGF0" + rand(170, URLSAFE) + "=" + rand(8, HEX),
        "curl -u me@corp.com:{s} https://corp.atlassian.net",
        "ATATT3xFfGF0",
    ),
    Secret("sentry-token", "sntrys_" + rand(120, B64), "SENTRY_AUTH_TOKEN={s}", "sntrys_"),
    Secret("grafana-token", "glsa_" + rand(32) + "_" + rand(8, HEX), "grafana service account: {s}", "glsa_"),
    Secret("newrelic-key", "NRAK-" + rand(27, UPPER + DIGITS), "NEW_RELIC_API_KEY={s}", "NRAK-"),
    Secret("supabase-token", "sbp_" + rand(40, HEX), "supabase login --token {s}", "sbp_"),
    Secret("databricks-token", "dapi" + rand(32, HEX), "DATABRICKS_TOKEN={s}", "dapi"),
    Secret("doppler-token", "dp.st.prd." + rand(43), "DOPPLER_TOKEN={s}", "dp.st."),
    Secret("vault-token", "hvs." + rand(90, URLSAFE), "export VAULT_TOKEN={s}", "hvs."),
    Secret(
        "age-key", "AGE-SECRET-KEY-1" + rand(58, UPPER + DIGITS), "# created: 2026\n{s}\n", "AGE-SECRET-KEY-1"
    ),
    Secret("planetscale-token", "pscale_tkn_" + rand(43, URLSAFE), "PLANETSCALE_TOKEN={s}", "pscale_tkn_"),
    # Tokens by shape.
    Secret("jwt", _jwt(), "Authorization: Bearer {s}"),
    Secret("jwt", _jwt(), '{"id_token": "{s}"}'),
    Secret(
        "bearer-token", rand(40, ALNUM + "._-"), "curl -H 'Authorization: Bearer {s}' https://api.example.com"
    ),
    Secret("basic-auth", _b64("admin:" + rand(16)), "Authorization: Basic {s}"),
    Secret("api-key-header", rand(32, HEX), "curl -H 'X-API-Key: {s}' https://api.internal/v1"),
    Secret("api-key-header", rand(40), "x-api-key: {s}"),
    # Passwords in URLs and command lines.
    Secret("url-password", "Tr0ub4dor-" + rand(6), "DATABASE_URL=postgres://admin:{s}@db.internal:5432/app"),
    Secret("url-password", rand(20), "git remote add o https://bot:{s}@git.example.com/r.git"),
    Secret("url-password", rand(24), "REDIS_URL=redis://:{s}@cache:6379/0"),
    Secret("url-password", rand(8) + "@" + rand(8), "postgres://u:{s}@host/db"),
    Secret("url-password", rand(16), "mongodb+srv://app:{s}@cluster0.mongodb.net/?retryWrites=true"),
    Secret("curl-user", rand(18), "curl -u deploy:{s} https://ci.example.com/api"),
    Secret("cli-password", _human_password(), "mysqladmin --password={s} status"),
    Secret("cli-password", rand(20), "psql --password {s}"),
    # Key/value forms: .env, YAML, JSON, Python, INI, Kubernetes.
    Secret("env-password", "hunter2", "DB_PASSWORD={s}\nDEBUG=1"),
    Secret("env-password", "$dTHF" + rand(12), "DB_PASSWORD={s} ", "$"),
    Secret("env-password", "mysecretkeyvalue", "SECRET_KEY={s}"),
    Secret(
        "env-password",
        "django-insecure-" + rand(30, ALNUM + "!@#%^&*(-_=+)"),
        'SECRET_KEY = "{s}"',
        "django-insecure-",
    ),
    Secret("env-password", rand(32), "export SERVICE_TOKEN='{s}'"),
    Secret("env-password", rand(24), "API_KEY={s} npm start"),
    Secret(
        "yaml-password",
        _human_password(),
        "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: {s}\n",
    ),
    Secret("yaml-password", rand(20), "database:\n  password: {s}\n  host: db\n"),
    Secret("yaml-password", _human_password(), 'smtp:\n  Password: "{s}"\n'),
    Secret("mixed-case-key", rand(32), "Api_Key: {s}"),
    Secret("mixed-case-key", rand(28), "db_password={s}"),
    Secret("python-secret", rand(40, URLSAFE), 'client_secret = "{s}"'),
    Secret("python-secret", rand(30), "app.config['SECRET_KEY'] = '{s}'"),
    Secret("python-secret", _human_password(), "conn = connect(host='db', user='app', password='{s}')"),
    Secret("json-secret", rand(32), '{"secret_key": "{s}", "region": "eu"}'),
    Secret("json-secret", rand(40, URLSAFE), '{"apiKey": "{s}"}'),
    Secret("json-secret", _human_password(), '{"password": "{s}"}'),
    Secret(
        "json-escaped",
        rand(36, URLSAFE),
        '"body": "{\\"client_secret\\":\\"{s}\\",\\"grant_type\\":\\"client_credentials\\"}"',
    ),
    Secret("json-escaped", rand(24), '"{\\"password\\": \\"{s}\\"}"'),
    Secret("ini-password", _human_password(), "[client]\nuser = root\npassword = {s}\n"),
    Secret(
        "k8s-secret",
        _b64(rand(20)),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
        "data:\n  username: YWRtaW4=\n  password: {s}\n",
    ),
    Secret(
        "k8s-secret", _b64(rand(32)), "kind: Secret\ndata:\n  api-key: {s}\n  tls.crt: LS0tLS1CRUdJTg==\n"
    ),
    Secret("toml-token", rand(40), '[tool.poetry.http-basic.internal]\npassword = "{s}"\n'),
    Secret(
        "connection-string",
        _human_password(),
        "Server=tcp:db.database.windows.net;Database=app;User ID=sa;Password={s};Encrypt=true",
    ),
    Secret("php-secret", rand(32), "define('AUTH_KEY', '{s}');"),
    Secret("js-secret", rand(40), 'const apiSecret = "{s}";'),
    Secret("go-secret", rand(40), 'token := "{s}"'),
]


def _sha1() -> str:
    return hashlib.sha1(rand(20).encode()).hexdigest()


def _sha256() -> str:
    return hashlib.sha256(rand(20).encode()).hexdigest()


_CERT = "\n".join(rand(64, B64) for _ in range(6))
_PUB = "AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(43, B64)

LOOKALIKES: list[str] = [
    # Hashes, ids and digests.
    f"commit {_sha1()} on main",
    f"merge {_sha1()[:12]} into topic",
    f"git log --oneline: {_sha1()[:7]} fix, {_sha1()[:7]} docs",
    f"request id {uuid.UUID(int=_rng.getrandbits(128))}",
    f'{{"traceId": "{_rng.getrandbits(128):032x}", "spanId": "{_rng.getrandbits(64):016x}"}}',
    f"sha256:{_sha256()}",
    f"image: python@sha256:{_sha256()}",
    f"{_sha256()}  dist/app.tar.gz",
    f'"integrity": "sha512-{base64.b64encode(hashlib.sha512(b"x").digest()).decode()}"',
    '"resolved": "https://registry.npmjs.org/a/-/a-1.0.0.tgz", '
    f'"integrity": "sha1-{base64.b64encode(hashlib.sha1(b"y").digest()).decode()}"',
    f"md5 {hashlib.md5(b'z').hexdigest()}",
    f"session {rand(16, HEX)} (id)",
    "data:image/png;base64," + base64.b64encode(bytes(_rng.getrandbits(8) for _ in range(600))).decode(),
    # Public keys and certificates.
    f"-----BEGIN PUBLIC KEY-----\n{_CERT}\n-----END PUBLIC KEY-----",
    f"-----BEGIN CERTIFICATE-----\n{_CERT}\n-----END CERTIFICATE-----",
    f"ssh-ed25519 {_PUB} dev@laptop",
    f"public_key: ssh-ed25519 {_PUB}",
    f"STRIPE_PUBLISHABLE_KEY=pk_live_{rand(24)}",
    f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{_CERT}\n-----END PGP PUBLIC KEY BLOCK-----",
    # Paths, resource names, URLs.
    "GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/sa.json",
    "SSH_KEY_PATH=~/.ssh/id_ed25519 and TOKEN_FILE=./secrets/token.txt",
    '{"name": "projects/acme-prod/secrets/db-url/versions/7"}',
    "secret: projects/acme-prod/secrets/api-key/versions/latest",
    "secretKeyRef:\n  name: db-credentials\n  key: password",
    "PWD=/home/dev/project OLDPWD=/home/dev SORT_KEY=name MONKEY=banana",
    "git@github.com:org/repo.git and https://example.com:8443/path@v2",
    "https://user@example.com/repo.git and ssh://git@host:22/r",
    "see https://docs.example.com/auth/token-exchange#password-grant",
    # Placeholders and examples.
    "Set OPENAI_API_KEY=sk-... in your shell, e.g. sk-... or sk-proj-...",
    "export API_KEY=your-api-key-here",
    "API_KEY=<your key> SECRET=${SECRET} TOKEN=$(cat ~/.token) PASSWORD=***",
    "DB_PASSWORD=$DB_PASSWORD and password: ${POSTGRES_PASSWORD}",
    'API_KEY = os.environ["API_KEY"]',
    "password = getpass.getpass()",
    "token: str = Field(..., description='the token')",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is the example format",
    "AKIAIOSFODNNEXAMPLE is documentation",
    "postgres://user:password@localhost/db and https://user:<password>@host/",
    "curl -u user:password https://example.com and curl -u $USER:$PASS",
    '{"password": "", "token": null, "secret": true}',
    "password: changeme",
    "[REDACTED:github-token] was masked before",
    "curl -H 'Authorization: Bearer $TOKEN' and Bearer <token> and bearer tokens expire",
    "Authorization: Basic configuration is described below",
    # Cursors, counters and model settings that say "token" or "key".
    f'{{"nextPageToken": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3czRlY2NoEgIIAQ{rand(8)}"}}',
    f'"next_cursor": "dXNlcjpVMEc5V0ZYTlo{rand(6)}", "continuationToken": "{rand(24)}"',
    '{"mask_token": "[MASK]", "pad_token": "<pad>", "eos_token": "</s>"}',
    "NUM_TOKEN=32000 MAX_TOKENS=4096",
    '{"max_tokens": 4096, "input_tokens": 120, "tokenizer": "cl100k"}',
    '{"token_type": "bearer", "expires_in": 3600, "token_count": 57}',
    "Please enter your password and keep the token safe; the secret is patience.",
    "The password field is required. Reset the password: it must be 12 characters.",
    "the hf_hub_download helper and npm_config_cache and glpat- prefixes",
    "scikit-learn and risk-assessment-framework-version-2024-extended",
    "eyJhbGciOiJIUzI1NiJ9 alone is just a base64 header",
    "key: value pairs, keyboard shortcuts, primary_key=True, foreign key: user_id",
    '{"sortKey": "createdAt", "cacheKey": "v2-linux-node20", "idempotencyKey": "order-1234"}',
    "TOKEN=\nAPI_KEY=\n",
    "private_key_path: /etc/ssl/private/server.key",
    "The function returns a new access token and a refresh token.",
    "const token = process.argv[2]; if (!token) throw new Error('no token')",
    # Slot shapes that hold no secret (issue 32).
    '<add key="ApiSecret" value="${API_SECRET}" />',
    "usage: htpasswd -b[cmBdpsD] passwordfile username password",
    "The password must be at least 12 characters; the token is valid for 3600 seconds.",
    "| Key | Action |\n|-----|--------|\n| Ctrl+K | Delete to end of line |\n"
    "| Option+Left/Right | Move by word |",
    "logInfo('app.start', 'App booting'); login(user)",
    "DB_PASSWORD=changeme-in-prod",
    "transaction 0x" + "3f1c2a9b8d7e4f6a" * 4 + " confirmed",
    "$2b$12$" + "R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
]
