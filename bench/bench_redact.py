"""Redaction measured as a detector: recall on the secret corpus, look-alikes masked, speed.

    python bench/bench_redact.py [--before REV] [--libraries]

Compares the redactor with its version at REV (default: the commit before the rewrite) and,
with --libraries, with two maintained scanners run on the same texts: bc-detect-secrets (the
maintained fork of Yelp's detect-secrets, all default plugins and filters) and Microsoft's
secret masker (its high, medium and low confidence pattern sets). A secret counts as found
when no piece of it is left in the text as the page would show it (ANSI removed, markdown
escapes and entities decoded). Figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.share.corpus import LOOKALIKES, SECRETS, Secret  # noqa: E402
from tests.share.planted import (  # noqa: E402
    PLACEMENTS,
    shown_text,
    surviving,
    with_ansi,
    with_markdown_escapes,
    write_planted_session,
)

from sessiontree.exporter import render_session_html  # noqa: E402
from sessiontree.readers import load_for_export  # noqa: E402
from sessiontree.share.publish import redact_session  # noqa: E402
from sessiontree.share.redact import redact_text  # noqa: E402
from sessiontree.share.shown import shown_views  # noqa: E402

Masker = Callable[[str], str]
BEFORE = "1cd3fa5"  # main before issue 16's redaction work


def load_before(rev: str) -> Masker:
    """Return redact_text of share/redact.py as it was at ``rev``."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:src/sessiontree/share/redact.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("redact_before")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"redact@{rev}", "exec"), module.__dict__)
    return module.redact_text  # type: ignore[no-any-return]


def detect_secrets_masker() -> Masker | None:
    """Return a masker built on bc-detect-secrets (None when not installed)."""
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def mask(text: str) -> str:
        with default_settings():
            out = []
            for line in text.split("\n"):
                for found in scan_line(line):
                    if found.secret_value:
                        line = line.replace(found.secret_value, "[MASKED]")
                out.append(line)
        return "\n".join(out)

    return mask


def microsoft_masker() -> Masker | None:
    """Return Microsoft's secret masker with every pattern set it ships (None when not installed)."""
    try:
        from microsoft_security_utilities_secret_masker import (
            SecretMasker,
            load_regex_patterns_from_json_file,
        )
    except ImportError:
        return None
    patterns = set()
    for name in (
        "HighConfidenceSecurityModels.json",
        "MediumConfidenceSecurityModels.json",
        "LowConfidenceSecurityModels.json",
    ):
        patterns |= load_regex_patterns_from_json_file(name)
    masker = SecretMasker(patterns)
    return masker.mask_secrets  # type: ignore[no-any-return]


def union(*maskers: Masker) -> Masker:
    def mask(text: str) -> str:
        for one in maskers:
            text = one(text)
        return text

    return mask


DRESSES: dict[str, Callable[[Secret], str]] = {
    "plain": lambda s: s.text,
    "ansi": with_ansi,
    "markdown": with_markdown_escapes,
}


def left_in_view(secret: Secret, masked: str) -> bool:
    return any(surviving([secret], view.text) for view in shown_views(masked))


def score(mask: Masker) -> tuple[dict[str, int], int, float]:
    """Return (secrets found per dress, look-alikes masked, seconds)."""
    started = time.perf_counter()
    found = {
        dress: sum(not left_in_view(s, mask(make(s))) for s in SECRETS) for dress, make in DRESSES.items()
    }
    false = sum(mask(text) != text for text in LOOKALIKES)
    return found, false, time.perf_counter() - started


def print_scores(name: str, mask: Masker) -> None:
    found, false, seconds = score(mask)
    n = len(SECRETS)
    recall = " ".join(f"{dress} {100 * k / n:5.1f}%" for dress, k in found.items())
    caught = sum(found.values())
    precision = caught / (caught + false) if caught + false else 0.0
    print(
        f"  {name:<28} recall: {recall} | look-alikes masked {false}/{len(LOOKALIKES)} "
        f"({100 * false / len(LOOKALIKES):.1f}%) | precision {100 * precision:.1f}% | {seconds:.2f} s"
    )


def page_recall(mask_session: bool) -> None:
    """Recall through the real share path: redact the session, render the page, read its text."""
    with tempfile.TemporaryDirectory() as tmp:
        for placement in PLACEMENTS:
            path = write_planted_session(Path(tmp) / f"{placement}.jsonl", SECRETS, (placement,))
            session = load_for_export(path)
            started = time.perf_counter()
            redacted, _ = redact_session(session) if mask_session else (session, None)
            page = render_session_html(redacted)
            seconds = time.perf_counter() - started
            left = surviving(SECRETS, shown_text(page))
            print(
                f"  {placement:<12} {len(SECRETS) - len(left):>4}/{len(SECRETS)} masked on the page"
                f"  (redact+render {seconds:.2f} s)"
            )


def time_pem(mask: Masker, size: int) -> float:
    text = "-----BEGIN PRIVATE KEY-----\n" * (size // 28)
    started = time.perf_counter()
    mask(text)
    return time.perf_counter() - started


def time_session(before_rev: str) -> None:
    """Time redacting a generated session's entries: the version at ``before_rev`` and now."""
    gen = Path(os.environ.get("SESSIONTREE_SHARED", ROOT.parent / "shared")) / "tools" / "gen_session.py"
    if not gen.exists():
        return
    from sessiontree.share.redact import redact_entries

    load_before(before_rev)
    old = sys.modules["redact_before"].redact_entries
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "s.jsonl"
        subprocess.run(
            [sys.executable, str(gen), "--turns", "400", "--seed", "7", "-o", str(out)], check=True
        )
        session = load_for_export(out)
        for name, redact in ((f"@{before_rev}", old), ("now", redact_entries)):
            best = min(_timed(lambda r=redact: r(session.header, session.entries)) for _ in range(3))
            print(
                f"  redact a generated 400-turn session ({out.stat().st_size / 1e6:.1f} MB), "
                f"{name}: {best:.2f} s"
            )


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default=BEFORE, help="git revision of the redactor to compare with")
    parser.add_argument(
        "--libraries", action="store_true", help="also score detect-secrets and Microsoft's masker"
    )
    args = parser.parse_args()
    kinds = len({s.kind for s in SECRETS})
    print(f"corpus: {len(SECRETS)} secrets of {kinds} kinds, {len(LOOKALIKES)} look-alikes")
    before = load_before(args.before)
    print("text level (each secret in its context; plain, coloured with ANSI, markdown-escaped):")
    print_scores(f"pattern table @{args.before}", before)
    print_scores("pattern table (now)", redact_text)
    if args.libraries:
        for name, lib in (
            ("bc-detect-secrets", detect_secrets_masker()),
            ("ms secret-masker", microsoft_masker()),
        ):
            if lib is None:
                print(f"  {name}: not installed (pip install {name})")
                continue
            print_scores(name, lib)
            print_scores(f"now + {name}", union(redact_text, lib))
    print("whole shared page, per placement (now):")
    page_recall(mask_session=True)
    print("many BEGIN lines without an END:")
    print(
        f"  @{args.before}: 50 kB {time_pem(before, 50_000):.2f} s, 100 kB {time_pem(before, 100_000):.2f} s"
    )
    now = ", ".join(f"{size // 1000} kB {time_pem(redact_text, size):.2f} s" for size in (400_000, 4_000_000))
    print(f"  now: {now}")
    time_session(args.before)


if __name__ == "__main__":
    main()
