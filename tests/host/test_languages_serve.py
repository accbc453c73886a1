"""A French and a German player through a whole game of each kind, by ``referee serve`` on the real servers.

One ``referee serve`` subprocess (tests/host/test_full_serve.py's settings and
process) reads mail from a real Dovecot, sends through a real aiosmtpd, speaks
to the fake Discord and serves the web pages.  An English game master creates
one game of each of the five kinds by mail, each with the options that make it
shortest; in each, Fleur plays by mail after ``LANGUAGE fr``, Gerd on Discord
after ``/language de`` (and Grete, whose Discord is German, is answered in German
without choosing), and the seats a game needs beyond them are taken by
English members on Discord.  Every seat orders what the game's own example
player would (tests/support/stored.py), the five games at once, until each ends.

Then, from what the servers received: every mail to Fleur is French (no English
heading of a reply, a notice or a report's frame or game part, and French ones
present), every DM to Gerd is German likewise, the game master's mail and the
English members' DMs are English (and show every English heading looked for,
so the checks can fail), every line mailed to anyone fits 78 columns, and each
game's page asked for with ``Accept-Language: fr`` is French (by an HTTP fetch;
one of them also in headless Chromium, its screenshot under
test-artifacts/screenshots/).  What the engines said (event lines, phase and game
titles, notes and refusals of orders, HELP: ``say()``, adjudicator/words.py) is
said in the reader's language too: no sentence an engine said in a copy's data
(the outbox keeps it) reaches Fleur or Gerd in English, and the English members
read those sentences in English (so the check can fail).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import wcwidth
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.views import GameViews
from bot.discord.transport import nonce_for
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, OutboxMessage, TurnRecord
from tests.core.test_languages import ENGLISH, SAID
from tests.discord.test_serve import command
from tests.email.test_gm_by_mail import Mail
from tests.host.test_full_serve import GM, Referee, write_config
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.engine_words import flat, sentences
from tests.support.fake_discord import FakeDiscord
from tests.support.net import free_port
from tests.support.smtp_sink import SmtpSink
from tests.support.stored import example_orders
from tests.web.test_browser import SCREENSHOTS, SIZES, browser, whole_page

pytestmark = pytest.mark.integration

FRENCH, GERMAN = "Fleur", "Gerd"
GERMAN_DISCORD = "Grete"
"""A member whose Discord's locale is ``de``, who never chooses a language."""
FLEUR = "fleur@example.org"
FILLERS = ("Hal", "Ivy", "Jon", "Kim")
"""English members on Discord who take the seats a game needs beyond Fleur and Gerd."""
GAMES = {
    "golden-strider": ("gs", 6, ("race_length=12", "max_rounds=1")),
    "three-races": ("tr", 4, ("max_moves=2",)),
    "strike-gold": ("sg", 2, ("game_to=50", "max_rounds=1")),
    "dragon-stripes": ("ds", 2, ("hoard_initial=10",)),
    "lautobus": ("la", 5, ()),
}
"""kind -> (game name, seats, the options that make it shortest)."""
ROUNDS = 400
WIDTH = 78
HEADINGS = (
    r"^\s*Receipt R[0-9A-F]+ --", r"^Quote receipt", r"Send HELP for the list", r"lists the commands",
    r"\bturn \d+ report\b", r"\bhas started\b", r"^Players:", r"^\s*First( phase)?:", r"^Options:$",
    r"^Orders: ", r"^The game's page", r"^Orders used \(commitments", r"^Game page:",
    r"^\s*Your seat (password|secret):", r"^\s*Keep it private", r"^\s*Your calendar of deadlines",
    *(pattern.replace("^", r"^\s*", 1) for pattern in ENGLISH["frame"]),
)  # fmt: skip
"""English headings of replies, notices and reports' frames (on either channel) that a French or German
reader must not see; each is seen in an English copy."""
SAYS = {
    "fr": ("Reçu R", "Copie pour Fleur", "a commencé", "Échéance", "compte rendu"),
    "de": ("Beleg R", "Kopie für Gerd", "hat begonnen", "Frist", "Bericht zu Zug"),
}
"""Words of which every French (German) copy says at least one: the receipt of a reply, a report's
"copy for", a notice's heading."""
COPY_FOR = {"fr": f"Copie pour {FRENCH}", "de": f"Kopie für {GERMAN}"}
"""What says that a copy is a turn report (its "Copy for <seat>" line)."""


