"""L'autobus orders: one card per cyclist that still holds cards.

Canonical syntax: ``1: 3, 2: 5, 3: zero, 4: sprint, 5: 2`` (riders 1-5 of the
team, lowest first; a rider with no cards is left out).  Read leniently:
case, commas, semicolons, new lines, ``=``/``->``/``-`` and extra spaces do
not matter; ``rider 1 plays 3``, ``r1 3``, ``#1: 3`` and ``cyclist 1: 3`` are
accepted; ``z``/``0`` mean ZERO and ``s``/``sp`` mean SPRINT.  A bare list of
cards (``3 5 zero sprint 2``) gives one card to each rider that still holds
cards, in rider order (but ``1 3`` alone, where rider 1 holds cards, is
"rider 1 plays 3").

A card the rider may not play (not held, a special already used, a special on
the first turn) is accepted with a warning and replaced at resolution by ruling L8; so
is a rider left without a card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.api import OrderError, ParsedOrders
from adjudicator.games.lautobus.cards import SPRINT, ZERO, Card, CardKind, fallback_card, hand_text, illegal_reason
from adjudicator.games.lautobus.cards import move as move_card
from adjudicator.games.lautobus.options import RIDERS, Options
from adjudicator.games.lautobus.state import Cyclist
from adjudicator.words import say

SYNTAX = say("RIDER: CARD for each of your riders with cards, e.g. 1: 3, 2: 5, 3: zero, 4: sprint, 5: 2")
MAX_WRITTEN_CARD = 99

_ZERO_WORDS = {"zero", "z", "0", "nil", "nought"}
_SPRINT_WORDS = {"sprint", "s", "sp", "spr", "sprints"}
_FILLER = {"rider", "riders", "cyclist", "cyclists", "r", "c", "plays", "play", "card", "cards", "with"}
_MARKERS = re.compile(r"[:=#>]|\b(?:riders?|cyclists?|r\d|c\d|plays?)\b")
_GLUED_RIDER = re.compile(r"^(?:r|c|rider|cyclist)(\d+)$")
_SEPARATORS = re.compile(r"[:=#>().\-\u2013\u2192]")


@dataclass(frozen=True)
class Play:
    """Rider ``rider`` of the team plays ``card`` (as ordered; L8 is applied at resolution)."""

    rider: int
    card: Card


@dataclass(frozen=True)
class TeamOrders:
    """One team's cards for the turn, by rider, lowest rider first."""

    plays: tuple[Play, ...]

    def card_for(self, rider: int) -> Card | None:
        for play in self.plays:
            if play.rider == rider:
                return play.card
        return None


def format_orders(orders: TeamOrders) -> str:
    return ", ".join(f"{play.rider}: {play.card.label}" for play in orders.plays)


def read_card(word: str) -> Card | None:
    """A card word: a number, ``zero``/``z``/``0`` or ``sprint``/``s``."""
    if word in _ZERO_WORDS:
        return ZERO
    if word in _SPRINT_WORDS:
        return SPRINT
    if word.isdecimal() and 1 <= int(word) <= MAX_WRITTEN_CARD:
        return move_card(int(word))
    return None


def _tokens(item: str) -> list[str]:
    words = _SEPARATORS.sub(" ", item.lower()).split()
    tokens = []
    for word in words:
        glued = _GLUED_RIDER.match(word)
        if glued:
            tokens.append(glued.group(1))
        elif word not in _FILLER:
            tokens.append(word)
    return tokens


def _items(text: str) -> list[str]:
    items: list[str] = []
    for line in text.splitlines():
        items.extend(part.strip().strip(".") for part in re.split(r"[,;]|\band\b", line, flags=re.IGNORECASE))
    return [item for item in items if item]


