# ruff: noqa: E501  (a table of families: one row a line reads better than wrapped lambdas)
"""Held-out families the detectors were not written for: new key names, vendors and syntaxes.

Written for issue 40 before the detectors it measures, and kept out of their tuning: each family
is a class of holder (a key in some syntax, a credential option of some command, key material
in some encoding, a literal passed to a signing call, a token in a URL, a command that prints a
credential, a random value nothing explains), each row one syntax of it, each value drawn anew
per seed. Key names, tools and vendors here appear nowhere in the detectors' own corpus.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid

from tests.share.heldout.generate import Case
from tests.share.heldout.lookalikes import Lookalike
from tests.share.heldout.slots import Slot, draw_rows, password

_ALNUM = string.ascii_letters + string.digits
_B62 = _ALNUM
_B64URL = _ALNUM + "-_"
_WORDS = [
    "abandon",
    "ability",
    "able",
    "about",
    "above",
    "absent",
    "absorb",
    "abstract",
    "absurd",
    "abuse",
    "access",
    "accident",
    "account",
    "accuse",
    "achieve",
    "acid",
    "acoustic",
    "acquire",
    "across",
    "act",
    "action",
    "actor",
    "actress",
    "actual",
    "adapt",
    "add",
    "addict",
    "address",
    "adjust",
    "admit",
    "adult",
    "advance",
    "advice",
    "aerobic",
    "affair",
    "afford",
    "afraid",
    "again",
    "age",
    "agent",
    "agree",
    "ahead",
    "aim",
    "air",
    "airport",
    "aisle",
    "alarm",
    "album",
    "alcohol",
    "alert",
    "alien",
    "all",
    "alley",
    "allow",
    "almost",
    "alone",
    "alpha",
    "already",
    "also",
    "alter",
    "always",
    "amateur",
    "amazing",
    "among",
    "amount",
    "amused",
    "analyst",
    "anchor",
    "ancient",
    "anger",
    "angle",
    "angry",
    "animal",
    "ankle",
    "announce",
    "annual",
    "another",
    "answer",
    "antenna",
    "antique",
    "anxiety",
    "any",
    "apart",
]


def _s(rng: random.Random, n: int, alphabet: str = _B62) -> str:
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.isalpha() for c in v):
            return v


def _hex(rng: random.Random, n: int) -> str:
    return _s(rng, n, "0123456789abcdef")


def _b64(rng: random.Random, nbytes: int) -> str:
    return base64.b64encode(rng.randbytes(nbytes)).decode()


def _b64url(rng: random.Random, nbytes: int) -> str:
    return base64.urlsafe_b64encode(rng.randbytes(nbytes)).decode().rstrip("=")


def _tok(rng: random.Random) -> str:
    return _s(rng, rng.randint(28, 44), _B64URL)


def _seed_words(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.choice((12, 24))))


# (family, syntax, value maker, text maker); value maker(rng) -> value; text maker(value, rng) -> text.
ROWS: tuple[Slot, ...] = (
    # --- a key that names a secret, in any syntax ---
    ("key-syntax", "hcl", _tok, lambda v, r: f'resource "ledger_account" "main" {{\n  signing_secret = "{v}"\n  region = "eu"\n}}'),
    ("key-syntax", "properties", password, lambda v, r: f"spring.mail.host=smtp.corp\nspring.mail.passphrase={v}\nspring.mail.port=587"),
    ("key-syntax", "xml-attr", _tok, lambda v, r: f'<endpoint url="https://q.corp" sharedSecret="{v}" timeout="30"/>'),
    ("key-syntax", "yaml-list", _tok, lambda v, r: f"webhooks:\n  - url: https://hooks.corp/in\n    signingSecret: {v}\n    retries: 3"),
    ("key-syntax", "json-nested", password, lambda v, r: '{"smtp": {"host": "mx.corp", "login": "ops", "passphrase": "' + v + '"}}'),
    ("key-syntax", "toml-inline", _tok, lambda v, r: f'broker = {{ host = "mq.corp", accessSecret = "{v}" }}'),
    ("key-syntax", "ini-colon", password, lambda v, r: f"[ldap]\nbind_dn: cn=svc,dc=corp\nbind_credential: {v}"),
    ("key-syntax", "php-array", _tok, lambda v, r: f"'mailer' => [\n    'apiSecret' => '{v}',\n    'from' => 'a@corp.io',\n],"),
    ("key-syntax", "go-struct", _tok, lambda v, r: f'cfg := Config{{\n\tEndpoint: "https://x.corp",\n\tClientSecret: "{v}",\n}}'),
    ("key-syntax", "ruby-hash", _tok, lambda v, r: f"Client.new(endpoint: 'https://x.corp', app_secret: '{v}')"),
    ("key-syntax", "powershell-var", password, lambda v, r: f'$AdminPassphrase = "{v}"\nNew-LocalUser -Name ops'),
    ("key-syntax", "fish-set", _tok, lambda v, r: f"set -gx LEDGER_ACCESS_TOKEN {v}"),
    # --- name/value objects in lists, headers, cookies, columns, params ---
    ("holder", "har-header", _tok, lambda v, r: '{"headers": [{"name": "X-Ledger-Auth", "value": "' + v + '"}, {"name": "Accept", "value": "*/*"}]}'),
    ("holder", "name-value-env", password, lambda v, r: f'env:\n  - name: BROKER_PASSPHRASE\n    value: "{v}"\n  - name: LOG_LEVEL\n    value: info'),
    ("holder", "key-value-list", _tok, lambda v, r: '[{"Key": "SigningSecret", "Value": "' + v + '"}, {"Key": "Region", "Value": "eu"}]'),
    ("holder", "custom-header", _tok, lambda v, r: f"curl https://api.ledgerly.io/v3/books -H 'X-Ledgerly-Access: {v}'"),
    ("holder", "cookie", _tok, lambda v, r: f"Cookie: theme=dark; ledger_sess={v}; lang=en"),
    ("holder", "set-cookie", _tok, lambda v, r: f"< set-cookie: __Host-auth={v}; Path=/; Secure; HttpOnly"),
    ("holder", "csv-column", password, lambda v, r: f"username,passphrase,role\nops,{v},admin\nbob,,viewer"),
    ("holder", "tsv-column", _tok, lambda v, r: f"name\tapi_secret\tcreated\nbilling\t{v}\t2026-01-02"),
    ("holder", "form-body", _tok, lambda v, r: f"curl -X POST https://id.corp/oauth/token -d 'grant_type=client_credentials&client_id=svc&client_secret={v}'"),
    # --- credential options of any command, any style ---
    ("option", "dash-word", password, lambda v, r: f"keytool -importcert -keystore app.jks -storepass {v} -file ca.crt"),
    ("option", "positional", password, lambda v, r: f"nmcli dev wifi connect CorpNet password {v}"),
    ("option", "long-equals", password, lambda v, r: f"restic-backup --repo s3:bk --passphrase={v} snapshots"),
    ("option", "windows-colon", password, lambda v, r: f"net use Z: \\\\files\\share /user:corp\\ops {v} /persistent:no"),
    ("option", "msbuild-p", password, lambda v, r: f"msdeploy -verb:sync -dest:auto,computerName=web1,userName=ops,password={v}"),
    ("option", "slash-p", password, lambda v, r: f"sqlpackage /Action:Publish /TargetUser:sa /TargetPassword:{v} /SourceFile:app.dacpac"),
    ("option", "powershell", password, lambda v, r: f"Connect-Server -Server vc01 -User ops -Password '{v}' -Force"),
    ("option", "powershell-secure", password, lambda v, r: f'$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force'),
    ("option", "glued-short", password, lambda v, r: f"lftp -u ops,{v} sftp://files.corp"),
    ("option", "piped-tool", password, lambda v, r: f"echo '{v}' | kinit ops@CORP.IO"),
    ("option", "here-string", password, lambda v, r: f"vaultctl unlock <<< '{v}'"),
    ("option", "heredoc", password, lambda v, r: f"openconnect vpn.corp -u ops --passwd-on-stdin <<EOF\n{v}\nEOF"),
    ("option", "expect", password, lambda v, r: f'spawn ssh ops@bastion\nexpect "password:"\nsend "{v}\\r"\ninteract'),
    # --- key material in any encoding ---
    ("key-material", "hex-key", lambda r: _hex(r, 64), lambda v, r: f"ENCRYPTION_MASTER={v}"),
    ("key-material", "wireguard", lambda r: _b64(r, 32), lambda v, r: f"[Interface]\nPrivateKey = {v}\nAddress = 10.8.0.2/24"),
    ("key-material", "jwk-oct", lambda r: _b64url(r, 32), lambda v, r: '{"kty": "oct", "kid": "k1", "alg": "HS256", "k": "' + v + '"}'),
    ("key-material", "jwk-ec-d", lambda r: _b64url(r, 32), lambda v, r: '{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "d": "' + v + '"}'),
    ("key-material", "tink-keyset", lambda r: _b64(r, 36), lambda v, r: '{"primaryKeyId": 1931667682, "key": [{"keyData": {"typeUrl": "type.googleapis.com/google.crypto.tink.AesGcmKey", "value": "' + v + '", "keyMaterialType": "SYMMETRIC"}, "status": "ENABLED"}]}'),
    ("key-material", "seed-phrase", _seed_words, lambda v, r: f'wallet:\n  mnemonic: "{v}"'),
    ("key-material", "laravel-app-key", lambda r: "base64:" + _b64(r, 32), lambda v, r: f"APP_KEY={v}"),
    ("key-material", "ssh-key-body", lambda r: _b64(r, 48), lambda v, r: f"$ cat ~/.ssh/deploy_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{v}\n-----END OPENSSH PRIVATE KEY-----"),
    # --- literals passed to signing, encryption or connection calls ---
    ("call-literal", "hmac-bytes", lambda r: _s(r, 32), lambda v, r: f"sig = hmac.new(b'{v}', body, hashlib.sha256).hexdigest()"),
    ("call-literal", "jwt-encode", lambda r: _s(r, 32), lambda v, r: f'token = jwt.encode(claims, "{v}", algorithm="HS256")'),
    ("call-literal", "fernet", lambda r: _b64url(r, 32) + "=", lambda v, r: f"f = Fernet(b'{v}')"),
    ("call-literal", "node-hmac", lambda r: _s(r, 30), lambda v, r: f"crypto.createHmac('sha256', '{v}').update(raw).digest('hex')"),
    ("call-literal", "connect-kw", password, lambda v, r: f"conn = pymysql.connect(host='db', user='app', passwd=r'{v}', db='shop')"),
    ("call-literal", "bound-var", lambda r: _s(r, 36), lambda v, r: f'const ledgerSigningSecret = "{v}";'),
    ("call-literal", "aes-new", lambda r: _s(r, 32), lambda v, r: f"cipher = AES.new(b'{v}', AES.MODE_GCM)"),
    # --- tokens in URLs ---
    ("url-token", "path-segment", _tok, lambda v, r: f"POST https://ingest.telemetrix.io/v2/{v}/events"),
    ("url-token", "query-any", _tok, lambda v, r: f"GET https://files.corp/dl/report.pdf?expires=1767225600&sig={v}"),
    ("url-token", "query-short-name", _tok, lambda v, r: f"https://maps.geoly.io/tiles/3/4/2.png?k={v}"),
    ("url-token", "fragment", _tok, lambda v, r: f"https://app.corp/callback#state=xyz&code={v}"),
    # --- one-line output of a command that prints a credential ---
    ("printed", "vault-field", password, lambda v, r: f"vault kv get -field=passphrase secret/ledger\x1e{v}\n"),
    ("printed", "az-token", _tok, lambda v, r: f"az account get-access-token --query accessToken -o tsv\x1e{v}\n"),
    ("printed", "op-read", password, lambda v, r: f"op read op://infra/ledger/credential\x1e{v}\n"),
    ("printed", "pass-show", password, lambda v, r: f"pass show infra/smtp-auth\x1e{v}\n"),
    ("printed", "keychain", password, lambda v, r: f"security find-generic-password -s ledger -w\x1e{v}\n"),
    ("printed", "kubectl-token", _tok, lambda v, r: f"kubectl create token deployer -n ci\x1e{v}\n"),
    # --- a random value nothing explains ---
    ("random", "prose-b62", lambda r: _s(r, r.randint(32, 48)), lambda v, r: f"Use {v} when the dashboard asks for it."),
    ("random", "quoted-b64url", lambda r: _s(r, 40, _B64URL), lambda v, r: f'client.configure("{v}")'),
    ("random", "bare-line", lambda r: _s(r, 40), lambda v, r: f"here it is:\n{v}\nkeep it safe"),
)  # fmt: skip


def _evidence(value: str) -> tuple[str, ...]:
    core = value.removeprefix("base64:")
    if " " in core:  # a word seed: any run of four of its words is the secret
        words = core.split()
        return tuple(" ".join(words[i : i + 4]) for i in range(0, len(words) - 3, 2))
    return tuple(dict.fromkeys([value, *(core[i : i + 8] for i in range(0, max(1, len(core) - 7), 4))]))


def draw_unseen_cases(seed: int, per_row: int = 2) -> list[Case]:
    """Return ``per_row`` cases of every row, values drawn anew, each in a random field."""
    return draw_rows(ROWS, random.Random(seed ^ 0x40), per_row, _evidence)


def draw_unseen_lookalikes(seed: int) -> list[Lookalike]:
    """Return look-alikes that stand where hashes, ids, public keys and addresses stand."""
    rng = random.Random(seed ^ 0x41)
    out: list[Lookalike] = []
    for _ in range(2):
        sha = _hex(rng, 40)
        out.append(
            (
                "commit",
                f"Merge: {_hex(rng, 7)} {_hex(rng, 7)}\nHEAD is now at {sha[:12]}\n{sha} refs/heads/main",
                sha,
            )
        )
        tree = _hex(rng, 40)
        out.append(("git-tree", f"100644 blob {tree}\tREADME.md", tree))
        lock = "sha1-" + base64.b64encode(hashlib.sha1(rng.randbytes(8)).digest()).decode()
        out.append(
            (
                "yarn-lock",
                f'  resolved "https://registry.yarnpkg.com/a/-/a-1.0.0.tgz#{_hex(rng, 40)}"\n  integrity {lock}',
                lock,
            )
        )
        poetry = _hex(rng, 64)
        out.append(
            (
                "poetry-lock",
                f'files = [\n    {{file = "idna-3.7.tar.gz", hash = "sha256:{poetry}"}},\n]',
                poetry,
            )
        )
        chk = _hex(rng, 64)
        out.append(("sha256sum", f"$ sha256sum release.tar.gz\n{chk}  release.tar.gz", chk))
        md5 = _hex(rng, 32)
        out.append(("etag", f'< ETag: "{md5}"', md5))
        rid = str(uuid.UUID(int=rng.getrandbits(128)))
        out.append(("trace-id", f"x-request-id: {rid}", rid))
        oid = _hex(rng, 24)
        out.append(("mongo-id", f'{{"_id": {{"$oid": "{oid}"}}, "name": "a"}}', oid))
        ulid = _s(rng, 26, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        out.append(("ulid", f"created order {ulid}", ulid))
        nano = _s(rng, 21, _B64URL)
        out.append(("nanoid", f'{{"orderId": "{nano}", "total": 12}}', nano))
        addr = "0x" + _hex(rng, 40)
        out.append(("eth-address", f"sent 0.1 ETH to {addr}", addr))
        btc = "bc1q" + _s(rng, 38, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")
        out.append(("btc-address", f"deposit address: {btc}", btc))
        cid = "bafybei" + _s(rng, 52, "abcdefghijklmnopqrstuvwxyz234567")
        out.append(("ipfs-cid", f"pinned ipfs://{cid}", cid))
        qm = "Qm" + _s(rng, 44, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        out.append(("ipfs-v0", f"added {qm} photo.jpg", qm))
        pub = _b64(rng, 32)
        out.append(("wg-public-key", f"[Peer]\nPublicKey = {pub}\nAllowedIPs = 0.0.0.0/0", pub))
        jwk_x = _b64url(rng, 32)
        out.append(("jwk-public", '{"kty": "OKP", "crv": "Ed25519", "x": "' + jwk_x + '"}', jwk_x))
        sig = _b64(rng, 64)
        out.append(("signature", f'{{"payload": "ok", "signature": "{sig}"}}', sig[:40]))
        docker = _hex(rng, 64)
        out.append(("image-id", f"Successfully built {docker[:12]}\nsha256:{docker}", docker))
        sri = "sha384-" + _b64(rng, 48)
        out.append(("sri", f'<script src="/app.js" integrity="{sri}" crossorigin="anonymous"></script>', sri))
        yt = _s(rng, 11, _B64URL)
        out.append(("video-id", f"https://www.youtube.com/watch?v={yt}", yt))
        blob = _s(rng, 32, "abcdefghijklmnopqrstuvwxyz0123456789")
        out.append(("cache-key", f"restored cache key: node-modules-{blob}", blob))
        s3 = _hex(rng, 32) + "-" + str(rng.randint(2, 9))
        out.append(("s3-etag", f'"ETag": "\\"{s3}\\""', s3))
        camel = "".join(
            rng.choice(["fetch", "User", "Account", "Handler", "Service", "Factory", "Impl", "Cache"])
            for _ in range(6)
        )
        out.append(("identifier", f"class {camel}Provider implements Provider {{}}", camel))
    return out