@dataclass
class Table:
    """The games, their seats' secrets, who is who on which channel, and the referee."""

    fake: FakeDiscord
    mail: Mail
    sessions: sessionmaker[Session]
    referee: Referee
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    fleur_secrets: dict[str, str] = field(default_factory=dict)
    gm_secrets: dict[str, str] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(11))

    def seats(self, kind: str) -> tuple[str, ...]:
        return (FRENCH, GERMAN, *FILLERS)[: GAMES[kind][1]]

    def resolved(self, slug: str) -> int:
        with unit_of_work(self.sessions) as session:
            game_id = session.scalars(select(Game.id).where(Game.slug == slug)).one()
            return int(session.scalar(select(func.count()).where(TurnRecord.game_id == game_id)) or 0)

    def owing(self, slug: str) -> tuple[str, ...] | None:
        """The seats that owe orders in ``slug`` now; None once it is over."""
        view = GameViews(self.sessions).game(slug)
        assert view is not None, slug
        return None if view.phase is None else tuple(view.phase.owing)


async def discord(table: Table, who: str, name: str, options: dict[str, Any], expect: str) -> str:
    """``who``'s slash command; its reply, which must hold ``expect``."""
    reply = await command(table.fake, name, options, table.members[who])
    assert expect in reply["content"], reply["content"]
    return str(reply["content"])


async def create(table: Table) -> None:
    """The game master creates the five games by mail, each with its shortest options."""
    for kind, (slug, seats, options) in GAMES.items():
        body = f"SEATS {seats}\nSCHEDULE 2d\nEARLY 0\nREMINDERS none\n" + "".join(f"OPTION {o}\n" for o in options)
        made = await table.mail.send(body, subject=f"CREATE {slug} {kind}")
        assert f"CREATED {slug}" in made, made
        table.gm_secrets[slug] = made.split("Your game master password: ")[1].split()[0]


async def join_and_start(table: Table) -> None:
    """Fleur chooses French by mail, Gerd German on Discord; they and the English members join; the game
    master starts the games."""
    said = await table.mail.send("LANGUAGE fr\n", sender=FLEUR)
    assert "On vous parle désormais en français." in " ".join(said.split()), said
    for name in (GERMAN, *FILLERS):
        table.members[name] = table.fake.add_member(name)
    await discord(table, GERMAN, "language", {"language": "de"}, "Sie werden ab jetzt auf Deutsch angesprochen")
    # A member whose Discord is German is answered in German without ever sending /language.
    table.members[GERMAN_DISCORD] = table.fake.add_member(GERMAN_DISCORD, locale="de")
    await discord(table, GERMAN_DISCORD, "zone", {"zone": "Europe/Berlinn"}, "unbekannte Zeitzone 'Europe/Berlinn'")
    joined = await table.mail.send_all([(f"JOIN {slug} AS {FRENCH}\n", FLEUR) for slug, _s, _o in GAMES.values()])
    for (slug, _seats, _options), reply in zip(GAMES.values(), joined, strict=True):
        assert f"JOINED {slug}" in reply, reply
        table.fleur_secrets[slug] = reply.split("Votre mot de passe de siège : ")[1].split()[0]
    for kind, (slug, _seats, _options) in GAMES.items():
        for seat in table.seats(kind)[1:]:
            await discord(table, seat, "join", {"game": slug, "name": seat}, f"JOINED {slug}")
    started = await table.mail.send_all(
        [(f"START {slug}\nPASSWORD {table.gm_secrets[slug]}\n", GM) for slug, _s, _o in GAMES.values()]
    )
    for (slug, _s, _o), reply in zip(GAMES.values(), started, strict=True):
        assert f"STARTED {slug}" in reply, reply


async def play(table: Table) -> int:
    """Every owing seat orders (Fleur by mail, the rest on Discord), the five games at once, until every
    game is over; the rounds it took."""
    for rounds in range(ROUNDS):
        owing = {slug: table.owing(slug) for slug, _s, _o in GAMES.values()}
        running = {slug: seats for slug, seats in owing.items() if seats is not None}
        if not running:
            return rounds
        before = {slug: table.resolved(slug) for slug in running}
        mails = [
            (f"ORDERS {slug}\n{example_orders(table.sessions, slug, FRENCH, table.rng)}\n"
             f"PASSWORD {table.fleur_secrets[slug]}\n", FLEUR)
            for slug, seats in running.items() if FRENCH in seats
        ]  # fmt: skip
        for reply in await table.mail.send_all(mails) if mails else []:
            assert "ORDRES ACCEPTÉS pour" in reply, reply
        for slug, seats in running.items():
            for seat in seats:
                if seat != FRENCH:
                    text = example_orders(table.sessions, slug, seat, table.rng)
                    accepted = "BEFEHLE ANGENOMMEN für" if seat == GERMAN else "ORDERS ACCEPTED for"
                    await discord(table, seat, "orders", {"game": slug, "text": text}, accepted)

        await table.referee.until(lambda before=before: moved(table, before))
    raise AssertionError(f"the games did not end in {ROUNDS} rounds")