def parse_team_orders(
    cyclists: Sequence[Cyclist], text: str, first_turn: bool, options: Options
) -> ParsedOrders[TeamOrders]:
    """Read a team's cards; notes echo every rider's card and warn of ruling L8 replacements."""
    active = [c.rider for c in cyclists if c.has_cards]
    items = _items(text)
    if not active:
        return ParsedOrders(
            None, "", (OrderError(text.strip(), say("no cyclist of your team holds cards: no orders are owed")),)
        )
    if not items:
        return ParsedOrders(None, "", (OrderError("", say("no orders given; expected {syntax}", syntax=SYNTAX)),))
    tokenised = [(item, _tokens(item)) for item in items]
    flat = [token for _, tokens in tokenised for token in tokens]
    one_pair = len(items) == 1 and len(flat) == 2 and flat[0].isdecimal() and int(flat[0]) in active
    bare = (
        not _MARKERS.search(text.lower())
        and (len(items) == 1 or all(len(tokens) == 1 for _, tokens in tokenised))
        and len(flat) == len(active)
        and all(read_card(token) is not None for token in flat)
        and not one_pair
    )
    errors: list[OrderError] = []
    notes: list[str] = []
    found: dict[int, Card] = {}
    if bare:
        for rider, token in zip(active, flat, strict=True):
            card = read_card(token)
            assert card is not None
            found[rider] = card
        notes.append(say("read as one card for each rider with cards, in rider order"))
    else:
        for item, tokens in tokenised:
            _read_pairs(item, tokens, found, errors)
    if not found:
        if not errors:
            errors.append(OrderError(text.strip(), say("no card found; expected {syntax}", syntax=SYNTAX)))
        return ParsedOrders(None, "", tuple(errors), tuple(notes))
    orders = TeamOrders(tuple(Play(rider, found[rider]) for rider in sorted(found) if rider in active))
    notes.extend(_echo(cyclists, found, first_turn, options))
    if not orders.plays:  # only riders without cards were named: nothing to play, nothing to write back
        riders = ", ".join(str(rider) for rider in active)
        errors.append(
            OrderError(
                text.strip(),
                say("no card for a rider who holds cards (riders {riders}); {syntax}", riders=riders, syntax=SYNTAX),
            )
        )
        return ParsedOrders(None, "", tuple(errors), tuple(notes))
    return ParsedOrders(orders, format_orders(orders), tuple(errors), tuple(notes))


def _read_pairs(item: str, tokens: list[str], found: dict[int, Card], errors: list[OrderError]) -> None:
    """Read ``RIDER CARD`` pairs from one item; any problem rejects the whole item."""
    pairs: dict[int, Card] = {}
    problem = None if tokens else say("not understood; expected {syntax}", syntax=SYNTAX)
    for i in range(0, len(tokens), 2):
        rider_word = tokens[i]
        card = read_card(tokens[i + 1]) if i + 1 < len(tokens) else None
        if not rider_word.isdecimal() or not 1 <= int(rider_word) <= RIDERS:
            problem = say(
                "'{word}' is not a rider 1-{riders}; expected {syntax}", word=rider_word, riders=RIDERS, syntax=SYNTAX
            )
        elif i + 1 >= len(tokens):
            problem = say("no card for rider {rider}; expected {syntax}", rider=rider_word, syntax=SYNTAX)
        elif card is None:
            problem = say(
                "'{word}' is not a card: write a number, zero or sprint; expected {syntax}",
                word=tokens[i + 1],
                syntax=SYNTAX,
            )
        elif int(rider_word) in found or int(rider_word) in pairs:
            problem = say("rider {rider} was given a card already; this is ignored", rider=rider_word)
        else:
            pairs[int(rider_word)] = card
            continue
        break
    if problem is not None:
        errors.append(OrderError(item, problem))
    else:
        found.update(pairs)


def _echo(cyclists: Sequence[Cyclist], found: dict[int, Card], first_turn: bool, options: Options) -> list[str]:
    """How each rider's card was read, with the ruling L8 warnings."""
    notes: list[str] = []
    for cyclist in cyclists:
        card = found.get(cyclist.rider)
        if not cyclist.has_cards:
            if card is not None:
                notes.append(
                    say(
                        "rider {rider} has no cards left and needs none; {card} ignored",
                        rider=cyclist.rider,
                        card=card.label,
                    )
                )
            continue
        if card is None:
            fallback = fallback_card(cyclist.cards, first_turn)
            notes.append(
                say(
                    "WARNING: no card for rider {rider}; unless you send one, the referee will play {card} (ruling L8)",
                    rider=cyclist.rider,
                    card=fallback.label,
                )
            )
            continue
        reason = illegal_reason(cyclist.cards, card, first_turn)
        if reason is not None:
            fallback = fallback_card(cyclist.cards, first_turn)
            notes.append(
                say(
                    "WARNING: rider {rider} cannot play {card}: {reason} (its cards: {hand}); unless you change it, "
                    "the referee will play {fallback} instead (ruling L8)",
                    rider=cyclist.rider,
                    card=card.label,
                    reason=reason,
                    hand=hand_text(cyclist.cards),
                    fallback=fallback.label,
                )
            )
            continue
        notes.append(
            say("rider {rider} plays {card}", rider=cyclist.rider, card=_describe(cyclist.cards, card, options))
        )
    return notes


def _describe(hand: tuple[Card, ...], card: Card, options: Options) -> str:
    if card.kind is CardKind.MOVE:
        return card.label
    if card == ZERO:
        return say("ZERO: no movement")
    if hand == (SPRINT,):
        return say("SPRINT, the last card: it moves 1 (seed rule 11)")
    spent = [c for c in hand if c != SPRINT and (options.sprint_includes_zero or c != ZERO)]
    total = sum(c.value for c in spent)
    return say("SPRINT: all of {cards} at once, {total} spaces (seed rule 10)", cards=hand_text(spent), total=total)
