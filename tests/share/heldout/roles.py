# ruff: noqa: E501  (a table of families: one row a line reads better than wrapped lambdas)
"""Held-out families of issue 53: a credential by the role it plays, in syntaxes no rule lists.

Written before the detectors it measures. Each family is a class of holder, each row one more
spelling of it: a command's password option (short flags, joined ``user%password`` forms, stdin,
here-docs, REPL and protocol lines), configuration of daemons in any syntax, code that declares a
credential or passes one to a call, values printed by random generators and secret stores, and
both sides of a word diff. Look-alikes stand in the same syntaxes: ports, timeouts, paths, flags,
methods and words where a password could stand.
"""

from __future__ import annotations

import base64
import random
import string

from tests.share.heldout.generate import Case
from tests.share.heldout.lookalikes import Lookalike
from tests.share.heldout.slots import Slot, draw_rows, password

_ALNUM = string.ascii_letters + string.digits
_SYLLABLES = ["ta", "ven", "lor", "mik", "zu", "dra", "pel", "sor", "nix", "qua", "ber", "tol", "ky", "rum"]


def _short(rng: random.Random) -> str:
    """A short random value (8-12 characters), as generators print them."""
    return "".join(rng.choice(_ALNUM) for _ in range(rng.randint(8, 12)))


def _human(rng: random.Random) -> str:
    """A password a person makes: two made-up words, a digit run and maybe a symbol."""
    words = ["".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))) for _ in range(2)]
    words[rng.randrange(2)] = words[0].capitalize()
    return (
        rng.choice(["", "-", "_", "."]).join(words)
        + str(rng.randint(10, 9999))
        + rng.choice(["", "!", "#", "@"])
    )


