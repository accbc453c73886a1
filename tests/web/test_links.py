"""Links to a game's page in the messages, and the web section of the settings.

With ``base_url`` set, the start message and every report carry the game's
page on a line of its own (by mail within 78 columns; on Discord after the
code blocks, where a link can be clicked); without it, none does.  The base
URL is checked at load (an http(s) URL short enough that the longest game
name fits a mailed line); the web reads no address (``web:x`` is refused and
bare addresses read as before); the section is off by default; ``referee
doctor`` checks it.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from bot.channels import registry as channels
from bot.core.messaging.outbox import OutboxDrain
from bot.core.messaging.rendering import render_message
from bot.core.model.config import ServiceConfig
from bot.discord.render import discord_messages, render_outcome
from bot.host.wiring import service_config
from bot.settings.loader import Settings, SettingsError
from bot.web import doctor
from bot.web.channel import CHANNEL as WEB
from bot.web.channel import WebSettings
from tests.support.addresses import described
from tests.web.world import GM, club

BASE = "https://games.club.example"
SLUG = "a" * 40
RUNNERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


def messages_to_gm(tmp_path: Path, base_url: str) -> dict[str, dict[str, object]]:
    """The start message and the first report a game master was sent (their data)."""
    with club(tmp_path, ServiceConfig(web_base_url=base_url)) as made:
        made.create(SLUG, "golden-strider", RUNNERS)
        made.start(SLUG)
        made.play(SLUG, 1)
        rows = OutboxDrain(made.sessions).due("email", made.clock.now())
    return {row.template: row.data for row in rows if row.recipient == GM and row.template in ("started", "report")}


def test_the_start_and_the_report_link_to_the_page_within_78_columns(tmp_path: Path) -> None:
    sent = messages_to_gm(tmp_path, BASE)
    link = f"{BASE}/games/{SLUG}"
    assert set(sent) == {"started", "report"}
    for template, data in sent.items():
        body = render_message("email", template, {**data, "context": {}}).body
        assert link in body.splitlines(), template
        assert max(len(line) for line in body.splitlines()) <= 78, template
        on_discord = discord_messages(render_outcome(template, data))
        assert f"Game page: <{link}>" in on_discord[-1], template
        assert not any(f"Game page: <{link}>" in block.partition("```")[2] for block in on_discord[:-1])


def test_no_link_without_a_base_url(tmp_path: Path) -> None:
    for template, data in messages_to_gm(tmp_path, "").items():
        assert data["page"] is None
        body = render_message("email", template, {**data, "context": {}}).body
        assert "/games/" not in body and "page" not in body.lower(), template
        assert "Game page" not in "".join(discord_messages(render_outcome(template, data)))


def test_a_stored_message_without_a_page_still_renders(tmp_path: Path) -> None:
    """Outbox rows written before this change carry no ``page``: they render as before."""
    for template, data in messages_to_gm(tmp_path, BASE).items():
        old = {k: v for k, v in data.items() if k != "page"}
        assert "/games/" not in render_message("email", template, {**old, "context": {}}).body


@pytest.mark.parametrize(
    "url",
    ["ftp://club.example", "club.example", "https://", "https://club.example/?q=1", "https://club.example/#x",
     "https://user:pw@club.example", "https://club.example/ x", "https://" + "c" * 30 + ".example",
     "javascript:alert(1)", "https://club.example:99999"],
)  # fmt: skip
def test_a_malformed_base_url_is_refused_at_load(url: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.load(None, {"REFEREE_WEB_BASE_URL": url})
    assert "web_base_url" in str(refused.value) and "at most 31 characters" in str(refused.value)


def test_the_web_section_is_off_by_default_and_its_base_url_reaches_the_core() -> None:
    assert Settings.load(None, {}).of(WEB) == WebSettings()
    assert WebSettings().port == 0 and WEB.workers(WebSettings(), None) == []  # type: ignore[arg-type]
    settings = Settings.load(None, {"REFEREE_WEB_BASE_URL": BASE + "/", "REFEREE_WEB_PORT": "8080"})
    assert settings.of(WEB).base_url == BASE
    assert service_config(settings).web_base_url == BASE
    assert service_config(settings).page_of("cup") == f"{BASE}/games/cup"
    assert ServiceConfig().page_of("cup") is None


def test_the_web_reads_no_address_and_others_read_as_before() -> None:
    assert channels.parse_address("ann@club.org") == ("email", "ann@club.org")
    assert channels.parse_address("1234") == ("discord", "1234")
    assert channels.parse_address("discord:1234") == ("discord", "1234")
    with pytest.raises(ValueError, match="nobody is reached on Web"):
        channels.parse_address("web:ann@club.org")
    with pytest.raises(ValueError) as refused:
        channels.parse_address("not an address")
    assert str(refused.value) == "'not an address' is none of: " + ", ".join(described())


def test_the_doctor_checks_the_base_url_and_the_port() -> None:
    assert doctor.run(WebSettings()) == []
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = doctor.run(WebSettings(port=port, base_url=BASE))
        assert [c.ok for c in busy] == [True, False]
        assert "the port is in use" in busy[1].detail and busy[1].fix
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    fine = doctor.run(WebSettings(port=port))
    assert [(c.ok, c.warning) for c in fine] == [(True, True), (True, False)]
    assert "messages carry no link" in fine[0].detail
    assert not doctor.run(WebSettings(port=port, host="no-such-host.invalid"))[1].ok