def moved(table: Table, before: dict[str, int]) -> bool:
    """Each game of ``before`` (game -> turns resolved) has resolved a turn more since, or is over."""
    return all(table.resolved(slug) > n or table.owing(slug) is None for slug, n in before.items())


def unsent(sessions: sessionmaker[Session]) -> int:
    with unit_of_work(sessions) as session:
        waiting = (OutboxMessage.sent_at.is_(None), OutboxMessage.parked_at.is_(None))
        return len(session.scalars(select(OutboxMessage.id).where(*waiting)).all())


async def read_page(url: str, language: str) -> str:
    """A page of the running referee as a browser set to ``language`` asks for it."""
    async with aiohttp.ClientSession() as http, http.get(url, headers={"Accept-Language": language}) as response:
        assert response.status == 200, (url, response.status)
        return await response.text()


def dm_rows(sessions: sessionmaker[Session], fake: FakeDiscord) -> dict[str, list[str]]:
    """Each Discord user's DMs from the referee, one text per outbox row (its blocks joined, found by the
    nonces each row's blocks carry): user id -> texts."""
    posted = {m["nonce"]: (channel, m["content"]) for channel, ms in fake.messages.items() for m in ms
              if m.get("nonce")}  # fmt: skip
    users = {channel: str(user) for user, channel in fake.dm_channels.items()}
    with unit_of_work(sessions) as session:
        rows = session.scalars(select(OutboxMessage.message_id).where(OutboxMessage.channel == "discord")).all()
    found: dict[str, list[str]] = {}
    for message_id in rows:
        blocks = [posted[nonce] for i in range(20) if (nonce := nonce_for(message_id, i)) in posted]
        if blocks and blocks[0][0] in users:
            found.setdefault(users[blocks[0][0]], []).append("\n".join(text for _, text in blocks))
    return found


def body(mail: EmailMessage) -> str:
    return str(mail.get_body(("plain",)).get_content())


def english_in(text: str, patterns: Iterable[str]) -> list[str]:
    return [p for p in patterns if re.search(p, text, re.MULTILINE)]


def kind_of(text: str) -> str | None:
    """The kind of the game a copy is about, by the ``[<game>]`` tag of its subject or title."""
    return next((kind for kind, (slug, _s, _o) in GAMES.items() if f"[{slug}]" in text), None)


def check_widths(mails: list[tuple[list[str], EmailMessage]]) -> None:
    wide = [f"{to}: {line}" for to, m in mails for line in body(m).splitlines() if wcwidth.wcswidth(line) > WIDTH]
    assert not wide, "\n".join(wide[:20])


def check_reader(language: str, copies: list[str]) -> None:
    """Every copy to a reader of ``language`` says none of the English headings and one of its own words;
    each game's reports say the game's words (tests/core/test_languages.py) and none of its English ones."""
    assert copies
    english = [(english_in(text, HEADINGS), text) for text in copies if english_in(text, HEADINGS)]
    assert not english, f"{len(english)} copies in {language} say English {english[0][0]}:\n{english[0][1]}"
    unsaid = [text for text in copies if not any(word in text for word in SAYS[language])]
    assert not unsaid, f"{len(unsaid)} copies say none of {SAYS[language]}:\n{unsaid[0]}"
    for kind in GAMES:
        reports = [text for text in copies if kind_of(text) == kind and COPY_FOR[language] in text]
        assert reports, (language, kind)
        game_part = [(english_in(text, ENGLISH[kind]), text) for text in reports if english_in(text, ENGLISH[kind])]
        assert not game_part, f"a {kind} report in {language} says English {game_part[0][0]}:\n{game_part[0][1]}"
        missing = [word for word in SAID[kind][language] if not any(word in text for text in reports)]
        assert not missing, f"no {kind} report in {language} says {missing}"


def check_french_mail(mails: list[EmailMessage]) -> None:
    check_reader("fr", [f"Subject: {m['Subject']}\n{body(m)}" for m in mails])


def check_german_dms(dms: list[str]) -> None:
    check_reader("de", dms)


def check_english(gm_mails: list[EmailMessage], filler_dms: list[str]) -> None:
    """The game master's mail and the English members' DMs say no French or German, and every English
    heading the checks above look for (so that they can fail)."""
    english = [f"Subject: {m['Subject']}\n{body(m)}" for m in gm_mails] + filler_dms
    foreign = [text for text in english if any(word in text for words in SAYS.values() for word in words)]
    assert not foreign, foreign[0]
    unseen = [p for p in HEADINGS if not any(re.search(p, text, re.MULTILINE) for text in english)]
    assert not unseen, f"headings no English copy shows (the checks could not fail on them): {unseen}"


