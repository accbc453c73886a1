"""The plain data of a Dragon Stripes report (rendered by templates/dragon-stripes/report.txt.j2).

Everything here is public: the cards as they came, the knight, the gems beside
it, every player's gems, the hoard and the danger cards seen.  The order of the
cards still in the deck and the players' standing orders are not reported
(standing orders go to their own seat only, in ``private``).
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.api import JSON, Standing
from adjudicator.games.dragon_stripes.engine import gems
from adjudicator.games.dragon_stripes.offers import offer_plan
from adjudicator.games.dragon_stripes.orders import offer_line, run_lines
from adjudicator.games.dragon_stripes.state import HEAD, Line, State, Step
from adjudicator.words import Said, say


def line_json(line: Line) -> dict[str, JSON]:
    return {
        "seat": line.seat,
        "kind": line.kind,
        "card": line.card,
        "text": line.text,
        "knight": line.knight,
        "beside": line.beside,
        "hoard": line.hoard,
        "gems": line.gems,
    }


def waiting_for(state: State) -> Said:
    """One sentence on what the game waits for now."""
    holder = state.active_player.seat
    if state.step is Step.DECIDE:
        return say("{holder} to decide: reveal or hold.", holder=holder)
    if state.step is Step.OFFER:
        plan = offer_plan(state)
        asked = ", ".join(state.players[i].seat for i in plan.owing)
        return say(
            "{holder} holds: {asked} may take over for {gems} (take or pass).",
            holder=holder,
            asked=asked,
            gems=gems(plan.bounty),
        )
    if state.step is Step.CHOOSE:
        takers = ", ".join(state.players[i].seat for i in state.takers)
        return say("{takers} offered to take over: {holder} chooses one.", takers=takers, holder=holder)
    return say("The game is over.")


def knight_text(knight: int, beside: int) -> Said:
    """``The knight is on stripe 5, with 7 gems beside it.``"""
    if knight == 0:
        where = say("at the tail, before stripe 1")
    elif knight >= HEAD:
        where = say("at the dragon's head")
    else:
        where = say("on stripe {stripe}", stripe=knight)
    if beside:
        return say("The knight is {where}, with {gems} beside it.", where=where, gems=gems(beside))
    return say("The knight is {where}.", where=where)


def build(state: State, lines: Sequence[Line], standings: Sequence[Standing]) -> dict[str, JSON]:
    """The report of one resolution: its lines, then the table as it stands."""
    dangers = state.dangers
    return {
        "kind": "dragon-stripes",
        "lines": [line_json(line) for line in lines],
        "knight": state.knight,
        "knight_text": knight_text(state.knight, state.beside),
        "beside": state.beside,
        "hoard": state.hoard,
        "dangers": dangers,
        "doubling": state.doubling,
        "penalty": say("half") if state.doubling else say("a quarter"),
        "cards_seen": len(state.seen),
        "cards_left": len(state.deck),
        "players": [
            {
                "seat": p.seat,
                "gems": p.gems,
                "active": i == state.active and not state.finished,
                "owner": i == state.owner and not state.finished,
            }
            for i, p in enumerate(state.players)
        ],
        "finished": state.finished,
        "waiting": waiting_for(state),
        "standings": [{"seat": s.seat, "place": s.place, "gems": s.score} for s in standings],
    }


def private(state: State) -> dict[str, dict[str, JSON]]:
    """Each seat's own standing orders, after the resolution."""
    result: dict[str, dict[str, JSON]] = {}
    for player in state.players:
        standing: list[JSON] = list(run_lines(player.run)) if player.run is not None else []
        if player.offer is not None:
            standing.append(offer_line(player.offer))
        result[player.seat] = {"standing": standing}
    return result


def public_state(state: State) -> dict[str, JSON]:
    """Everything public; not the deck order, not the standing orders."""
    return {
        "gems": {p.seat: p.gems for p in state.players},
        "hoard": state.hoard,
        "knight": state.knight,
        "beside": state.beside,
        "dangers": state.dangers,
        "doubling": state.doubling,
        "turn_owner": state.players[state.owner].seat,
        "active": state.active_player.seat,
        "step": state.step.value,
        "cards_seen": [card.label for card in state.seen],
        "cards_left": len(state.deck),
        "finished": state.finished,
    }


def seat_view(state: State, seat: str) -> dict[str, JSON]:
    """``seat``'s view: the public state, the seats in order, the seats that offered to take
    over and wait for the holder's choice (public decisions, docs/rules/dragon-stripes.md 4.1; ruling D6), and
    ``seat``'s own standing orders (a player's intentions, shown to that player only).
    Never the deck order (docs/rules/dragon-stripes.md 4.1) nor another seat's standing orders."""
    return {
        **public_state(state),
        "seat": seat,
        "seats": [p.seat for p in state.players],
        "takers": [state.players[i].seat for i in state.takers] if state.step is Step.CHOOSE else [],
        **private(state)[seat],
    }
