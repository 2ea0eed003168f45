"""axe-core (installed by scripts/setup --test into .tools/) run inside a page: WCAG 2.x A/AA violations."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
# axe's WCAG 2.0 and 2.1 level A and AA rules; `region` (content outside landmarks) is a
# best-practice rule, enabled on top because a page of regions is what a screen reader navigates.
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
EXTRA_RULES = ("region",)

_RUN = """([context, tags, extra]) => {
  const rules = {};
  for (const id of extra) rules[id] = { enabled: true };
  return axe.run(context, { runOnly: { type: 'tag', values: tags }, rules, resultTypes: ['violations'] });
}"""


@dataclass(frozen=True)
class Violation:
    """One rule broken on one element."""

    rule: str
    impact: str
    help: str
    target: str
    html: str
    summary: str

    def __str__(self) -> str:
        return (
            f"{self.rule} ({self.impact}) at {self.target}: {self.help}\n    {self.html}\n    {self.summary}"
        )


def _violations(result: dict[str, Any]) -> list[Violation]:
    out = []
    for v in result["violations"]:
        for node in v["nodes"]:
            out.append(
                Violation(
                    rule=v["id"],
                    impact=str(v.get("impact")),
                    help=v["help"],
                    target=" ".join(str(t) for t in node["target"]),
                    html=node["html"][:200],
                    summary=" ".join(str(node.get("failureSummary", "")).split()),
                )
            )
    return out


def audit(page: Page, include: str | None = None) -> list[Violation]:
    """Run axe over the page (or only the elements matching ``include``) and return its violations."""
    if not page.evaluate("typeof window.axe === 'object'"):
        if not AXE_JS.exists():
            pytest.fail(f"{AXE_JS} is missing: run scripts/setup --test")
        page.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))
    context: Any = {"include": [include]} if include else "html"
    result = page.evaluate(_RUN, [context, list(WCAG_TAGS), list(EXTRA_RULES)])
    return _violations(result)


def assert_clean(page: Page, where: str, include: str | None = None) -> None:
    """Fail naming every rule and element axe finds broken."""
    found = audit(page, include)
    if found:
        listing = "\n".join(f"  {v}" for v in found)
        pytest.fail(f"{len(found)} axe violation(s) on {where}:\n{listing}", pytrace=False)


@contextmanager
def audit_page(browser: Browser, width: int = 1280, height: int = 800) -> Iterator[Page]:
    """Open a page whose CSP lets the axe script in (Playwright's bypass_csp, for the audit only)."""
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(60_000)  # a ceiling for waits on a loaded machine, not a timed assertion
    try:
        yield page
        assert errors == [], errors
    finally:
        context.close()
