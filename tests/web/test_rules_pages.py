"""``/rules/<kind>``: each game's rules as this referee applies them, on the web, from the page the mail
and Discord send (``docs/rules/<kind>.md``), served by the real server on loopback.

The Markdown is rendered by markdown-it-py (:mod:`bot.web.markdown_html`) into the site's layout:
every heading with the anchor the page's own links use, every example order, no inline style or
script the site's Content Security Policy would refuse.  The index links each kind's page and a
game's page its kind's; a kind with no page, or anything that is not a kind's name, is the site's
404.  Raw HTML in the Markdown is text (the attack: a page with a script, an ``onerror`` and a
``javascript:`` link).  A rules page is built once for the life of the process.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import urljoin

import markupsafe
import pytest

from adjudicator import registry
from bot import resources
from bot.web.markdown_html import heading_id, markdown_html
from tests.adjudicator.test_rules_docs import examples
from tests.web.test_pages import RUNNERS, text_of
from tests.web.world import club, served

_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
_HREF = re.compile(r'href="([^"]*)"')
_ID = re.compile(r'\sid="([^"]*)"')

HOSTILE = """# Golden Strider

<script>alert(1)</script>

Some text <img src=x onerror=alert(2)> and [a link](javascript:alert(3)) and
[another](JAVASCRIPT:alert(4)).

<div style="color:red">raw block</div>

| Left | Middle | Right |
|:-----|:------:|------:|
| a    | b      | c     |

## Rulings

## Rulings
"""


async def test_each_kinds_rules_page_has_its_headings_examples_and_anchors(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        async with served(made) as reader:
            answers = {kind: await reader.response("GET", f"/rules/{kind}") for kind in registry.kinds()}
    linked: set[str] = set()
    for kind, (status, headers, page) in answers.items():
        assert status == 200 and headers["Content-Type"].startswith("text/html"), kind
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert f"<title>The rules of {markupsafe.escape(registry.get_rules(kind).title)}</title>" in page
        assert '<link rel="stylesheet" href="../static/site.css">' in page, "the site's layout"
        shown = " ".join(text_of(page).split())
        source = (resources.RULES_DIR / f"{kind}.md").read_text(encoding="utf-8")
        for heading in _HEADING.findall(source):
            assert " ".join(heading.replace("`", "").replace("*", "").split()) in shown, f"{kind}: {heading!r}"
        for example in examples(kind):
            for line in example.text.splitlines():
                assert " ".join(line.split()) in shown, f"{kind}: example {line!r} is missing"
        ids = set(_ID.findall(page))
        anchors = [href[1:] for href in _HREF.findall(page) if href.startswith("#")]
        assert bool(anchors) == ("](#" in source), f"{kind}: the page's links to its own sections"
        linked |= {kind} if anchors else set()
        assert [a for a in anchors if a not in ids] == [], f"{kind}: links to sections that have no anchor"
        assert " style=" not in page and page.count("<script") == 1, "only the site's own script file"
    assert {"golden-strider", "dragon-stripes"} <= linked, "the referee's long pages link to their sections"


async def test_the_index_links_every_kind_and_a_game_page_its_kinds_rules(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.create("dragons", "dragon-stripes", ["Wil", "Xan", "Yul"])
        async with served(made) as reader:
            index = await reader.get("/")
            linked = [href for href in _HREF.findall(index) if href.startswith("rules/")]
            assert linked == [f"rules/{kind}" for kind in registry.kinds()], "one link per kind, in order"
            for href in linked:
                await reader.get(urljoin("/", href))
            for slug, kind in (("race", "golden-strider"), ("dragons", "dragon-stripes")):
                page = await reader.get(f"/games/{slug}")
                [href] = [h for h in _HREF.findall(page) if "rules/" in h]
                assert urljoin(f"/games/{slug}", href) == f"/rules/{kind}"
                assert f"The rules of {registry.get_rules(kind).title}" in text_of(page)
            rules = await reader.get("/rules/golden-strider")
            [back] = [h for h in _HREF.findall(rules) if h.endswith("#h-rules")]
            assert urljoin("/rules/golden-strider", back) == "/#h-rules" and 'id="h-rules"' in index


async def test_no_such_kind_is_the_sites_404(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        async with served(made) as reader:
            for path in ("/rules/chess", "/rules/GOLDEN-STRIDER", "/rules/golden-strider.md", "/rules/",
                         "/rules/..%2f..%2fREADME", "/rules/..%2fgolden-strider", "/rules/golden-strider/x",
                         "/rules/golden-strider%00", "/rules/golden-strider%20"):  # fmt: skip
                status, headers, body = await reader.response("GET", path)
                assert status == 404, (path, status)
                assert "Not found" in body and "default-src 'none'" in headers["Content-Security-Policy"]


def test_raw_html_is_text_and_alignment_is_a_class() -> None:
    shown = markdown_html(HOSTILE)
    assert "<script" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert "<img" not in shown and "&lt;img src=x onerror=alert(2)&gt;" in shown
    assert "<div" not in shown and "<a" not in shown, "a script's address is no link"
    assert "style=" not in shown.replace("&lt;div style=", "")
    assert '<th class="align-left" scope="col">' in shown and '<td class="align-center">' in shown
    assert '<th class="align-right" scope="col">' in shown
    assert '<h2 id="rulings">' in shown and '<h2 id="rulings-1">' in shown
    assert heading_id("1.2 Rulings") == "12-rulings" and heading_id('S3b "Out player scores 0"') == (
        "s3b-out-player-scores-0"
    )


async def test_a_hostile_page_is_served_as_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack: a rules page carrying a script, an onerror and a javascript: link, served whole."""
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "golden-strider.md").write_text(HOSTILE, encoding="utf-8")
    monkeypatch.setattr(resources, "RULES_DIR", tmp_path / "pages")
    with club(tmp_path) as made:
        async with served(made) as reader:
            page = await reader.get("/rules/golden-strider")
            await reader.get("/rules/dragon-stripes", expect=404)  # no page of its own here
            index = await reader.get("/")
    assert page.count("<script") == 1 and "<img" not in page and 'href="javascript' not in page.lower()
    assert "<script>alert(1)</script>" in text_of(page), "shown as text"
    assert [h for h in _HREF.findall(index) if h.startswith("rules/")] == ["rules/golden-strider"]


