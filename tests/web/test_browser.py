"""The pages in a real browser: Debian's headless Chromium, driven by Selenium.

The index, a game's page (a running Golden Strider race with a board
picture and a seat up for a substitute, and a finished Strike Gold game) and each kind's rules page
(``/rules/<kind>``: long tables and examples) are loaded at desktop width (1280)
and phone width (390x844), and screenshots written under
``test-artifacts/screenshots/`` (git-ignored; the paths are printed, so CI's
log shows them).  In each: no console error (a script or a style refused by
the Content Security Policy would be one), every ``<img>`` and ``<svg
role=img>`` has alt text, the optional script did rewrite the times to the
reader's zone, nothing is wider than the screen (a phone scrolls down,
never across, except inside a report's own box), ``<html lang>`` names the page's language (a page
asked for with ``?lang=fr`` is French: the index, a game, a rules page and the 404 in French or
German, loaded after the English ones, since the choice is kept in a cookie), and axe-core (vendored in
``tests/web/axe/``) finds no serious or critical accessibility violation, in
the light colour scheme and (at desktop width) the dark one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from adjudicator import registry
from bot.core.model import commands as c
from bot.pictures import registry as pictures
from bot.web.server import site_for
from tests.web.test_pages import HINTS
from tests.web.world import GM, club, served

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
AXE = Path(__file__).resolve().parent / "axe" / "axe.min.js"
DARK = {"name": "prefers-color-scheme", "value": "dark"}
BLOCKING = ("serious", "critical")
"""The impacts of an axe violation that fail the test (axe's others: minor, moderate)."""


def accessibility(driver: Any) -> list[str]:
    """axe-core's serious and critical violations on the page ``driver`` shows, one line each (rule, impact,
    where); axe runs in the page, injected by the driver (not a page script: the Content Security Policy
    stays as it is)."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations), e => done(String(e)));"
    )
    if isinstance(result, str):
        return [f"axe did not run: {result}"]
    return [
        f"axe {v['id']} ({v['impact']}): {v['help']} at {', '.join(str(n['target']) for n in v['nodes'][:3])}"
        for v in result
        if v.get("impact") in BLOCKING
    ]


def browser(width: int, height: int) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={max(width, 500)},{height}"):
        options.add_argument(flag)
    if width < 500:  # a window is at least 500 wide: a phone is emulated (its width, touch, a mobile agent)
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height,
                                                                              "pixelRatio": 1, "touch": True}})  # fmt: skip
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def whole_page(driver: Any, width: int) -> bytes:
    """The whole page as PNG (at most 8000 pixels tall), by Chrome's own capture."""
    import base64

    height = min(int(driver.execute_script("return document.documentElement.scrollHeight")), 8000)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
    })  # fmt: skip
    return base64.b64decode(shot["data"])


def look(base: str, pages: dict[str, str]) -> list[str]:
    """Load each page at each size; screenshots, and every problem found, as lines."""
    from selenium.webdriver.common.by import By

    problems: list[str] = []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        driver = browser(width, height)
        try:
            for name, path in pages.items():
                driver.get(base + path)
                shot = SCREENSHOTS / f"{name}-{size}.png"
                driver.save_screenshot(str(shot))
                print(f"screenshot: {shot}")
                full = SCREENSHOTS / f"{name}-{size}-full.png"
                full.write_bytes(whole_page(driver, width))
                print(f"screenshot: {full}")
                for entry in driver.get_log("browser"):
                    if entry["level"] in ("SEVERE", "WARNING"):
                        problems.append(f"{name} {size}: console: {entry['message']}")
                for image in driver.find_elements(By.CSS_SELECTOR, "img, svg[role=img]"):
                    alt = image.get_attribute("alt") or image.get_attribute("aria-label") or ""
                    if not alt.strip():
                        problems.append(f"{name} {size}: a picture without alt text")
                times = driver.find_elements(By.CSS_SELECTOR, "time[datetime]")
                if times and not driver.find_elements(By.CSS_SELECTOR, ".local-time"):
                    problems.append(f"{name} {size}: the times were not shown in the reader's zone")
                expected = path.partition("?lang=")[2] or "en"
                shown = driver.execute_script("return document.documentElement.lang")
                if shown != expected:
                    problems.append(f"{name} {size}: <html lang={shown!r}>, not {expected!r}")
                wide = driver.execute_script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                if wide > 0:
                    problems.append(f"{name} {size}: the page is {wide}px wider than the screen")
                problems += [f"{name} {size}: {line}" for line in accessibility(driver)]
                if size == "desktop":  # the dark scheme's colours too (site.css has both)
                    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [DARK]})
                    problems += [f"{name} {size} dark: {line}" for line in accessibility(driver)]
                    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        finally:
            driver.quit()
    return problems


async def test_the_pages_in_a_headless_chromium(tmp_path: Path) -> None:
    assert "golden-strider" in pictures.DRAWINGS  # the pages show the game's own picture
    with club(tmp_path) as made:
        made.create("spring-cup", "golden-strider", ["Steve Ovett", "Sebastian Coe", "Steve Cram", "Said Aouita",
                                                     "Peter Elliott", "張偉 李娜"])  # fmt: skip
        made.start("spring-cup")
        made.play("spring-cup", 2)
        made.create("autumn-gold", "strike-gold", ["Zoe", "Yan"])
        made.start("autumn-gold")
        made.play("autumn-gold", 10_000)
        made.create("newcomers", "dragon-stripes", ["Wil"])
        offered = made.apply(GM, "Game Master", c.OfferSeat("spring-cup", "Peter Elliott", reason="moved away"))
        assert "seat_put_up" in offered.results, offered.problems
        pages = {"index": "/", "running-game": "/games/spring-cup", "finished-game": "/games/autumn-gold",
                 "open-game": "/games/newcomers", "missing": "/games/none", **{f"rules-{kind}": f"/rules/{kind}" for kind in registry.kinds()},
                 "index-fr": "/?lang=fr", "running-game-fr": "/games/spring-cup?lang=fr",
                 "rules-golden-strider-fr": "/rules/golden-strider?lang=fr", "finished-game-de": "/games/autumn-gold?lang=de",
                 "rules-strike-gold-de": "/rules/strike-gold?lang=de", "missing-de": "/games/none?lang=de"}  # fmt: skip
        async with served(site_for(made.sessions, made.service.config, HINTS)) as reader:
            for path in ("/", "/games/spring-cup"):
                assert "send STAND IN spring-cup Peter Elliott to" in await reader.get(path), path
            problems = await asyncio.to_thread(look, reader.base, pages)
    console = [p for p in problems if "missing" in p and "404" in p]
    found = [p for p in problems if p not in console]
    assert found == [], "\n".join(found)
    for name in pages:
        for size in SIZES:
            assert (SCREENSHOTS / f"{name}-{size}.png").stat().st_size > 1000