def _hexv(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _u(rng: random.Random) -> str:
    return rng.choice(["ops", "deploy", "svc-backup", "jdoe", "admin2", "etl"])


def _pw(rng: random.Random) -> str:
    return _human(rng) if rng.random() < 0.5 else password(rng)


ROWS: tuple[Slot, ...] = (
    # --- a command's password option, any spelling ---
    ("option", "short-P", _pw, lambda v, r: f"pg_basebackup -h db2 -U repl -P {v} -D /var/lib/pgsql/standby"),
    ("option", "short-p-glued", _pw, lambda v, r: f"mysqldump -u{_u(r)} -p{v} --single-transaction shop > shop.sql"),
    ("option", "short-w", _pw, lambda v, r: f"ldapmodify -H ldaps://dc2 -D 'uid={_u(r)},ou=ops,dc=corp' -w '{v}' -f change.ldif"),
    ("option", "short-k", _pw, lambda v, r: f"sshpass -p {v} ssh {_u(r)}@10.0.4.2 uptime"),
    ("option", "short-N", _pw, lambda v, r: f"ssh-keygen -t ed25519 -N '{v}' -f ~/.ssh/ci_key"),
    ("option", "short-A", _pw, lambda v, r: f"redis-cli -h cache01 -p 6380 -a {v} INFO replication"),
    ("option", "short-X", _pw, lambda v, r: f"lftp -e 'mirror -R site/' -u {_u(r)},{v} ftp.corp.io"),
    ("option", "slash-rp", _pw, lambda v, r: f"schtasks /create /tn backup /tr c:\\bk.cmd /sc daily /ru CORP\\{_u(r)} /rp {v}"),
    ("option", "short-s-openssl", _pw, lambda v, r: f"openssl enc -aes-256-cbc -salt -in db.tar -out db.tar.enc -k {v}"),
    ("option", "percent-joined", _pw, lambda v, r: f"smbget -U {_u(r)}%{v} smb://nas/backups/latest.tgz"),
    ("option", "comma-joined", _pw, lambda v, r: f"curlftpfs -o user={_u(r)},{v} ftp.corp.io /mnt/ftp"),
    ("option", "colon-joined-u", _pw, lambda v, r: f"curl -su {_u(r)}:{v} https://nexus.corp/service/rest/v1/status"),
    ("option", "wpa-passphrase", _pw, lambda v, r: f"wpa_passphrase CorpWiFi '{v}' >> /etc/wpa_supplicant.conf"),
    ("option", "chpasswd-pipe", _pw, lambda v, r: f"echo '{_u(r)}:{v}' | sudo chpasswd"),
    ("option", "printf-pipe", _pw, lambda v, r: f"printf '%s\\n' '{v}' | cryptsetup luksOpen /dev/sdb1 vault -"),
    ("option", "heredoc-passwd", _pw, lambda v, r: f"passwd {_u(r)} <<EOF\n{v}\n{v}\nEOF"),
    ("option", "yes-pipe", _pw, lambda v, r: f"(echo {v}; echo {v}) | smbpasswd -s -a {_u(r)}"),
    ("option", "env-inline", _pw, lambda v, r: f"PGPASSWORD={v} psql -h db -U app -c 'select 1'"),
    # --- REPL and protocol lines ---
    ("protocol", "redis-auth", _pw, lambda v, r: f"127.0.0.1:6379> AUTH {v}\nOK\n127.0.0.1:6379> KEYS *"),
    ("protocol", "redis-auth-user", _pw, lambda v, r: f"redis> AUTH {_u(r)} {v}\nOK"),
    ("protocol", "imap-login", _pw, lambda v, r: f"a1 LOGIN {_u(r)}@corp.io {v}\na1 OK LOGIN completed"),
    ("protocol", "ftp-pass", _pw, lambda v, r: f"USER {_u(r)}\n331 Password required\nPASS {v}\n230 Logged in"),
    ("protocol", "pop3-pass", _pw, lambda v, r: f"+OK POP3 ready\nUSER {_u(r)}\n+OK\nPASS {v}\n+OK maildrop ready"),
    ("protocol", "smtp-auth-login", _pw, lambda v, r: f"AUTH LOGIN\n334 VXNlcm5hbWU6\n{base64.b64encode(_u(r).encode()).decode()}\n334 UGFzc3dvcmQ6\n{base64.b64encode(v.encode()).decode()}\n235 2.7.0 Authentication successful"),
    ("protocol", "smtp-auth-plain", _pw, lambda v, r: f"AUTH PLAIN {base64.b64encode(chr(0).join(['', _u(r), v]).encode()).decode()}\n235 ok"),
    ("protocol", "mysql-set-password", _pw, lambda v, r: f"mysql> SET PASSWORD FOR '{_u(r)}'@'localhost' = '{v}';"),
    ("protocol", "psql-alter-role", _pw, lambda v, r: f"postgres=# ALTER ROLE {_u(r)} WITH LOGIN PASSWORD '{v}';"),
    ("protocol", "mongo-createuser", _pw, lambda v, r: f'> db.createUser({{user: "{_u(r)}", pwd: "{v}", roles: ["readWrite"]}})'),
    # --- configuration of daemons and tools, any syntax ---
    ("config", "redis-requirepass", _pw, lambda v, r: f"# /etc/redis/redis.conf\nbind 127.0.0.1\nrequirepass {v}\nmaxmemory 2gb"),
    ("config", "redis-masterauth", _pw, lambda v, r: f"replicaof 10.0.0.5 6379\nmasterauth {v}"),
    ("config", "snmp-community", _short, lambda v, r: f"# snmpd.conf\nrocommunity {v} 10.0.0.0/8\nsyslocation rack4"),
    ("config", "snmp-community-word", _short, lambda v, r: f"snmp-server community {v} RO 10"),
    ("config", "hostapd-psk", _pw, lambda v, r: f"interface=wlan0\nssid=Lab\nwpa=2\nwpa_passphrase={v}"),
    ("config", "strongswan-psk", _pw, lambda v, r: f"connections {{\n  site {{\n    psk = {v}\n  }}\n}}"),
    ("config", "radius-secret", _pw, lambda v, r: f"client office {{\n    ipaddr = 10.1.0.0/24\n    secret = {v}\n}}"),
    ("config", "dovecot-plain", _pw, lambda v, r: f"{_u(r)}:{{PLAIN}}{v}::::::"),
    ("config", "ini-passwd", _pw, lambda v, r: f"[client]\nuser = {_u(r)}\npasswd = {v}\nhost = db01"),
    ("config", "space-password", _pw, lambda v, r: f"# fetchmailrc\npoll mail.corp.io protocol imap user {_u(r)} password {v}"),
    ("config", "nix", _pw, lambda v, r: f'services.grafana.settings.security = {{\n  admin_user = "admin";\n  admin_password = "{v}";\n}};'),
    ("config", "dhall", _pw, lambda v, r: f'let db =\n      {{ host = "db.internal", user = "{_u(r)}", password = "{v}" }}\nin  db'),
    ("config", "hcl", _pw, lambda v, r: f'resource "aws_db_instance" "main" {{\n  username = "app"\n  password = "{v}"\n}}'),
    ("config", "jsonnet", _pw, lambda v, r: f"{{\n  db: {{\n    user: '{_u(r)}',\n    password: '{v}',\n  }},\n}}"),
    ("config", "kdl", _pw, lambda v, r: f'database {{\n    user "{_u(r)}"\n    password "{v}"\n}}'),
    ("config", "xml-answer-file", _pw, lambda v, r: f"<UserAccounts>\n  <AdministratorPassword>\n    <Value>{v}</Value>\n    <PlainText>true</PlainText>\n  </AdministratorPassword>\n</UserAccounts>"),
    ("config", "cloud-init-chpasswd", _pw, lambda v, r: f"#cloud-config\nchpasswd:\n  list: |\n    root:{v}\n  expire: false"),
    ("config", "cloud-init-plain", _pw, lambda v, r: f"#cloud-config\nusers:\n  - name: {_u(r)}\n    plain_text_passwd: {v}\n    lock_passwd: false"),
    ("config", "kickstart-rootpw", _pw, lambda v, r: f"lang en_US\nrootpw --plaintext {v}\ntimezone UTC"),
    ("config", "yaml-anchor", _pw, lambda v, r: f"defaults: &db\n  password: &pw {v}\nstaging:\n  <<: *db"),
    ("config", "toml-inline", _pw, lambda v, r: f'[servers.db]\ncredentials = {{ user = "{_u(r)}", pass = "{v}" }}'),
    ("config", "properties-colon", _pw, lambda v, r: f"spring.datasource.username: {_u(r)}\nspring.datasource.pwd: {v}"),
    ("config", "systemd-env", _pw, lambda v, r: f'[Service]\nEnvironment="DB_USER={_u(r)}" "DB_PASS={v}"\nExecStart=/opt/app/run'),
    # --- code: declarations, calls, literals ---
    ("code", "rust-const", _pw, lambda v, r: f'const DB_PASS: &str = "{v}";'),
    ("code", "java-final", _pw, lambda v, r: f'private static final String ADMIN_PWD = "{v}";'),
    ("code", "ts-typed", _pw, lambda v, r: f'export const smtpPass: string = "{v}";'),
    ("code", "kotlin-val", _pw, lambda v, r: f'val keystorePassword: String = "{v}"'),
    ("code", "connect-positional", _pw, lambda v, r: f'conn = psycopg2.connect("db.internal", "shop", "{_u(r)}", "{v}")'),
    ("code", "go-connect", _pw, lambda v, r: f'client, err := ftp.Dial("ftp.corp:21")\nerr = client.Login("{_u(r)}", "{v}")'),
    ("code", "login-call", _pw, lambda v, r: f'session.login("{_u(r)}", "{v}")'),
    ("code", "set-password", _pw, lambda v, r: f'user.set_password("{v}")\nuser.save()'),
    ("code", "setenv", _pw, lambda v, r: f'os.Setenv("SERVICE_AUTH", "{v}")'),
    ("code", "environ-assign", _pw, lambda v, r: f'os.environ["REGISTRY_CRED"] = "{v}"'),
    ("code", "process-env", _pw, lambda v, r: f"process.env.MAIL_PASS = '{v}';"),
    ("code", "graphql-variables", _pw, lambda v, r: '{"query": "mutation Login($u: String!, $p: String!) { login(username: $u, password: $p) { token } }", "variables": {"u": "' + _u(r) + '", "p": "' + v + '"}}'),
    ("code", "escaped-bytes", _pw, lambda v, r: "key = b'" + "".join(f"\\x{b:02x}" for b in v.encode()) + "'"),
    ("code", "java-char-array", _pw, lambda v, r: "char[] pw = {" + ", ".join(f"'{c}'" for c in v) + "};"),
    # --- values printed by random generators and secret stores ---
    ("printed", "node-randombytes", lambda r: _hexv(r, 32), lambda v, r: f"node -e \"console.log(require('crypto').randomBytes(16).toString('hex'))\"\x1e{v}\n"),
    ("printed", "ruby-securerandom", lambda r: _hexv(r, 32), lambda v, r: f"ruby -rsecurerandom -e 'puts SecureRandom.hex(16)'\x1e{v}\n"),
    ("printed", "php-random-bytes", lambda r: _hexv(r, 24), lambda v, r: f"php -r 'echo bin2hex(random_bytes(12)), PHP_EOL;'\x1e{v}\n"),
    ("printed", "python-token", _short, lambda v, r: f"python3 -c 'import secrets; print(secrets.token_urlsafe(8))'\x1e{v}\n"),
    ("printed", "pwgen", _short, lambda v, r: f"pwgen -s 12 1\x1e{v}\n"),
    ("printed", "etcd-get", _pw, lambda v, r: f"etcdctl get /services/billing/db_pass\x1e/services/billing/db_pass\n{v}\n"),
    ("printed", "consul-kv", _pw, lambda v, r: f"consul kv get config/app/smtp\x1e{v}\n"),
    ("printed", "redis-get", _pw, lambda v, r: f"redis-cli GET app:admin:credential\x1e\"{v}\"\n"),
    ("printed", "kv-table", _pw, lambda v, r: f"vault kv get secret/app\x1e====== Data ======\nKey         Value\n---         -----\nuser        {_u(r)}\npass        {v}\n"),
    ("printed", "printenv", _pw, lambda v, r: f"printenv SERVICE_PASS\x1e{v}\n"),
    ("printed", "aws-ssm", _pw, lambda v, r: f"aws ssm get-parameter --name /prod/db --with-decryption --query Parameter.Value --output text\x1e{v}\n"),
    # --- both sides of a word diff ---
    ("diff", "word-diff", _pw, lambda v, r: f"git diff --word-diff\x1e-  password: [-{_human(r)}-]{{+{v}+}}\n"),
    ("diff", "word-diff-old", _pw, lambda v, r: f"git diff --word-diff=plain config.yml\x1edb_pass: [-{v}-]{{+${{DB_PASS}}+}}\n"),
    ("diff", "unified", _pw, lambda v, r: f"-    secret: {_human(r)}\n+    secret: {v}"),
)  # fmt: skip


def _evidence(value: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys([value, *(value[i : i + 8] for i in range(0, max(1, len(value) - 7), 4))]))


def draw_role_cases(seed: int, per_row: int = 2) -> list[Case]:
    """Return ``per_row`` cases of every row, values drawn anew, each in a random field."""
    return draw_rows(ROWS, random.Random(seed ^ 0x53), per_row, _evidence)


def draw_role_lookalikes(seed: int) -> list[Lookalike]:
    """Values in the same syntaxes that are no credential: ports, timeouts, paths, words, digests."""
    rng = random.Random(seed ^ 0x54)
    port, timeout = str(rng.randint(1024, 65000)), str(rng.randint(2, 90))
    image = (
        rng.choice(["postgres", "redis", "grafana", "nginx"])
        + ":"
        + rng.choice(["16-alpine", "7.2", "11.1.0"])
    )
    host = f"{rng.choice(['db', 'cache', 'build'])}-{rng.randint(1, 40):02d}.internal"
    digest = _hexv(rng, 64)
    word = rng.choice(["readonly", "staging", "primary", "default-pool", "analytics"])
    return [
        ("port", f"redis-cli -h {host} -p {port} PING", port),
        ("ssh-port", f"scp -P {port} build.tar {host}:/srv", port),
        ("timeout", f"curl -sS -w '%{{http_code}}' --max-time {timeout} https://{host}/health", timeout),
        ("wait", f"ping -c 3 -w {timeout} {host}", host),
        ("method", f"curl -X POST -H 'Content-Type: application/json' https://{host}/v1/jobs", host),
        ("image", f"docker run -d -p {port}:{port} {image}", image),
        ("host-name", f"ssh -A -N -L 5432:{host}:5432 bastion", host),
        (
            "key-file",
            "openssl enc -aes-256-cbc -in a -out a.enc -kfile /etc/keys/backup.key",
            "/etc/keys/backup.key",
        ),
        (
            "rsync-password-file",
            "rsync --password-file=/etc/rsync.secret -av src/ rsync://nas/backup",
            "/etc/rsync.secret",
        ),
        (
            "redis-conf",
            f"# redis.conf\nport {port}\nmaxmemory-policy allkeys-lru\nappendonly yes",
            "allkeys-lru",
        ),
        ("snmp-public", "rocommunity public localhost", "localhost"),
        ("digest", f"image: {image}@sha256:{digest}", digest),
        ("sql-column", "ALTER TABLE users ADD COLUMN password_hash TEXT NOT NULL;", "password_hash"),
        ("env-ref", 'password = var.db_password\nusername = "app"', "var.db_password"),
        (
            "code-ref",
            "conn = psycopg2.connect(host, dbname, user, os.environ['PGPASSWORD'])",
            "os.environ['PGPASSWORD']",
        ),
        ("kickstart", "rootpw --iscrypted $6$" + _hexv(rng, 16) + "$" + "x" * 4, "--iscrypted"),
        ("word-diff-words", f"git diff --word-diff\n-  mode: [-{word}-]{{+primary+}}", word),
        ("auth-method", "AUTH LOGIN\n334 VXNlcm5hbWU6", "VXNlcm5hbWU6"),
        (
            "set-password-call",
            "user.set_password(form.cleaned_data['password1'])",
            "form.cleaned_data['password1']",
        ),
        *_public_lookalikes(rng),
    ]


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _public_lookalikes(rng: random.Random) -> list[Lookalike]:
    """Public keys, published test vectors and documented examples: shaped like secrets, kept."""
    b64 = _ALNUM + "+/"
    xpub = rng.choice(["xpub", "tpub", "zpub"]) + _draw(rng, _B58, 107)
    npub = "npub1" + _draw(rng, _BECH32, 58)
    onion = _draw(rng, "abcdefghijklmnopqrstuvwxyz234567", 56)
    signify = "RWQ" + _draw(rng, b64, 53)
    dkim = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + _draw(rng, b64, 300) + "IDAQAB"
    vector = _hexv(rng, 64)
    period = rng.choice(["0b", "aa", "0c0c", "deadbeef"]) * 8
    return [
        ("xpub", f"watch-only wallet imported: {xpub}", xpub),
        ("npub", f"my nostr key is {npub}", npub),
        ("onion", f"curl --socks5-hostname 127.0.0.1:9050 http://{onion}.onion/status", onion),
        ("signify", f"untrusted comment: signify public key\n{signify}", signify),
        ("minisign", f"minisign -Vm release.tar.gz -P {signify}", signify),
        ("dkim", f'mail._domainkey IN TXT ( "v=DKIM1; k=rsa; p={dkim}" )', dkim[:40]),
        ("test-vector", f"RFC 8032 test 2, SECRET KEY: {vector}", vector),
        ("test-vector-hmac", f"HMAC test case (RFC 4231): Key = 0x{period}", period),
        (
            "documented",
            "curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        ),
    ]


def role_cases_and_lookalikes(seed: int) -> tuple[list[Case], list[Lookalike]]:
    """The families and their look-alikes for one seed (``score_heldout``'s ``drawn``)."""
    return draw_role_cases(seed), draw_role_lookalikes(seed)