async def test_a_rules_page_is_built_once_and_an_etag_gets_304(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        async with served(made) as reader:
            answers = await asyncio.gather(*(reader.response("GET", "/rules/lautobus") for _ in range(30)))
            assert {status for status, _, _ in answers} == {200} and len({body for *_, body in answers}) == 1
            assert reader.builds == 1, "one build for 30 readers"
            made.start("race")  # the club changes: the rules page does not
            etag = answers[0][1]["ETag"]
            status, headers, body = await reader.response("GET", "/rules/lautobus", {"If-None-Match": etag})
            assert (status, body, headers["ETag"]) == (304, "", etag)
            assert reader.builds == 1


def test_a_table_is_captioned_by_its_section_and_a_wide_box_takes_the_keyboard() -> None:
    shown = markdown_html(
        "## Scores <b>now</b>\n\n| Seat | Points |\n|--|--|\n| a | 1 |\n\n| Seat | Laps |\n|--|--|\n| a | 2 |\n\n"
        "## `race_length`\n\n| Value | Meaning |\n|--|--|\n| 12 | short |\n\n```\nPLAY 10/0\n```\n"
    )
    captions = re.findall(r'<table tabindex="0">\n<caption class="visually-hidden">(.*?)</caption>', shown)
    assert captions == ["Scores &lt;b&gt;now&lt;/b&gt; (table 1 of 2)", "Scores &lt;b&gt;now&lt;/b&gt; (table 2 of 2)",
                        "race_length"]  # fmt: skip
    assert shown.count('<th scope="col">') == 6 and "<th>" not in shown
    assert '<pre tabindex="0"><code>PLAY 10/0' in shown
