"""The usage page's looks: a colour per top model then "other", years on long spans, costs shown cleanly."""

from __future__ import annotations

import itertools
import math
import re

from sessiontree.exporter.templating import read_asset
from sessiontree.pages.usage_page import PALETTE_SIZE, render_usage_page
from tests.pages.usage_records import many_models, start_of

MIN_CONTRAST = 3.0
"""WCAG 1.4.11: graphical objects 3:1 against what is next to them (here the page)."""
MIN_DISTANCE = 20.0
"""CIE76 distance in Lab between any two model colours of a scheme (about 2.3 is just noticeable)."""


def _pairs(css: str, name: str) -> tuple[str, str]:
    found = re.search(rf"--{name}: light-dark\((#[0-9a-f]{{6}}), (#[0-9a-f]{{6}})\)", css)
    assert found is not None, name
    return found.group(1), found.group(2)


def _linear(hex_colour: str) -> list[float]:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]


def _luminance(hex_colour: str) -> float:
    r, g, b = _linear(hex_colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def lab(hex_colour: str) -> tuple[float, float, float]:
    r, g, b = _linear(hex_colour)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_model_colours_are_accessible_and_apart_in_both_schemes() -> None:
    css = read_asset("usage.css")
    backgrounds = _pairs(read_asset("palette.css"), "bg")
    names = [f"m{i}" for i in range(PALETTE_SIZE)] + ["m-other"]
    for scheme in (0, 1):
        colours = [_pairs(css, name)[scheme] for name in names]
        for name, colour in zip(names, colours, strict=True):
            assert contrast(colour, backgrounds[scheme]) >= MIN_CONTRAST, (scheme, name)
        for a, b in itertools.combinations(colours, 2):
            assert math.dist(lab(a), lab(b)) >= MIN_DISTANCE, (scheme, a, b)


def test_past_the_palette_models_are_one_other_group() -> None:
    html = render_usage_page(many_models(12, start_of(2026, 3, 1), 30))
    legend = re.search(r'<ul class="st-legend".*?</ul>', html, re.S)
    assert legend is not None
    classes = re.findall(r'class="st-swatch (st-[a-z0-9-]+)"', legend.group(0))
    assert classes == [f"st-m{i}" for i in range(PALETTE_SIZE)] + ["st-other"]
    assert "other (4 models)" in legend.group(0)
    drawn = set(re.findall(r'<rect class="st-bar (st-[a-z0-9-]+)"', html))
    assert drawn == set(classes)
    assert "other (4 models): " in html  # the bar's tip names the group


def test_one_model_past_the_palette_keeps_its_name() -> None:
    html = render_usage_page(many_models(PALETTE_SIZE + 1, start_of(2026, 3, 1), 9))
    assert "other (" not in html and f"provider/model_{PALETTE_SIZE}_" in html
    assert 'class="st-swatch st-other"' in html


def _day_labels(html: str) -> list[str]:
    return re.findall(r'<text class="st-day"[^>]*>([^<]+)</text>', html)


def test_day_labels_carry_the_year_over_a_long_or_year_crossing_span() -> None:
    within = _day_labels(render_usage_page(many_models(2, start_of(2026, 3, 1), 60)))
    assert within and all(re.fullmatch(r"\d\d-\d\d", d) for d in within)
    crossing = _day_labels(render_usage_page(many_models(2, start_of(2025, 12, 10), 40)))
    assert crossing and all(re.fullmatch(r"\d{4}-\d\d-\d\d", d) for d in crossing)
    assert {d[:4] for d in crossing} == {"2025", "2026"}
    year = _day_labels(render_usage_page(many_models(2, start_of(2025, 1, 2), 363)))
    assert year and all(re.fullmatch(r"2025-\d\d-\d\d", d) for d in year)


def test_a_model_without_cost_shows_no_dangling_separator() -> None:
    html = render_usage_page(many_models(3, start_of(2026, 3, 1), 9, no_cost=1))
    item = re.search(r"provider/model_1_x+ <span class=\"st-muted\">([^<]*)</span>", html)
    assert item is not None
    assert item.group(1).endswith(" tokens") and "·" not in item.group(1) and "-" not in item.group(1)
    others = re.findall(r"provider/model_[02]_x+ <span class=\"st-muted\">([^<]*)</span>", html)
    assert len(others) == 2 and all(re.fullmatch(r"\$[0-9.,]+ · [0-9.]+k tokens", o) for o in others)
