"""Each game's order grammar as token lines: its real keywords, cards, slots, riders and seats.

``lines_for(kind, state, seat, rnd)`` gives lines a player of that game could
write now (the computer player's text among them, split into tokens) and the
game's vocabulary, for :func:`.mutate.near_valid` to pick from and mutate.
The words come from each game's help text (``help.py``) and parser.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from adjudicator import registry
from adjudicator.games.golden_strider.state import State as StriderState
from adjudicator.games.lautobus.state import State as BusState
from adjudicator.games.strike_gold.cards import COLUMNS
from adjudicator.games.strike_gold.grid import face_down_slots
from adjudicator.games.strike_gold.rounds import flips_due
from adjudicator.games.strike_gold.state import Stage
from adjudicator.games.strike_gold.state import State as GoldState
from adjudicator.games.three_races.state import RACES
from adjudicator.games.three_races.state import State as RacesState
from tests.adjudicator.fuzz.mutate import Line

Grammar = Callable[[Any, str, random.Random], list[Line]]
_SPLIT = re.compile(r"\w+(?:/\w+)?|[^\w\s]+")


def tokens(text: str) -> Line:
    """A real order text as tokens (words, card labels like 6/0, punctuation runs)."""
    return _SPLIT.findall(text)


def _n(rnd: random.Random, low: int, high: int) -> str:
    return str(rnd.randint(low, high))


# Golden Strider: seed rules 2 and 5; golden_strider/orders.py
STRIDER_WORDS = (
    "cards", "card", "play", "plays", "p", "bank", "banks", "banked", "b", "stamina", "move", "moves",
    "movement", "m", "speed", "and", "then", "with", "i", "please", "orders", "round", "the",
)  # fmt: skip


def strider(state: StriderState, seat: str, rnd: random.Random) -> list[Line]:
    if state.turn == 0:
        values = [_n(rnd, 0, 10) for _ in range(rnd.choice((4, 5, 5, 5, 6)))]
        return [
            ["cards", *values],
            ["Cards", ":", "10", ",", "8", ",", "6", ",", "4", ",", "2"],
            ["cards", "6", "6", "6", "6", "6"],
            ["play", "10", "10", "10", "0", "0"],
            values,
        ]
    runner = state.runner(seat)
    labels = [c.label for c in runner.hand]
    label = rnd.choice(labels)
    value = label.split("/")[0]
    turn = label.split("/")[1]
    return [
        ["play", label, "bank", _n(rnd, 0, 10)],
        ["play", value, "bank", _n(rnd, 0, 10)],
        ["play", label, "move", _n(rnd, 0, 10), "bank", _n(rnd, 0, 10)],
        ["p", label, "b" + _n(rnd, 0, 10), "m" + _n(rnd, 0, 10)],
        ["card", f"{value}/t{turn}", ",", "banked", _n(rnd, 0, 3)],
        [label, "stamina", _n(rnd, 0, 10), "speed", _n(rnd, 0, 10)],
        ["bank", _n(rnd, 0, 5), "play", label],
        ["play", f"{_n(rnd, 0, 12)}/{_n(rnd, 0, 40)}"],
    ]


# L'autobus: seed rule 10, rulings L4-L8; lautobus/orders.py
BUS_WORDS = (
    "rider", "riders", "cyclist", "r", "c", "plays", "play", "card", "with", "zero", "z", "nil", "nought",
    "sprint", "s", "sp", "spr", ":", "=", "#", "->", "-", "(", ")",
)  # fmt: skip


def bus(state: BusState, seat: str, rnd: random.Random) -> list[Line]:
    team = sorted(state.team(seat), key=lambda c: c.rider)
    hands = {c.rider: [card.label for card in c.cards] or ["1"] for c in team}
    plays = [(str(rider), rnd.choice(cards)) for rider, cards in hands.items()]
    pairs: Line = [t for rider, card in plays for t in (rider, ":", card, ",")]
    return [
        pairs,
        [t for rider, card in plays for t in ("rider", rider, "plays", card)],
        [t for rider, card in plays for t in ("R" + rider, card, ";")],
        [t for rider, card in plays for t in ("#" + rider, "=", card)],
        [card for _, card in plays],
        ["cyclist", rnd.choice(plays)[0], ":", rnd.choice(("z", "s", "sp", "0", "nil", _n(rnd, 1, 9)))],
        [_n(rnd, 0, 7), _n(rnd, 0, 7)],
    ]


# The three-race game: seed rules 2, 3, 8, 9; three_races/orders*.py and readjust.py
RACES_WORDS = (
    "25", "55", "85", "move", "m", "mv", "turn", "first", "second", "if", "when", "then", "else", "otherwise",
    "default", "square", "place", "ahead", "behind", "of", "played", "anyone", "but", "you", "not", "and", "or",
    "me", "I", "my", "leads", "1st", "2nd", "finished", "at", "least", "more", "than", "swap", "rotate", "race",
    "r25", "<=", ">=", "!=", "<", ">", "=", ":", "/", ";",
)  # fmt: skip


def races(state: RacesState, seat: str, rnd: random.Random) -> list[Line]:
    if state.turn == 0:
        cards = [str(c) for c in range(1, 13)]
        rnd.shuffle(cards)
        hands = [cards[i : i + 4] for i in range(0, 12, 4)]
        return [
            ["25", ":", *hands[0], "/", "55", ":", *hands[1], "/", "85", ":", *hands[2]],
            ["R25", *hands[0], "R55", *hands[1]],
            ["25", "=", *hands[0], ";", "55", "=", *hands[1], ";", "85", "=", *hands[2]],
            ["55", ":", *hands[1]],
        ]
    team = state.team(seat)
    other = rnd.choice(state.seats)
    race = str(rnd.choice(RACES))

    def plain(number: str) -> Line:
        return ["move", number, ":", *[f"{r}={rnd.choice(team.hands[r])}" for r in RACES]]

    condition = rnd.choice(
        (
            [other, "square", "in", race, ">=", _n(rnd, 0, 90)],
            [race, "finished"],
            [other, "place", "in", race, "<=", _n(rnd, 1, 4)],
            [other, "ahead", "of", rnd.choice(state.seats), "in", race],
            [other, "played", _n(rnd, 1, 12), "in", race],
            ["anyone", "but", "you", "played", ">=", _n(rnd, 1, 12), "in", race],
            ["not", other, "leads", race, "and", "me", "1st", "in", race, "or", race, "finished"],
            [other, "square", "in", race, "at", "least", _n(rnd, 0, 90)],
        )
    )
    hand = team.hands[int(race)]
    return [
        plain("1"),
        plain("2"),
        ["move", "2", "if", *condition, ":", f"{race}={rnd.choice(hand)}"],
        ["if", *condition, "then", f"{race}:{rnd.choice(hand)}"],
        ["move", "2", "otherwise", ":", f"r{race}", str(rnd.choice(hand))],
        ["m1", f"{race}={_n(rnd, 0, 13)}"],
        ["swap", f"25:{rnd.choice(team.hands[25])}", f"55:{rnd.choice(team.hands[55])}"],
        ["rotate", *[f"{r}:{rnd.choice(team.hands[r])}" for r in RACES]],
        ["swap", _n(rnd, 1, 12), _n(rnd, 1, 12)],
    ]


# Strike Gold: the help text and strike_gold/orders_words.py
SLOT_FORMS: tuple[Callable[[int, int], Line], ...] = (
    lambda r, c: [f"r{r}c{c}"],
    lambda r, c: [f"R{r}C{c}"],
    lambda r, c: [f"r{r}", f"c{c}"],
    lambda r, c: [f"r{r}-c{c}"],
    lambda r, c: ["row", str(r), "col", str(c)],
    lambda r, c: ["row", str(r), "column", str(c)],
    lambda r, c: [f"c{c}r{r}"],
    lambda r, c: ["(", f"{r},{c}", ")"],
)
GOLD_WORDS = (
    "draw", "take", "pick", "up", "deck", "stock", "blind", "pile", "discard", "keep", "place", "put", "swap",
    "replace", "flip", "reveal", "turn", "over", "throw", "away", "if", "else", "otherwise", "or", "less", "more",
    "under", "at", "most", "to", "between", "and", "then", "negative", "where", "it", "clears", "a", "column",
    "row", "completes", "line", "from", "the", "top", "<=", ">=", "+", "..", ";", ",",
)  # fmt: skip


def _slot(rnd: random.Random, preferred: Sequence[int] = ()) -> Line:
    """A slot in one of the written forms: mostly one of ``preferred`` (slot numbers, e.g. the
    face-down ones), else anywhere on the grid, now and then just off it."""
    if preferred and rnd.random() < 0.7:
        row, column = divmod(rnd.choice(preferred), COLUMNS)
        return rnd.choice(SLOT_FORMS)(row + 1, column + 1)
    if rnd.random() < 0.15:
        return rnd.choice(SLOT_FORMS)(rnd.choice((0, 4, 9)), rnd.choice((0, 5, 12)))
    return rnd.choice(SLOT_FORMS)(rnd.randint(1, 3), rnd.randint(1, 4))


def gold(state: GoldState, seat: str, rnd: random.Random) -> list[Line]:
    """Mostly lines for the current stage (setup flips, a turn, the decision after a draw alone);
    now and then a line meant for another stage."""
    down = face_down_slots(state.grid(seat))
    n = lambda: _n(rnd, -3, 13)  # noqa: E731
    slot = lambda: _slot(rnd, down)  # noqa: E731
    action = lambda: rnd.choice(  # noqa: E731
        (["keep", *slot()], ["flip", *slot()], ["discard", "and", "flip", *slot()], ["keep", *slot()])
    )
    flips = lambda sep: [t for k in range(flips_due(state.round)) for t in ([sep] if k else []) + slot()]  # noqa: E731
    setup = [
        ["flip", *flips(",")],
        ["flip", *flips("and")],
        ["turn", *flips("and"), "face", "up"],
        ["reveal", *slot(), ",", *slot()],
        ["flip", *slot()],
    ]
    decide = [
        action(),
        ["if", n(), "or", "less", *action(), ";", "else", *action()],
        ["keep", "where", "it", "clears", "a", "column", ";", "otherwise", *action()],
        ["if", n() + ".." + n(), *action(), "else", "discard"],
        ["if", "negative", "keep", *slot(), "otherwise", *action()],
        [*action(), "if", "under", n(), ";", "else", *action()],
    ]
    turn = [
        ["draw", "deck", ",", *action()],
        ["draw", "discard", ",", "keep", *slot()],
        ["take", "the", "discard", "and", "keep", "it", "in", *slot()],
        ["draw", "deck", ";", "if", n(), "or", "less", *action(), ";", "else", "flip", *slot()],
        ["draw", "deck", ";", "if", "between", n(), "and", n(), *action(), ";", "otherwise", *action()],
        [
            "draw",
            "deck",
            ";",
            "keep",
            *slot(),
            "if",
            "<=",
            n(),
            ";",
            "if",
            n() + "+",
            *action(),
            ";",
            "else",
            *action(),
        ],
        ["draw", "deck", ";", "keep", "where", "it", "clears", "a", "column", ";", "else", *action()],
        ["draw", "deck", ",", "discard"],
        ["draw", "deck"],
        ["pick", "up", "the", "discard", ",", "put", "it", "at", *slot()],
    ]
    own = {Stage.SETUP: setup, Stage.DECIDE: decide}.get(state.stage, turn)
    return [*own, *own, *own, rnd.choice(setup), rnd.choice(decide), rnd.choice(turn)]


# Dragon Stripes: the help text and dragon_stripes/orders_phrases.py
DRAGON_WORDS = (
    "reveal", "hold", "take", "over", "pass", "choose", "until", "beside", "at", "stripe", "then", "if", "or",
    "more", "always", "withdraw", "run", "offer", "least", "please", "gems", "three", "twenty", "+", ">=",
)  # fmt: skip


def dragon(state: Any, seat: str, rnd: random.Random) -> list[Line]:
    seats = [p.seat for p in state.players]
    n = lambda: _n(rnd, 0, 60)  # noqa: E731
    return [
        ["reveal"],
        ["hold"],
        ["take"],
        ["take", "over"],
        ["pass"],
        ["choose", *tokens(rnd.choice(seats))],
        tokens(rnd.choice(seats)),
        ["reveal", "until", n(), "beside"],
        ["hold", "at", "stripe", _n(rnd, 0, 20)],
        ["reveal", _n(rnd, 0, 9), "then", "hold"],
        ["take", "over", "if", n(), "or", "more", "beside"],
        ["take", "over", "if", n() + "+", "beside"],
        ["take", "over", "if", "at", "least", n(), "beside"],
        ["always", "take", "over"],
        ["withdraw"],
        ["withdraw", "run"],
        ["withdraw", "offer"],
        ["reveal", "until", ">=", n(), "gems", "beside", "and", "hold", "at", "stripe", _n(rnd, 0, 20)],
    ]


GRAMMARS: dict[str, tuple[Grammar, Sequence[str]]] = {
    "dragon-stripes": (dragon, DRAGON_WORDS),
    "golden-strider": (strider, STRIDER_WORDS),
    "lautobus": (bus, BUS_WORDS),
    "strike-gold": (gold, GOLD_WORDS),
    "three-races": (races, RACES_WORDS),
}


"""The referee's games' grammars, written from their help and parsers; a game not here: :func:`grammar`."""


def grammar(kind: str) -> tuple[Grammar, Sequence[str]]:
    """``kind``'s grammar and words: :data:`GRAMMARS`' or, for a game not listed, no lines of its own (its
    computer player's text stands for them, :func:`lines_for`) and the words of its help text (a new game is
    fuzzed without an edit here)."""
    if kind in GRAMMARS:
        return GRAMMARS[kind]
    words = tuple(dict.fromkeys(tokens(registry.get_rules(kind).help_text())))
    return (lambda state, seat, rnd: []), words


def lines_for(kind: str, state: Any, seat: str, rnd: random.Random) -> tuple[list[Line], Sequence[str]]:
    """The game's lines for ``seat`` now (the computer player's among them) and its vocabulary."""
    grammar_of, words = grammar(kind)
    rules = registry.get_rules(kind)
    example = [tokens(line) for line in rules.example_orders(state, seat, rnd).splitlines() if line.strip()]
    return [*grammar_of(state, seat, rnd), *example], words
