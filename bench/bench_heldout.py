"""Held-out redaction benchmark: secrets of ~150 providers' documented formats, through ``share``.

    python bench/bench_heldout.py [--seed N] [--agents pi,claude,codex] [--detect-secrets]

Values are drawn from ``tests/share/heldout/formats.py`` with a seeded RNG (a new seed each run
unless given; it is printed), placed in ~35 placements, written as pi, Claude Code and Codex
files and shared with a fake ``gh``; the uploaded page, its file name and the gist description
are read back. Prints recall per kind and per placement and the look-alikes masked; with
``--detect-secrets``, the same texts through bc-detect-secrets. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_redact import detect_secrets_masker  # noqa: E402
from tests.share.heldout.generate import draw_cases  # noqa: E402
from tests.share.heldout.lookalikes import draw_lookalikes  # noqa: E402
from tests.share.heldout.measure import fake_gh_on_path, gh_share, report, score_heldout  # noqa: E402
from tests.share.heldout.roles import role_cases_and_lookalikes  # noqa: E402
from tests.share.heldout.sessions import survived  # noqa: E402
from tests.share.heldout.unseen import draw_unseen_cases, draw_unseen_lookalikes  # noqa: E402


def detect_secrets_scores(seed: int) -> None:
    """Score bc-detect-secrets on the same texts (text level: it has no session walk)."""
    mask = detect_secrets_masker()
    if mask is None:
        print("  bc-detect-secrets: not installed (pip install bc-detect-secrets)")
        return

    cases = draw_cases(seed)
    left = sum(survived(c, mask(c.text)) for c in cases)
    looks = draw_lookalikes(seed)
    masked = sum(ev not in mask(text) for _, text, ev in looks)
    print(
        f"  bc-detect-secrets (text level): {len(cases) - left}/{len(cases)} found "
        f"({100 * left / len(cases):.1f}% left), look-alikes masked {masked}/{len(looks)} "
        f"({100 * masked / len(looks):.1f}%)"
    )
    from sessiontree.share.redact import redact_text

    left = sum(survived(c, redact_text(c.text)) for c in cases)
    masked = sum(ev not in redact_text(text) for _, text, ev in looks)
    print(
        f"  sessiontree (text level):       {len(cases) - left}/{len(cases)} found "
        f"({100 * left / len(cases):.1f}% left), look-alikes masked {masked}/{len(looks)} "
        f"({100 * masked / len(looks):.1f}%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--agents", default="pi,claude,codex")
    parser.add_argument("--detect-secrets", action="store_true")
    parser.add_argument(
        "--unseen", action="store_true", help="score the families of tests/share/heldout/unseen.py instead"
    )
    parser.add_argument(
        "--roles", action="store_true", help="score the families of tests/share/heldout/roles.py (issue 53)"
    )
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    print(f"seed {seed}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "agent").mkdir()
        (root / "work").mkdir()
        with fake_gh_on_path(root) as record:
            started = time.perf_counter()
            drawn = (draw_unseen_cases(seed), draw_unseen_lookalikes(seed)) if args.unseen else None
            drawn = role_cases_and_lookalikes(seed) if args.roles else drawn
            score = score_heldout(
                seed,
                root / "work",
                gh_share(root / "agent", record),
                tuple(args.agents.split(",")),
                drawn=drawn,
            )
            seconds = time.perf_counter() - started
    print("\n".join(report(score)))
    print(f"({seconds:.1f} s for the shares)")
    if args.detect_secrets:
        detect_secrets_scores(seed)


if __name__ == "__main__":
    main()
