"""What the random-token default would mask and keep on the real fixtures' ordinary text.

    python bench/bench_random_default.py [--show 40] [--min-length 24] [--min-entropy 4.0]

Reads every session file under tests/fixtures/real and ../shared/fixtures/real, takes every
string of every entry, and runs the default (``share/random_default.py``) over its runs of token
characters, with the thresholds given. Prints how many pieces look random, how many the
look-alike rules keep (by reason) and how many it would mask, with the masked ones (first and
last characters) to judge by eye. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from sessiontree.readers import load_for_export  # noqa: E402
from sessiontree.share import entropy, random_default  # noqa: E402
from sessiontree.share.redact import _HIDDEN, _strings  # noqa: E402
from sessiontree.share.scan import token_runs  # noqa: E402
from sessiontree.share.spans import find_secret_spans  # noqa: E402


def _texts(paths: list[Path]) -> list[str]:
    texts: dict[str, None] = {}
    for path in paths:
        try:
            session = load_for_export(path, warn=lambda _: None)
        except Exception as exc:  # a fixture this reader does not take
            print(f"  skipped {path.name}: {exc}")
            continue
        for value in (session.header, *session.entries):
            for text, key in _strings(value):
                if len(text) >= random_default.MIN_LENGTH and key != _HIDDEN:
                    texts[text] = None
    return list(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=40)
    parser.add_argument("--min-length", type=int, default=random_default.MIN_LENGTH)
    parser.add_argument("--min-entropy", type=float, default=entropy.MIN_ENTROPY)
    args = parser.parse_args()
    random_default.MIN_LENGTH = args.min_length
    entropy.MIN_ENTROPY = args.min_entropy
    roots = [ROOT / "tests" / "fixtures" / "real", ROOT.parent / "shared" / "fixtures" / "real"]
    paths = sorted(p for root in roots if root.exists() for p in root.rglob("*.jsonl"))
    texts = _texts(paths)
    print(f"{len(paths)} files, {len(texts)} texts, {sum(map(len, texts)) / 1e6:.1f} M characters")
    kept: Counter[str] = Counter()
    masked: list[tuple[str, str]] = []
    by_others = 0
    for text in texts:
        others = [(s, e) for s, e, _ in find_secret_spans(text)]
        for start, end, kind in random_default.find_random_tokens(text, token_runs(text)):
            if any(s <= start < e for s, e in others):
                by_others += 1
            elif kind.startswith(random_default.KEPT):
                kept[kind.removeprefix(random_default.KEPT).split("'")[0]] += 1
            else:
                piece = text[start:end]
                masked.append((piece, text[max(0, start - 30) : start].replace("\n", " ")))
    print(
        f"random-looking pieces: {by_others} masked by a detector already, {sum(kept.values())} kept, "
        f"{len(masked)} masked by the default"
    )
    for reason, n in kept.most_common():
        print(f"  kept {n:5}  {reason}")
    for piece, before in masked[: args.show]:
        print(f"  masked {piece[:6]}...{piece[-4:]} ({len(piece)})  after {before!r}")


if __name__ == "__main__":
    main()
