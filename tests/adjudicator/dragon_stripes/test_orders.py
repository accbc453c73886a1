"""Order syntax: accepted variants, rejected text with its message, canonical round trip, notes."""

from __future__ import annotations

import pytest

from adjudicator.games.dragon_stripes.orders import Answer, Orders
from adjudicator.games.dragon_stripes.state import RunOrder, Step
from tests.adjudicator.dragon_stripes.scenario import RULES, play, position

DECIDE = position({"A": 40, "B": 40, "C": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1")
OFFER = play(DECIDE, {"A": "hold"}).state
CHOOSE = play(
    play(
        position(
            {"A": 40, "B": 40, "C": 40},
            active="A",
            knight=5,
            beside=7,
            seen="F2 F3",
            takeover_selection="holder_chooses",
        ),
        {"A": "hold"},
    ).state,
    {"B": "take", "C": "take"},
).state


def read(state, text, seat=None):
    seat = seat or RULES.phase(state).owing[0]
    return RULES.parse_orders(state, seat, text)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("reveal", "reveal"),
        ("Reveal!", "reveal"),
        ("  REVEAL  another card, please ", "reveal"),
        ("draw", "reveal"),
        ("I'll reveal the next card", "reveal"),
        ("hold", "hold"),
        ("Hold.", "hold"),
        ("I hold, thanks", "hold"),
        ("stick", "hold"),
        ("reveal until 30 beside", "reveal until 30 beside"),
        ("Reveal until 30+ gems beside", "reveal until 30 beside"),
        ("keep revealing until there are at least 30 gems beside the knight", "reveal until 30 beside"),
        ("reveal until beside >= 30", "reveal until 30 beside"),
        ("hold at more than 29 beside", "reveal until 30 beside"),
        ("hold at stripe 12", "hold at stripe 12"),
        ("Hold when the knight reaches the 12th stripe", "hold at stripe 12"),
        ("reveal until stripe twelve", "hold at stripe 12"),
        ("reveal 3 then hold", "reveal 3 then hold"),
        ("Reveal three more cards, then hold", "reveal 3 then hold"),
        ("reveal 2 and hold", "reveal 2 then hold"),
        ("reveal until 30 beside or stripe 12", "reveal until 30 beside\nhold at stripe 12"),
        ("hold\ntake over if 25 or more beside", "hold\ntake over if 25 or more beside"),
        ("reveal; Take over if 25+ beside", "reveal\ntake over if 25 or more beside"),
        ("hold\nalways take over", "hold\nalways take over"),
        ("withdraw offer\nreveal", "withdraw offer\nreveal"),
        ("Cancel my take-over offer\nhold", "withdraw offer\nhold"),
        ("withdraw\nhold", "withdraw run\nwithdraw offer\nhold"),
        ("withdraw offer\nhold\ntake over if 9 or more beside", "hold\ntake over if 9 or more beside"),
    ],
)
def test_decision_variants(text, canonical):
    parsed = read(DECIDE, text)
    assert parsed.errors == ()
    assert parsed.canonical == canonical
    assert read(DECIDE, parsed.canonical).orders == parsed.orders


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("take", Orders(answer=Answer.TAKE)),
        ("Take over!", Orders(answer=Answer.TAKE)),
        ("yes", Orders(answer=Answer.TAKE)),
        ("pass", Orders(answer=Answer.PASS)),
        ("No thanks.", Orders(answer=Answer.PASS)),
        ("I do not take over", Orders(answer=Answer.PASS)),
        ("take over if 25 or more beside", Orders(offer=25)),
        ("pass\nreveal until 20 beside", Orders(answer=Answer.PASS, run=RunOrder(beside=20))),
    ],
)
def test_offer_variants(text, expected):
    parsed = read(OFFER, text)
    assert parsed.errors == ()
    assert parsed.orders == expected
    assert read(OFFER, parsed.canonical).orders == expected


def test_choose_variants_and_round_trip():
    for text in ("choose C", "Choose c.", "pick C", "C", "accept C"):
        parsed = read(CHOOSE, text)
        assert parsed.orders == Orders(choose="C"), text
        assert parsed.canonical == "choose C"
    assert read(CHOOSE, "choose A").errors[0].message == "only B, C offered to take over: choose one of them"


@pytest.mark.parametrize(
    ("state", "text", "message"),
    [
        (DECIDE, "take", "take answers a take-over offer; it is your own decision now: reveal or hold"),
        (DECIDE, "pass", "pass answers a take-over offer"),
        (DECIDE, "blah", "not understood; expected reveal, hold, or a standing order"),
        (DECIDE, "reveal 2", "to reveal several cards write 'reveal 3 then hold'"),
        (DECIDE, "hold at 12", "could not read '12' as a condition"),
        (DECIDE, "hold at stripe 20", "stripes run from 1 to 17"),
        (DECIDE, "reveal until 0 beside", "at least 1"),
        (DECIDE, "take over if stripe 5", "a standing offer names gems beside the knight"),
        (OFFER, "reveal", "it is A's run: answer take or pass"),
        (OFFER, "hold", "it is A's run"),
        (CHOOSE, "take", "choose one of B, C"),
    ],
)
def test_rejected_text_quotes_the_line_and_says_what_was_expected(state, text, message):
    parsed = read(state, text)
    assert not parsed.accepted
    assert parsed.errors[0].line == text
    assert message in parsed.errors[0].message


def test_missing_decision_rejects_the_whole_message():
    parsed = read(DECIDE, "take over if 25 or more beside")
    assert not parsed.accepted
    assert "no decision given, so nothing was accepted" in parsed.errors[-1].message
    assert not read(OFFER, "withdraw").accepted
    assert "no decision" in read(DECIDE, "").errors[0].message


def test_a_second_answer_is_an_error_and_the_first_is_used():
    parsed = read(DECIDE, "reveal\nhold")
    assert parsed.orders == Orders(answer=Answer.REVEAL)
    assert parsed.errors[0].line == "hold" and "first one (reveal) is used" in parsed.errors[0].message


def test_notes_echo_how_each_order_was_read():
    notes = read(DECIDE, "stop").notes
    assert notes[0] == "'stop' read as hold"
    assert "you hold with 7 gems beside the knight; the others may take over for 7 gems" in notes[1]
    notes = read(DECIDE, "reveal\nreveal until 30 beside").notes
    assert notes[1].startswith("standing run order: you reveal, and hold as soon as 30 or more gems are beside")
    assert "after this card" in notes[1]
    notes = read(OFFER, "take over if 5 or more beside").notes
    assert notes[0].endswith("it answers this offer too: take")
    notes = read(OFFER, "pass\nreveal 2 then hold").notes
    assert "waits for your next run" in notes[1]
    assert read(OFFER, "take").notes[0].startswith("take: you offer to take over A's run, paying 7 gems")


def test_phase_steps_for_the_fixtures():
    assert (DECIDE.step, OFFER.step, CHOOSE.step) == (Step.DECIDE, Step.OFFER, Step.CHOOSE)


def test_format_of_default_orders():
    assert RULES.format_orders(DECIDE, "A", RULES.default_orders(DECIDE, "A")) == "hold"
    assert RULES.format_orders(OFFER, "B", RULES.default_orders(OFFER, "B")) == "pass"
    assert RULES.format_orders(CHOOSE, "A", RULES.default_orders(CHOOSE, "A")) == "choose B"
