"""Game masters' administration of a game: joining, ending, options, co-GMs, broadcasts, the log."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from adjudicator.api import GameError
from adjudicator.options import resolve_options
from bot.core.commands.context import Authorised, CommandContext
from bot.core.games.stored import ABANDONED, FINISHED, FORMING, PAUSED, RUNNING, rules_of, state_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, REPORT, Message, Outcome, ToPlayer, ToPublic
from bot.core.people.identities import find_or_create_player
from bot.store.models import AuditEntry, GameMaster


class GameAdmin(CommandContext):
    """SetJoining, EndGame, SetOption, AddGameMaster, Broadcast, ShowLog."""

    def set_joining(self, command: c.SetJoining, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        if game.status != FORMING:
            self.reply.problem(f"JOINING {game.slug}", "wrong_status", game=game.slug, status=game.status)
            return
        game.joining_open = command.open
        self.reply.add("joining", game=game.slug, open=command.open)

    def end(self, command: c.EndGame, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        if game.status in (FINISHED, ABANDONED):
            self.reply.problem(f"END {game.slug}", "wrong_status", game=game.slug, status=game.status)
            return
        standings = []
        if game.state is not None and not command.abandon:
            standings = [{"place": s.place, "seat": s.seat} for s in rules_of(game).standings(state_of(game))]
        game.status = ABANDONED if command.abandon else FINISHED
        game.finished_at = self.now
        game.deadline_at = None
        game.resolve_at = None
        data = {"game": game.slug, "abandoned": command.abandon, "reason": command.reason, "standings": standings,
                "seed": game.seed}  # fmt: skip
        self.reply.add("ended", **data)
        key = f"ended:{game.slug}"
        self.delivery.send(Outcome(ToPublic(game.id), Message("ended", data), REPORT, key, game.id))
        for seat in game.seats:
            self.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("ended", data), REPORT, key,
                                       game.id))  # fmt: skip

    def set_option(self, command: c.SetOption, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"OPTION {game.slug} {command.name}"
        if game.status != FORMING:
            self.reply.problem(line, "options_fixed", game=game.slug)
            return
        try:
            value: Any = json.loads(command.value)
        except json.JSONDecodeError:
            value = command.value
        try:
            options = resolve_options(rules_of(game).options(), {**game.options, command.name: value})
        except (GameError, ValueError) as exc:
            self.reply.problem(line, "bad_game_settings", reason=str(exc))
            return
        before = game.options.get(command.name)
        game.options = options
        self.reply.add("option_set", game=game.slug, name=command.name, before=before, after=options.get(command.name))

    def add_game_master(self, command: c.AddGameMaster, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        newcomer = find_or_create_player(self.session, c.Sender(command.channel, command.address.strip()), self.now)
        present = self.session.get(GameMaster, (game.id, newcomer.id)) is not None or newcomer.id == game.gm_player_id
        if command.hand_over:
            previous = game.gm_player_id
            game.gm_player_id = newcomer.id
            if present and (row := self.session.get(GameMaster, (game.id, newcomer.id))) is not None:
                self.session.delete(row)
            if previous is not None and previous != newcomer.id:
                self.delivery.send(Outcome(ToPlayer(previous), Message("gm_handed_over", {"game": game.slug,
                                           "to": command.address}), NOTICE, f"handover:{self.envelope.source_id}",
                                           game.id))  # fmt: skip
        elif not present:
            self.session.add(GameMaster(game_id=game.id, player_id=newcomer.id))
        self.session.flush()
        message = Message("gm_added", {"game": game.slug, "hand_over": command.hand_over, "reason": command.reason})
        self.delivery.send(Outcome(ToPlayer(newcomer.id), message, NOTICE, f"gm:{self.envelope.source_id}", game.id))
        self.reply.add("gm_added", game=game.slug, address=command.address, hand_over=command.hand_over)

    def broadcast(self, command: c.Broadcast, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        data = {"game": game.slug, "text": command.text, "from": self.envelope.sender.display_name or "the game master"}
        key = f"broadcast:{self.envelope.source_id}"
        self.delivery.send(Outcome(ToPublic(game.id), Message("broadcast", data), REPORT, key, game.id))
        for seat in game.seats:
            self.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("broadcast", data), REPORT, key,
                                       game.id))  # fmt: skip
        self.reply.add("broadcast_sent", game=game.slug, seats=len(game.seats))

    def show_log(self, command: c.ShowLog, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        self.reply.add("audit_log", game=game.slug, time_zone=game.time_zone, entries=audit_log(self, game.id))


def audit_log(ctx: CommandContext, game_id: int) -> list[dict[str, Any]]:
    """The game's audit entries, oldest first, as plain data."""
    rows = ctx.session.scalars(select(AuditEntry).where(AuditEntry.game_id == game_id).order_by(AuditEntry.id)).all()
    return [
        {"at": r.at.isoformat(), "actor": r.actor, "channel": r.channel, "action": r.action, "reason": r.reason,
         "detail": r.detail}
        for r in rows
    ]  # fmt: skip


STATUSES = (FORMING, RUNNING, PAUSED, FINISHED, ABANDONED)
