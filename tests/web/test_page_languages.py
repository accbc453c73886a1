"""The pages' language, chosen per request (:mod:`bot.web.languages`), served by the real server on loopback.

``?lang=de`` gives German and a cookie that keeps it; else the cookie; else ``Accept-Language``
negotiated with Babel (``fr-CH`` finds French); else English.  ``<html lang>`` says which, every
marked word of the page is in it (the weekday of a moment too), a rules page is its translation, and
the site's 404 is in it.  Each language is a page of its own in the server's cache and has its own
``ETag``, and every page says ``Vary: Accept-Language, Cookie``, so no cache hands one reader's
language to another.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.web.languages import choose, negotiated, preferred
from tests.web.test_pages import RUNNERS, text_of
from tests.web.world import Reader, club, served

_LANG = re.compile(r'<html lang="([a-z]+)">')


def test_accept_language_is_read_in_order_of_preference() -> None:
    assert preferred("de;q=0.5, fr-CH, en;q=0.8, *;q=0.1, ja;q=0") == ["fr-CH", "en", "de"]
    assert preferred("fr;q=nonsense, de") == ["de"]
    assert negotiated("fr-CH, fr;q=0.9, en;q=0.8") == "fr"
    assert negotiated("ja, de-AT;q=0.7, fr;q=0.5") == "de"
    assert negotiated("en-GB, de;q=0.9") == "en"
    for unknown in (None, "", "ja, zh-CN", "*", "fr;q=0", ";;,,", "x" * 10_000):
        assert negotiated(unknown) == "en", unknown


def test_a_choice_beats_the_cookie_which_beats_the_header() -> None:
    assert choose({"lang": "de"}, {"lang": "fr"}, "fr").language == "de"
    assert choose({"lang": "de"}, {}, None).remember == "de"
    assert choose({"lang": "xx"}, {"lang": "fr"}, "de") == choose({}, {"lang": "fr"}, "de")
    assert choose({}, {"lang": "FR"}, "de").language == "fr"
    assert choose({}, {"lang": "../x"}, "de-DE").language == "de"
    assert choose({}, {}, None).language == "en" and choose({}, {}, None).remember is None


async def page(reader: Reader, path: str, **headers: str) -> tuple[int, dict[str, str], str, str]:
    """Status, headers, the ``<html lang>`` and the text of ``path`` asked with ``headers``."""
    status, got, body = await reader.response("GET", path, {k.replace("_", "-"): v for k, v in headers.items()})
    found = _LANG.search(body)
    return status, dict(got), found.group(1) if found else "", " ".join(text_of(body).split())


async def test_each_page_speaks_the_readers_language(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 1)
        async with served(made) as reader:
            status, headers, lang, text = await page(reader, "/", Accept_Language="fr-CH, en;q=0.5")
            assert (status, lang) == (200, "fr") and "Les parties du club" in text and "En cours" in text
            assert "The club's games" not in text and "Set-Cookie" not in headers
            assert headers["Vary"] == "Accept-Language, Cookie"

            status, headers, lang, text = await page(reader, "/?lang=de", Accept_Language="fr")
            assert (status, lang) == (200, "de") and "Die Partien des Clubs" in text
            assert headers["Set-Cookie"].startswith("lang=de;") and "Path=/" in headers["Set-Cookie"]
            _, _, lang, text = await page(reader, "/games/race", Accept_Language="fr", Cookie="lang=de")
            assert lang == "de" and "Berichte" in text and "laufend" in text, "the cookie keeps the choice"

            _, _, lang, text = await page(reader, "/games/race", Accept_Language="fr")
            assert lang == "fr" and "Comptes rendus" in text and "Échéance" in text and "en cours" in text
            assert re.search(r"\((lun|mar|mer|jeu|ven|sam|dim)\.? ", text), "the deadline's weekday in French"

            for unknown in ({"Accept_Language": "ja, zh;q=0.9"}, {}, {"Cookie": "lang=xx"}):
                _, headers, lang, text = await page(reader, "/games/race?lang=klingon", **unknown)
                assert lang == "en" and "Reports" in text and "Set-Cookie" not in headers, unknown

            _, _, lang, text = await page(reader, "/rules/lautobus", Accept_Language="fr")
            assert lang == "fr" and "Les règles de L'autobus" in text and "5.2 Décisions" in text
            _, _, lang, text = await page(reader, "/rules/lautobus?lang=de")
            assert lang == "de" and "Die Regeln von L'autobus" in text and "5.2 Entscheidungen" in text
            _, _, lang, text = await page(reader, "/rules/lautobus")
            assert lang == "en" and "5.2 Rulings" in text

            status, headers, lang, text = await page(reader, "/games/no-such-game", Accept_Language="de")
            assert (status, lang) == (404, "de") and "Nicht gefunden" in text
            assert headers["Vary"] == "Accept-Language, Cookie"


@pytest.mark.parametrize("path", ["/", "/games/race", "/rules/golden-strider"])
async def test_each_language_is_built_once_with_its_own_etag(tmp_path: Path, path: str) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        async with served(made) as reader:
            french = [await reader.response("GET", path, {"Accept-Language": "fr"}) for _ in range(3)]
            builds = reader.builds
            english = await reader.response("GET", path, {"Accept-Language": "en"})
            assert reader.builds == builds + 1, "English is a page of its own"
            again = await reader.response("GET", path, {"Accept-Language": "fr"})
            assert reader.builds == builds + 1, "French is kept"
            tag = french[0][1]["ETag"]
            assert {answer[1]["ETag"] for answer in [*french, again]} == {tag} != {english[1]["ETag"]}
            held = {"If-None-Match": tag}
            assert (await reader.response("GET", path, {**held, "Accept-Language": "fr"}))[0] == 304
            assert (await reader.response("GET", path, {**held, "Accept-Language": "en"}))[0] == 200
