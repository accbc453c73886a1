"""The Dragon Stripes turn, card by card (docs/rules/dragon-stripes.md 4.1 steps 1-5; rulings D3-D11).

Every function takes the state and a list of report lines to append to, and
returns the new state.  :func:`play_on` runs the game forward until a live
decision is needed: compulsory cards are revealed, and decisions and offers
covered by standing orders are answered, all in one resolution.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from adjudicator.api import InvariantViolation
from adjudicator.games.dragon_stripes.cards import Card, CardKind
from adjudicator.games.dragon_stripes.offers import answers, offer_plan
from adjudicator.games.dragon_stripes.options import STRIPES
from adjudicator.games.dragon_stripes.state import HEAD, Line, State, Step


def gems(n: int) -> str:
    """``1 gem``, ``2 gems``."""
    return f"{n} gem" if n == 1 else f"{n} gems"


def note(state: State, index: int, kind: str, text: str, card: str = "") -> Line:
    """A report line for seat ``index`` with the table as it is in ``state``."""
    player = state.players[index]
    return Line(player.seat, kind, text, state.knight, state.beside, state.hoard, player.gems, card)


def play_on(state: State, log: list[Line]) -> State:
    """Run until a live decision or offer is needed, or the game is over."""
    while True:
        if state.step is Step.REVEAL:
            state = reveal(state, log)
        elif state.step is Step.DECIDE and state.active_player.run is not None:
            state = follow_run_order(state, log)
        elif state.step is Step.OFFER and not offer_plan(state).owing:
            state = settle_offers(state, {}, log)
        else:
            return state


def follow_run_order(state: State, log: list[Line]) -> State:
    """The active player's standing run order answers its decision."""
    run = state.active_player.run
    assert run is not None
    holding = run.holds(state.knight, state.beside)
    state = state.with_player(state.active, run=run.answered(revealed=not holding))
    return hold(state, log) if holding else replace(state, step=Step.REVEAL)


def reveal(state: State, log: list[Line]) -> State:
    """The active player reveals the top card (docs/rules/dragon-stripes.md 4.1 step 2)."""
    if not state.deck:
        raise InvariantViolation("the deck ran out before the third danger card")
    card = state.deck[0]
    state = replace(state, deck=state.deck[1:], seen=(*state.seen, card))
    if card.kind is CardKind.FOOTPRINT:
        return _footprint(state, card, log)
    if card.kind is CardKind.STOP or state.dangers < 3:
        return _stopped(state, card, log)
    return _third_danger(state, card, log)


def _footprint(state: State, card: Card, log: list[Line]) -> State:
    """Advance; past stripe 17 the active player takes the hoard (D9, D11); else place gems (D3, D4, D8)."""
    knight = state.knight + card.steps
    seat = state.active_player.seat
    if knight > STRIPES:
        won = state.beside + state.hoard
        text = (
            f"the knight passes stripe {STRIPES} to the dragon's head: {seat} takes the {state.beside} "
            f"beside and the whole hoard of {state.hoard}; the game ends"
        )
        total = state.active_player.gems + won
        state = replace(state.with_player(state.active, gems=total), knight=HEAD, beside=0, hoard=0, step=Step.OVER)
        log.append(note(state, state.active, "card", text, card.label))
        return state
    value = state.options.stripe_values[knight - 1]
    wanted = value * 2 if state.doubling else value
    placed = min(wanted, state.hoard)
    text = f"{value} x2 = {gems(wanted)} placed" if state.doubling else f"{gems(wanted)} placed"
    if placed < wanted:
        text += f", but the hoard had only {placed}"
    state = replace(state, knight=knight, beside=state.beside + placed, hoard=state.hoard - placed, step=Step.DECIDE)
    log.append(note(state, state.active, "card", text, card.label))
    return state


def _stopped(state: State, card: Card, log: list[Line]) -> State:
    """A stop, or the first or second danger card (treated as a stop): lose a quarter, or half once
    doubling is on (seed; D10 rounds down); the gems beside go back to the hoard (D8)."""
    player = state.active_player
    half = state.doubling
    loss = player.gems // 2 if half else player.gems // 4
    head = "stop" if card.kind is CardKind.STOP else f"danger card {state.dangers} of 3, a stop"
    text = f"{head}: {player.seat} loses {loss} of {gems(player.gems)} ({'half' if half else 'a quarter'})"
    if state.beside:
        text += f"; the {state.beside} beside go back to the hoard"
    if card.kind is CardKind.DANGER and state.dangers == 2:
        text += "; from now on stops cost half and placements are doubled"
    state = state.with_player(state.active, gems=player.gems - loss)
    state = replace(state, hoard=state.hoard + loss + state.beside, beside=0, knight=0)
    log.append(note(state, state.active, "card", text, card.label))
    return next_turn(end_run(state, state.active), log)


