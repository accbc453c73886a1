"""Dragon Stripes (Alex Randolph, 1989): the :class:`~adjudicator.api.GameRules` implementation.

Rules: docs/rules/dragon-stripes.md (the rule text restated; rulings D1-D12).
A sequential game: each phase is one decision of the active player, a short
take-over window after a hold, or the holder's choice between several takers.

Referee decisions where the seed and the rulings are silent:

* The first seat plays the first turn.  Compulsory cards (the first of a turn,
  the first after a take-over) are revealed by the referee at once; those that
  ``new_game`` reveals open the first report.
* The knight's position past stripe 17 is recorded as 18, "the head".
* ``holder_chooses`` (D6 option): the holder must pick one of the takers; a
  silent holder gets the first taker to its left (the D6 default).
* Standing orders live in the state per seat and are private to it.
  A run order answers the seat's own decisions and is used up when a run in
  which it answered ends; given with a live ``hold`` or outside the seat's run
  it waits for the seat's next run.  A take-over offer answers every window
  until withdrawn; a seat with one is not asked, and under ``seat_order`` the
  players after the first standing taker are not asked either.  Standing
  orders can be changed only in a message the seat sends while it owes orders.
* The ``deck`` option may name only the top cards; the rest of the 51 cards is
  shuffled beneath them with the game's seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from adjudicator.api import (
    JSON,
    Event,
    IllegalOrders,
    InvariantViolation,
    OptionSpec,
    ParsedOrders,
    Phase,
    PhaseKind,
    Resolution,
    Standing,
)
from adjudicator.checks import check_seats, expect_orders, refuse_oversized
from adjudicator.games.dragon_stripes import computer, report
from adjudicator.games.dragon_stripes import help as game_help
from adjudicator.games.dragon_stripes import orders as order_syntax
from adjudicator.games.dragon_stripes import orders_parse as order_parser
from adjudicator.games.dragon_stripes import state as state_io
from adjudicator.games.dragon_stripes.cards import build_deck, composition
from adjudicator.games.dragon_stripes.engine import note, play_on
from adjudicator.games.dragon_stripes.offers import offer_plan
from adjudicator.games.dragon_stripes.options import OPTION_SPECS, STRIPES, Options
from adjudicator.games.dragon_stripes.orders import Answer, Context, Orders
from adjudicator.games.dragon_stripes.resolve import resolve_phase
from adjudicator.games.dragon_stripes.state import HEAD, Line, Player, State, Step
from adjudicator.words import Said, say


class DragonStripes:
    """Dragon Stripes rules; see the module docstring."""

    kind = "dragon-stripes"
    title = "Dragon Stripes"
    min_seats = 2
    max_seats = 6
    default_orders_public = True

    def options(self) -> Sequence[OptionSpec]:
        return OPTION_SPECS

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> State:
        """Deal the deck (stacked by the ``deck`` option, the rest shuffled) and play the first
        player's compulsory first card (docs/rules/dragon-stripes.md 4.1 step 2); those lines open the first report."""
        check_seats(
            seats,
            self.min_seats,
            self.max_seats,
            game="Dragon Stripes",
            noun=say("players"),
            twice=say("a seat is named twice"),
        )
        opts = Options.from_mapping(options)
        deck = build_deck(opts.stacked_cards(), opts.footprint_counts, rng)
        state = State(opts, tuple(Player(seat) for seat in seats), opts.hoard_initial, deck)
        log: list[Line] = [note(state, 0, "turn", say("{seat}'s turn", seat=seats[0]))]
        state = play_on(state, log)
        return replace(state, unreported=tuple(log))

    def phase(self, state: State) -> Phase | None:
        """The open phase; its title is English words with the pattern kept (the Discord screen,
        bot/discord/games/dragon_stripes.py, reads "choose" and "for N gems" in the English text)."""
        holder = state.active_player.seat
        where = say("knight on stripe {knight}, {beside} gems beside", knight=state.knight, beside=state.beside)
        if state.step is Step.OVER:
            return None
        if state.step is Step.DECIDE:
            title = say("{holder}: reveal or hold ({where})", holder=holder, where=where)
            return Phase(state.turn, PhaseKind.DECISION, (holder,), title, "decision", True)
        if state.step is Step.OFFER:
            plan = offer_plan(state)
            owing = tuple(state.players[i].seat for i in plan.owing)
            title = say(
                "take over {holder}'s run for {bounty} gems? ({where})", holder=holder, bounty=plan.bounty, where=where
            )
            return Phase(state.turn, PhaseKind.OFFER, owing, title, "offer", True)
        if state.step is Step.CHOOSE:
            takers = ", ".join(state.players[i].seat for i in state.takers)
            title = say(
                "{holder}: choose who takes over ({takers}; {where})", holder=holder, takers=takers, where=where
            )
            return Phase(state.turn, PhaseKind.DECISION, (holder,), title, "decision", True)
        raise InvariantViolation(f"the game stopped in step {state.step.value}")

    def context(self, state: State, seat: str) -> Context:
        """What the order parser needs to know about ``seat`` in the current phase."""
        player = state.players[state.index(seat)]
        return Context(
            step=state.step,
            seat=seat,
            holder=state.active_player.seat,
            knight=state.knight,
            beside=state.beside,
            bounty=offer_plan(state).bounty,
            takers=tuple(state.players[i].seat for i in state.takers),
            has_run=player.run is not None,
            has_offer=player.offer is not None,
        )

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[Orders]:
        if (refused := refuse_oversized(text)) is not None:
            return refused
        return order_parser.parse(text, self.context(state, seat))

    def format_orders(self, state: State, seat: str, orders: Orders) -> str:
        return order_syntax.format_orders(orders)

    def default_orders(self, state: State, seat: str) -> Orders:
        """Ruling D12: a silent active player holds; a silent player declines a take-over.  A silent
        holder choosing between takers gets the first one to its left (the D6 default)."""
        if state.step is Step.OFFER:
            return Orders(answer=Answer.PASS)
        if state.step is Step.CHOOSE:
            return Orders(choose=state.players[state.takers[0]].seat)
        return Orders(answer=Answer.HOLD)

    def resolve(self, state: State, orders: Mapping[str, Any], rng: random.Random) -> Resolution[State]:
        phase = self.phase(state)
        if phase is None:
            raise IllegalOrders(next(iter(orders), "-"), "the game is over")
        for seat in orders:
            if seat not in phase.owing:
                raise IllegalOrders(seat, f"owes no orders in {phase.title}")
        given = {seat: expect_orders(seat, orders, Orders, "Dragon Stripes orders") for seat in phase.owing}
        new_state, lines = resolve_phase(state, given)
        standings = self.standings(new_state)
        events = (_finish_event(new_state, standings),) if new_state.finished else ()
        return Resolution(new_state, events, report.build(new_state, lines, standings), report.private(new_state))

    def redeal(self, state: State, rng: random.Random) -> State:
        """The cards not yet revealed shuffled again (the deck's order is the only thing hidden from every
        player); a stacked deck (the ``deck`` option) is shuffled too: a fresh draw is fresh."""
        cards = list(state.deck)
        rng.shuffle(cards)
        return replace(state, deck=tuple(cards))

    def check_invariants(self, state: State) -> None:
        gems = sum(p.gems for p in state.players)
        if gems + state.beside + state.hoard != state.total:
            raise InvariantViolation(
                f"gems do not add up: players {gems} + beside {state.beside} + hoard {state.hoard} != {state.total}"
            )
        if min(gems, state.beside, state.hoard, *(p.gems for p in state.players)) < 0:
            raise InvariantViolation("a negative number of gems")
        if Counter(state.seen) + Counter(state.deck) != Counter(composition(state.options.footprint_counts)):
            raise InvariantViolation("the cards seen and the deck are not the 51-card deck")
        if state.step is Step.REVEAL:
            raise InvariantViolation("a compulsory card was left unrevealed")
        if (state.dangers >= 3 or state.knight >= HEAD) != state.finished:
            raise InvariantViolation("the game must end exactly on the third danger or at the head")
        if not 0 <= state.knight <= HEAD or (not state.finished and state.knight > STRIPES):
            raise InvariantViolation(f"the knight is at {state.knight}")
        if state.step in (Step.DECIDE, Step.OFFER, Step.CHOOSE) and state.knight < 1:
            raise InvariantViolation("a decision before the knight has moved")
        if (state.step is Step.CHOOSE) != bool(state.takers):
            raise InvariantViolation("takers are kept only while the holder chooses")
        if state.step is Step.OFFER and not offer_plan(state).owing:
            raise InvariantViolation("an offer window that nobody owes")

    def standings(self, state: State) -> tuple[Standing, ...]:
        """By gems, most first; equal gems share a place (ruling D9: joint winners)."""
        order = sorted(state.players, key=lambda p: -p.gems)
        return tuple(
            Standing(p.seat, 1 + sum(1 for other in state.players if other.gems > p.gems), p.gems) for p in order
        )

    def public_state(self, state: State) -> dict[str, JSON]:
        return report.public_state(state)

    def seat_view(self, state: State, seat: str) -> dict[str, JSON]:
        return report.seat_view(state, seat)

    def dump_state(self, state: State) -> dict[str, JSON]:
        return state_io.dump(state)

    def load_state(self, data: Mapping[str, JSON]) -> State:
        return state_io.load(data)

    def example_orders(self, state: State, seat: str, rng: random.Random) -> str:
        return computer.example_text(self.context(state, seat), rng)

    def help_text(self, options: Mapping[str, JSON] | None = None) -> str:
        return game_help.help_text(options)


def _finish_event(state: State, standings: Sequence[Standing]) -> Event:
    seat = state.active_player.seat
    if state.knight >= HEAD:
        how = say("{seat} reached the dragon's head", seat=seat)
    else:
        how = say("{seat} revealed the third danger card", seat=seat)
    winners = [s for s in standings if s.place == 1]
    names: str = winners[0].seat
    for other in winners[1:]:
        names = say("{names} and {name}", names=names, name=other.seat)
    text: Said
    if len(winners) > 1:
        text = say(
            "The game is over: {how}. Winners: {names} with {gems} gems.", how=how, names=names, gems=winners[0].score
        )
    else:
        text = say(
            "The game is over: {how}. Winner: {names} with {gems} gems.", how=how, names=names, gems=winners[0].score
        )
    return Event("finish", text)
