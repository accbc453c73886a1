"""Hosting commands: creating a game and starting it (its first phase, deadline and seed commitment)."""

from __future__ import annotations

import re
import secrets
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from adjudicator import registry
from adjudicator.api import GameError
from adjudicator.options import resolve_options
from adjudicator.record import start_game
from adjudicator.rng import commitment
from bot.core import commands as c
from bot.core.context import CommandContext
from bot.core.games import (
    FORMING,
    RUNNING,
    find_game,
    normalise_slug,
    rules_of,
)
from bot.core.identities import find_or_create_player, reach
from bot.core.outbox import Outgoing, enqueue
from bot.core.rendering import render
from bot.core.reports import format_deadline
from bot.core.turns import PUBLIC_CHANNEL, next_deadline
from bot.store.models import Game

_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


class HostCommands(CommandContext):
    """CREATE and START (by the game master)."""

    def create(self, command: c.CreateGame) -> None:
        line = f"CREATE {command.game} {command.kind}"
        slug = normalise_slug(command.game)
        if not _SLUG.match(slug):
            self.reply.error(line, "a game name is 1-40 letters, digits, - or _, starting with a letter or digit")
            return
        if find_game(self.session, slug) is not None:
            self.reply.error(line, f"a game called {slug} already exists")
            return
        try:
            rules = registry.get_rules(command.kind)
            options = resolve_options(rules.options(), command.options)
            ZoneInfo(command.time_zone)
        except (registry.UnknownGame, GameError, ZoneInfoNotFoundError, ValueError) as exc:
            self.reply.error(line, str(exc))
            return
        seed = secrets.token_hex(16)
        gm = find_or_create_player(self.session, self.envelope.sender, self.now)
        game = Game(
            slug=slug, kind=rules.kind, options=options, seed=seed, commitment=commitment(seed), status=FORMING,
            time_zone=command.time_zone, turn_minutes=command.turn_minutes,
            offer_minutes=min(command.turn_minutes, self.config.default_offer_minutes),
            decision_minutes=min(command.turn_minutes, self.config.default_decision_minutes),
            early_processing=command.early_processing, auth_mode=command.auth, deadline_at=None, phase_number=0,
            state=None, gm_player_id=gm.id, created_at=self.now,
        )  # fmt: skip
        self.session.add(game)
        self.session.flush()
        self.reply.game_tag = slug
        self.reply.section(f"CREATED {slug}", f"{rules.title}, open for joining: JOIN {slug} [AS <name>].")

    def start(self, command: c.StartGame) -> None:
        line = f"START {command.game}"
        game = self._game(command.game, line)
        if game is None:
            return
        gm = find_or_create_player(self.session, self.envelope.sender, self.now)
        if game.gm_player_id != gm.id:
            self.reply.error(line, f"only the game master of {game.slug} can start it")
            return
        if game.status != FORMING:
            self.reply.error(line, f"game {game.slug} is already {game.status}")
            return
        rules = rules_of(game)
        try:
            state = start_game(rules, [s.name for s in game.seats], game.options, game.seed)
        except GameError as exc:
            self.reply.error(line, str(exc))
            return
        phase = rules.phase(state)
        assert phase is not None
        game.state = rules.dump_state(state)
        game.status = RUNNING
        game.deadline_at = next_deadline(game, phase, self.now)
        self._announce_start(game, phase.title)
        self.reply.section(
            f"STARTED {game.slug}",
            f"First phase: {phase.title}",
            f"Deadline: {format_deadline(game.deadline_at, game.time_zone)}",
        )

    def _announce_start(self, game: Game, phase_title: str) -> None:
        rules = rules_of(game)
        data: dict[str, Any] = {
            "game": game.slug, "title": rules.title, "seats": [s.name for s in game.seats], "phase": phase_title,
            "deadline": format_deadline(game.deadline_at, game.time_zone), "commitment": game.commitment,
            "options": game.options,
        }  # fmt: skip
        body = render("common/start.txt.j2", data)
        subject = f"[{game.slug}] {rules.title} has started"
        key = f"start:{game.slug}"
        enqueue(
            self.session,
            Outgoing(PUBLIC_CHANNEL, game.slug, "report", subject, body, "common/start.txt.j2", {}, game.id, None, key),
            self.now,
            self.config.mail_domain,
        )
        for seat in game.seats:
            target = reach(seat.player)
            if target is not None:
                channel, address = target
                enqueue(
                    self.session,
                    Outgoing(channel, address, "report", subject, body, "common/start.txt.j2", {}, game.id, None, key),
                    self.now,
                    self.config.mail_domain,
                )