def _third_danger(state: State, card: Card, log: list[Line]) -> State:
    """The third danger card: the active player loses every gem and the game ends (seed)."""
    player = state.active_player
    text = f"danger card 3 of 3: {player.seat} loses all {gems(player.gems)}"
    if state.beside:
        text += f", and the {state.beside} beside go back to the hoard"
    text += "; the game ends"
    state = state.with_player(state.active, gems=0)
    state = replace(state, hoard=state.hoard + player.gems + state.beside, beside=0, step=Step.OVER)
    log.append(note(state, state.active, "card", text, card.label))
    return state


def hold(state: State, log: list[Line]) -> State:
    """The active player holds: the others may take over (docs/rules/dragon-stripes.md 4.1 step 4)."""
    text = f"{state.active_player.seat} holds"
    log.append(note(state, state.active, "hold", text))
    return replace(state, step=Step.OFFER)


def settle_offers(state: State, live: Mapping[int, bool], log: list[Line]) -> State:
    """Decide the take-over after a hold from the live answers and the standing offers (D5, D6)."""
    plan = offer_plan(state)
    given = answers(state, plan, live)
    takers = tuple(i for i in plan.eligible if given.get(i, False))
    parts = [f"{state.players[i].seat} {_answer_word(given.get(i))}" for i in plan.eligible]
    parts += [f"{state.players[i].seat} cannot pay" for i in plan.unable]
    log.append(note(state, state.active, "offers", f"take over for {gems(plan.bounty)}? " + ", ".join(parts)))
    if not takers:
        return collect(state, log)
    if len(takers) == 1 or state.options.takeover_selection == "seat_order":
        return take_over(state, takers[0], log)
    return replace(state, step=Step.CHOOSE, takers=takers)


def _answer_word(answer: bool | None) -> str:
    if answer is None:
        return "not asked"
    return "takes" if answer else "passes"


def choose(state: State, taker: int, log: list[Line]) -> State:
    """The holder picks one of several takers (D6 ``holder_chooses``)."""
    return take_over(replace(state, takers=()), taker, log, chosen=True)


def take_over(state: State, taker: int, log: list[Line], chosen: bool = False) -> State:
    """``taker`` pays the bounty to the holder and becomes the active player; it must reveal (step 4)."""
    holder = state.active
    price = offer_plan(state).bounty
    state = state.with_player(taker, gems=state.players[taker].gems - price)
    state = state.with_player(holder, gems=state.players[holder].gems + price)
    state = replace(end_run(state, holder), active=taker, step=Step.REVEAL, takers=())
    names = state.players[taker].seat, state.players[holder].seat
    text = f"{names[0]} takes over, paying {names[1]} {gems(price)}"
    if chosen:
        text = f"{names[1]} chooses {names[0]}: " + text
    log.append(note(state, taker, "takeover", text))
    return state


def collect(state: State, log: list[Line]) -> State:
    """Nobody takes over: the active player collects the gems beside the knight; the turn ends."""
    player = state.active_player
    state = state.with_player(state.active, gems=player.gems + state.beside)
    text = f"nobody takes over: {player.seat} collects {gems(state.beside)}"
    state = replace(state, beside=0)
    log.append(note(state, state.active, "collect", text))
    return next_turn(end_run(state, state.active), log)


def end_run(state: State, index: int) -> State:
    """Seat ``index``'s run is over: its standing run order is used up if it answered anything."""
    run = state.players[index].run
    return state.with_player(index, run=None) if run is not None and run.used else state


def next_turn(state: State, log: list[Line]) -> State:
    """The next turn: the player after the turn's owner (D7), or after the last active player."""
    base = state.active if state.options.next_after_taker else state.owner
    owner = (base + 1) % len(state.players)
    state = replace(state, owner=owner, active=owner, knight=0, beside=0, step=Step.REVEAL, takers=())
    log.append(note(state, owner, "turn", f"{state.players[owner].seat}'s turn"))
    return state
