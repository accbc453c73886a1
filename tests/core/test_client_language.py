"""A player's client language is their default until they choose (bot/core/people/client_language.py).

A Discord interaction names the member's locale on its envelope (``client_language``); the core keeps it as
the player's, and what it sends them later (notices, reports, on every channel) is in it, before their game's
default; their own ``LANGUAGE`` always wins; an envelope naming none (a mail) changes nothing.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.core.model import commands as c
from bot.core.model.outcomes import REPORT
from bot.store.db import unit_of_work
from bot.store.models import Identity, OutboxMessage, Player
from tests.core.harness import SEATS, Harness


def _from_discord(h: Harness, who: str, command: c.Command, locale: str | None) -> None:
    h.service.apply(
        c.Envelope(
            c.Sender("discord", who, who),
            (command,),
            f"discord:{who}:{next(h.counter)}",
            h.clock.now(),
            {"interaction": "1"},
            trust=c.Trust.VERIFIED,
            client_language=locale,
        )
    )


def _languages(h: Harness, template: str) -> dict[str, object]:
    """Each recipient's language in the copies of ``template`` (None: English)."""
    with unit_of_work(h.sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.template == template)).all()
        return {row.recipient: row.data.get("reader_language") for row in rows}


def test_a_discord_locale_is_the_players_language_until_they_choose_and_beats_the_games_default(sessions):
    h = Harness(sessions)
    h.send("GM", c.CreateGame("g1", "golden-strider", {}, "Europe/Paris", 60, False, "address", language="de"))
    _from_discord(h, "Flore", c.JoinGame("g1", "Flore"), "fr")  # a French Discord
    _from_discord(h, "Bea", c.JoinGame("g1", "Bea"), "en")  # an English Discord, in a German game
    _from_discord(h, "Zoe", c.JoinGame("g1", "Zoe"), None)  # a locale not shipped: nothing known
    for name in SEATS[1:4]:
        h.send(name, c.JoinGame("g1", name))  # by mail
    assert "STARTED" in (h.send("GM", c.StartGame("g1")).reply or "")
    started = _languages(h, "started")
    assert started["Flore"] == "fr" and started["Bea"] == "en"
    assert started["Zoe"] == "de" and started[f"{SEATS[1].lower()}@example.org"] == "de"  # the game's default

    _from_discord(h, "Flore", c.SetLanguage("de"), "fr")  # her choice wins over her Discord
    _from_discord(h, "Flore", c.ShowStatus("g1"), None)  # a later envelope naming no locale changes nothing
    with unit_of_work(h.sessions) as session:
        joined = select(Identity.address, Player.client_language).join(Player, Player.id == Identity.player_id)
        kept = {address: language for address, language in session.execute(joined)}
    assert kept["Flore"] == "fr" and kept["Bea"] == "en" and kept.get("Zoe") is None
    for name in ("Flore", "Bea", "Zoe"):
        _from_discord(h, name, c.SubmitOrders("g1", "cards 10 8 6 4 2"), None)
    for name in SEATS[1:4]:
        h.send(name, c.SubmitOrders("g1", "cards 10 8 6 4 2"))
    h.clock.advance(timedelta(minutes=61))
    h.service.resolve_due(h.clock.now())
    reports = {row.row.recipient: row.row.data.get("reader_language") for row in h.outbox(REPORT)}
    assert reports["Flore"] == "de" and reports["Bea"] == "en" and reports["Zoe"] == "de", reports


def test_what_a_players_first_envelope_makes_the_referee_send_them_is_already_in_their_clients_language(sessions):
    """A JOIN that makes the player and fills the game starts the ready check: its request to the joiner,
    written by that same envelope, is in their Discord's language (the player is made with it), as are the
    others' in theirs; one who played by mail before gets theirs from their first interaction on."""
    h = Harness(sessions)
    h.send("GM", c.CreateGame("g1", "strike-gold", {}, "UTC", 60, False, "address", seats=3, max_seats=3,
                              ready_check="24h"))  # fmt: skip
    h.send("Ann", c.JoinGame("g1", "Ann"))  # by mail: a player with no client language
    _from_discord(h, "Ben", c.JoinGame("g1", "Ben"), "de")
    _from_discord(h, "Cat", c.JoinGame("g1", "Cat"), "fr")  # the game is full: the ready check begins
    asked = _languages(h, "ready_request")
    assert asked["Cat"] == "fr" and asked["Ben"] == "de" and asked["ann@example.org"] is None, asked