def look_in_chromium(url: str) -> Path:
    """The page at ``url`` in headless Chromium whose Accept-Language is French (tests/web/test_browser.py's
    browser): French by its ``<html lang>``; its whole page's screenshot, under test-artifacts/screenshots."""
    driver = browser(*SIZES["desktop"])
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": "fr"}})
        driver.get(url)
        assert driver.execute_script("return document.documentElement.lang") == "fr", driver.page_source[:2000]
        assert "La partie est terminée." in driver.page_source
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / "languages-lautobus-fr-full.png"
        shot.write_bytes(whole_page(driver, SIZES["desktop"][0]))
        return shot
    finally:
        driver.quit()


def check_pages(pages: dict[str, dict[str, str]]) -> None:
    """Each game's page in French for ``Accept-Language: fr``, in English for ``en``."""
    for slug, said in pages.items():
        french, english = said["fr"], said["en"]
        assert '<html lang="fr"' in french and "La partie est terminée." in french, (slug, french[:2000])
        assert "The game is over." not in french and "Comptes rendus" in french, slug
        assert '<html lang="en"' in english and "The game is over." in english, slug


def _engine_sentences(sessions: sessionmaker[Session], recipients: set[str]) -> set[str]:
    """The English of every sentence an engine said in the copies to ``recipients`` (their outbox rows' data,
    tests/support/engine_words.py), of more than one word (a lone word may be an order's or a name)."""
    with unit_of_work(sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.recipient.in_(recipients))).all()
        return {flat(form["text"]) for row in rows for form in sentences(row.data, inner=False)
                if " " in flat(form["text"])}  # fmt: skip


def check_engine_words(
    sessions: sessionmaker[Session], fake: FakeDiscord, fleur: list[str], dms: dict[str, list[str]], table: Table
) -> None:
    """No sentence an engine said reaches Fleur or Gerd in English; the English members read theirs in English."""
    for reader, texts, recipients in (
        (FRENCH, fleur, {FLEUR}),
        (GERMAN, dms[str(table.members[GERMAN]["id"])], {str(table.members[GERMAN]["id"])}),
    ):
        said = _engine_sentences(sessions, recipients)
        read = flat("\n".join(texts))
        english = sorted(text for text in said if text in read)
        assert len(said) >= 20, (reader, sorted(said))  # enough was said for the check to mean something
        assert not english, f"{reader} reads {len(english)} engine sentences in English: {english[:5]}"
    fillers = {str(table.members[f]["id"]) for f in FILLERS}
    said = _engine_sentences(sessions, fillers)
    read = flat("\n".join(t for f in fillers for t in dms.get(f, [])))
    assert said and sum(text in read for text in said) >= len(said) // 2, "the English members' sentences unseen"


async def test_a_french_and_a_german_player_through_a_whole_game_of_each_kind(
    dovecot: DovecotServer, smtp_with_login: SmtpSink, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    smtp, fake = smtp_with_login, fake_discord
    imap_user = dovecot.new_user("languages")
    web_port = free_port()
    config = write_config(tmp_path, dovecot, imap_user, smtp, fake, web_port)
    assert smtp.login is not None
    environ = {**os.environ, "REFEREE_IMAP_PASSWORD": PASSWORD, "REFEREE_SMTP_PASSWORD": smtp.login[1],
               "REFEREE_DISCORD_TOKEN": "fake-token"}  # fmt: skip
    referee = Referee(config, environ, fake)
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    table = Table(fake, Mail(dovecot, imap_user, smtp), session_factory(engine), referee)
    pages: dict[str, dict[str, str]] = {}
    try:
        await referee.start()
        await create(table)
        await join_and_start(table)
        rounds = await play(table)
        await referee.until(lambda: unsent(table.sessions) == 0)
        for slug, _seats, _options in GAMES.values():
            pages[slug] = {lang: await read_page(f"http://127.0.0.1:{web_port}/games/{slug}", lang)
                           for lang in ("fr", "en")}  # fmt: skip
        screenshot = look_in_chromium(f"http://127.0.0.1:{web_port}/games/{GAMES['lautobus'][0]}")
        await referee.terminate()
        dms = dm_rows(table.sessions, fake)
    finally:
        await referee.kill()
        engine.dispose()
    mails = [(r.recipients, r.message) for r in smtp.messages()]
    check_widths(mails)
    check_french_mail([m for to, m in mails if FLEUR in to])
    check_german_dms(dms[str(table.members[GERMAN]["id"])])
    check_english([m for to, m in mails if GM in to], [t for f in FILLERS for t in dms[str(table.members[f]["id"])]])
    check_pages(pages)
    check_engine_words(table.sessions, fake, [body(m) for to, m in mails if FLEUR in to], dms, table)
    print(f"\nscreenshot: {screenshot}")
    print(f"\nlanguages serve: {rounds} rounds, {len(mails)} mails, {sum(map(len, dms.values()))} DMs")
