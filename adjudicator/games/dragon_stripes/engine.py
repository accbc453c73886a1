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
from adjudicator.words import Said, say


def gems(n: int) -> Said:
    """``1 gem``, ``2 gems``."""
    return say("{n} gem", n=n) if n == 1 else say("{n} gems", n=n)


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
        text = say(
            "the knight passes stripe {stripe} to the dragon's head: {seat} takes the {beside} "
            "beside and the whole hoard of {hoard}; the game ends",
            stripe=STRIPES,
            seat=seat,
            beside=state.beside,
            hoard=state.hoard,
        )
        total = state.active_player.gems + won
        state = replace(state.with_player(state.active, gems=total), knight=HEAD, beside=0, hoard=0, step=Step.OVER)
        log.append(note(state, state.active, "card", text, card.label))
        return state
    value = state.options.stripe_values[knight - 1]
    wanted = value * 2 if state.doubling else value
    placed = min(wanted, state.hoard)
    if state.doubling:
        text = say("{value} x2 = {gems} placed", value=value, gems=gems(wanted))
    else:
        text = say("{gems} placed", gems=gems(wanted))
    if placed < wanted:
        text = say("{placed_text}, but the hoard had only {placed}", placed_text=text, placed=placed)
    state = replace(state, knight=knight, beside=state.beside + placed, hoard=state.hoard - placed, step=Step.DECIDE)
    log.append(note(state, state.active, "card", text, card.label))
    return state


def _stopped(state: State, card: Card, log: list[Line]) -> State:
    """A stop, or the first or second danger card (treated as a stop): lose a quarter, or half once
    doubling is on (seed; D10 rounds down); the gems beside go back to the hoard (D8)."""
    player = state.active_player
    half = state.doubling
    loss = player.gems // 2 if half else player.gems // 4
    share = say("half") if half else say("a quarter")
    values = {"seat": player.seat, "loss": loss, "gems": gems(player.gems), "share": share}
    if card.kind is CardKind.STOP:
        text = say("stop: {seat} loses {loss} of {gems} ({share})", **values)
    else:
        text = say("danger card {n} of 3, a stop: {seat} loses {loss} of {gems} ({share})", n=state.dangers, **values)
    if state.beside:
        text = say("{lost}; the {beside} beside go back to the hoard", lost=text, beside=state.beside)
    if card.kind is CardKind.DANGER and state.dangers == 2:
        text = say("{lost}; from now on stops cost half and placements are doubled", lost=text)
    state = state.with_player(state.active, gems=player.gems - loss)
    state = replace(state, hoard=state.hoard + loss + state.beside, beside=0, knight=0)
    log.append(note(state, state.active, "card", text, card.label))
    return next_turn(end_run(state, state.active), log)


def _third_danger(state: State, card: Card, log: list[Line]) -> State:
    """The third danger card: the active player loses every gem and the game ends (seed)."""
    player = state.active_player
    if state.beside:
        text = say(
            "danger card 3 of 3: {seat} loses all {gems}, and the {beside} beside go back to the hoard; the game ends",
            seat=player.seat,
            gems=gems(player.gems),
            beside=state.beside,
        )
    else:
        text = say(
            "danger card 3 of 3: {seat} loses all {gems}; the game ends", seat=player.seat, gems=gems(player.gems)
        )
    state = state.with_player(state.active, gems=0)
    state = replace(state, hoard=state.hoard + player.gems + state.beside, beside=0, step=Step.OVER)
    log.append(note(state, state.active, "card", text, card.label))
    return state


def hold(state: State, log: list[Line]) -> State:
    """The active player holds: the others may take over (docs/rules/dragon-stripes.md 4.1 step 4)."""
    text = say("{seat} holds", seat=state.active_player.seat)
    log.append(note(state, state.active, "hold", text))
    return replace(state, step=Step.OFFER)


def settle_offers(state: State, live: Mapping[int, bool], log: list[Line]) -> State:
    """Decide the take-over after a hold from the live answers and the standing offers (D5, D6)."""
    plan = offer_plan(state)
    given = answers(state, plan, live)
    takers = tuple(i for i in plan.eligible if given.get(i, False))
    answered = [(state.players[i].seat, _answer_word(given.get(i))) for i in plan.eligible]
    answered += [(state.players[i].seat, "cannot pay") for i in plan.unable]
    text = say("take over for {gems}? {answers}", gems=gems(plan.bounty), answers=_answers(answered))
    log.append(note(state, state.active, "offers", text))
    if not takers:
        return collect(state, log)
    if len(takers) == 1 or state.options.takeover_selection == "seat_order":
        return take_over(state, takers[0], log)
    return replace(state, step=Step.CHOOSE, takers=takers)


def _answer_word(answer: bool | None) -> str:
    if answer is None:
        return "not asked"
    return "takes" if answer else "passes"


def _answers(answered: list[tuple[str, str]]) -> Said | str:
    """``Bo takes, Cy passes, Di cannot pay``: one pattern a seat's answer, each after the ones before it."""
    said: Said | None = None
    for seat, word in answered:
        said = _ANSWER[word](seat) if said is None else _LATER_ANSWER[word](said, seat)
    return "" if said is None else said


_ANSWER = {
    "takes": lambda seat: say("{seat} takes", seat=seat),
    "passes": lambda seat: say("{seat} passes", seat=seat),
    "not asked": lambda seat: say("{seat} not asked", seat=seat),
    "cannot pay": lambda seat: say("{seat} cannot pay", seat=seat),
}
_LATER_ANSWER = {
    "takes": lambda before, seat: say("{before}, {seat} takes", before=before, seat=seat),
    "passes": lambda before, seat: say("{before}, {seat} passes", before=before, seat=seat),
    "not asked": lambda before, seat: say("{before}, {seat} not asked", before=before, seat=seat),
    "cannot pay": lambda before, seat: say("{before}, {seat} cannot pay", before=before, seat=seat),
}


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
    text = say("{taker} takes over, paying {holder} {gems}", taker=names[0], holder=names[1], gems=gems(price))
    if chosen:
        text = say("{holder} chooses {taker}: {taking}", holder=names[1], taker=names[0], taking=text)
    log.append(note(state, taker, "takeover", text))
    return state


def collect(state: State, log: list[Line]) -> State:
    """Nobody takes over: the active player collects the gems beside the knight; the turn ends."""
    player = state.active_player
    state = state.with_player(state.active, gems=player.gems + state.beside)
    text = say("nobody takes over: {seat} collects {gems}", seat=player.seat, gems=gems(state.beside))
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
    log.append(note(state, owner, "turn", say("{seat}'s turn", seat=state.players[owner].seat)))
    return state
