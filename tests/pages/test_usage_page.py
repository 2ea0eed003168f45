"""The usage dashboard page: accessible group colours, its data packed and safe, one hashed script."""

from __future__ import annotations

import itertools
import math
import re

from sessiontree.archive.usage import Usage, UsageRecord
from sessiontree.exporter.csp import csp_hash
from sessiontree.exporter.templating import read_asset
from sessiontree.pages.usage_data import ROW_WIDTH
from sessiontree.pages.usage_page import PALETTE_SIZE, UsagePageOptions, render_usage_page
from tests.pages.usage_records import data_totals, many_models, page_data, start_of

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


def test_the_page_carries_its_data_packed_and_one_hashed_script() -> None:
    records = many_models(12, start_of(2026, 3, 1), 30, no_cost=3)
    options = UsagePageOptions(link_for=lambda p: "s/" + p.rsplit("/", 1)[-1], home="/")
    html = render_usage_page(records, options)
    data = page_data(html)
    assert len(data["rows"]) == ROW_WIDTH * len(records)
    assert len(data["models"]) == 12 and data["groups"] == [[0, 0]] and data["agents"] == ["pi"]
    assert data_totals(data)["messages"] == sum(r.usage.messages for r in records)
    listed = data["tops"][""]
    assert listed["count"] == 12 and len(listed["top"]) == 12
    # Model 0 costs most (0.01 * 12 a message): its session is first, linked.
    assert listed["top"][0][3] == "s/" + records[0].path.rsplit("/", 1)[-1]
    models = [f"model={m}" for m in sorted(data["models"])]
    assert list(data["tops"]) == ["", "project=/work", "agent=pi", *models]
    assert data["tops"]["model=" + records[5].usage.model]["count"] == 1
    costs = data["rows"][8::ROW_WIDTH]
    assert costs.count(None) == 10  # model 3 recorded no cost on any of its ten days
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert len(scripts) == 1 and f"'{csp_hash(scripts[0])}'" in html
    assert '<a href="/" id="st-home">' in html


def test_session_text_in_the_data_cannot_end_its_script() -> None:
    hostile = "</script><script>alert(1)</script><!--"
    usage = Usage(hostile, 1, 10, 10, 0, 0, 0.5)
    html = render_usage_page([UsageRecord(usage, "/s/x.jsonl", hostile, hostile, "pi")])
    assert hostile not in html and html.count("</script>") == 2
    data = page_data(html)
    assert data["models"] == [hostile] and data["tops"][""]["top"][0][0] == hostile


def test_models_recorded_at_zero_for_tokens_are_named() -> None:
    free = Usage("zai/glm", 1, 1_000_000, 10, 0, 0, 0.0)
    priced = Usage("a/m", 1, 10, 10, 0, 0, 0.5)
    empty = Usage("b/idle", 1, 0, 0, 0, 0, 0.0)
    records = [UsageRecord(u, f"/s/{i}.jsonl", "t", "/w") for i, u in enumerate((free, priced, empty))]
    data = page_data(render_usage_page(records))
    assert [data["models"][m] for m in data["zeroModels"]] == ["zai/glm"]


def _sessions(count: int) -> list[UsageRecord]:
    """``count`` one-message sessions over the same 3 projects, 2 agents, 2 models and 10 days."""
    records = []
    for n in range(count):
        ts = int(start_of(2026, 3, 1 + n % 10).timestamp() * 1000)
        usage = Usage(f"p/m{n % 2}", ts, 100 + n, 10, 0, 0, 0.001 * (n + 1))
        agent = ("pi", "claude")[n % 2]
        records.append(UsageRecord(usage, f"/s/{n:05}.jsonl", f"session {n}", f"/w/p{n % 3}", agent))
    return records


def test_a_built_page_does_not_grow_with_the_sessions() -> None:
    """Ten times the sessions over the same days, projects, agents and models: the same rows and the
    same number of listed sessions per filter (a built site's usage.html)."""
    few, many = (render_usage_page(_sessions(n)).encode() for n in (300, 3000))
    assert len(many) < 1.2 * len(few), (len(few), len(many))
    data = page_data(many.decode())
    assert len(data["rows"]) == ROW_WIDTH * 30  # (day, model, project) repeat every 30 sessions
    assert data["tops"][""]["count"] == 3000 and len(data["tops"][""]["top"]) == 20
    assert data["tops"]["project=/w/p1"]["count"] == 1000
    # The most costly session first: the last one made (its cost the highest).
    assert data["tops"][""]["top"][0][1] == "/s/02999.jsonl"
