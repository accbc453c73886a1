"""Order commitments: the canonical byte form (version 1), the keyed hash, and checking a turn.

The vectors are computed here again with ``hashlib``/``hmac`` from the form the module
docstring of :mod:`adjudicator.order_commitments` writes down, so a change to the form or
the key derivation fails these tests; one vector is also pinned as hex.
"""

from __future__ import annotations

import hashlib
import hmac

import pytest

from adjudicator.order_commitments import (
    canonical_form,
    canonical_orders,
    check_turn,
    order_commitment,
    seat_salt,
    short_commitment,
)


def independent(seed: str, game: str, turn: int, seat: str, orders: str) -> str:
    """The commitment as the docstring describes it, written out by hand."""

    def ns(b: bytes) -> bytes:
        return b"%d:%s," % (len(b), b)

    lines = [line.rstrip() for line in orders.split("\n")]
    body = "\n".join(line for line in lines if line.strip()).encode()
    message = ns(b"referee-orders-v1") + ns(game.encode()) + ns(str(turn).encode()) + ns(seat.encode()) + ns(body)
    salt = hmac.new(seed.encode(), b"orders-salt:" + seat.encode(), hashlib.sha256).digest()
    return hmac.new(salt, message, hashlib.sha256).hexdigest()


@pytest.mark.parametrize(
    ("game", "turn", "seat", "orders", "expected"),
    [
        ("gs1", 0, "A", "play 10/0 bank 0", b"17:referee-orders-v1,3:gs1,1:0,1:A,16:play 10/0 bank 0,"),
        ("gs1", 12, "Ann", "a\nb", b"17:referee-orders-v1,3:gs1,2:12,3:Ann,3:a\nb,"),
        # trailing blanks, CRLF, empty lines and a final newline do not change the form
        ("gs1", 3, "B", "a  \r\n\r\nb\n", b"17:referee-orders-v1,3:gs1,1:3,1:B,3:a\nb,"),
        # lengths count UTF-8 bytes, not characters
        ("jeu", 1, "Zoë", "é", "17:referee-orders-v1,3:jeu,1:1,4:Zoë,2:é,".encode()),
        # a seat with a comma and colon cannot shift into the orders field
        ("g", 1, "A,1:x", "", b"17:referee-orders-v1,1:g,1:1,5:A,1:x,0:,"),
    ],
)
def test_canonical_form_table(game, turn, seat, orders, expected):
    assert canonical_form(game, turn, seat, orders) == expected


def test_canonical_orders_keep_inner_spaces_and_order():
    assert canonical_orders(" play 1  \nbank 2\n\n") == " play 1\nbank 2"
    assert canonical_orders("b\na") != canonical_orders("a\nb")


def test_a_negative_turn_is_refused():
    with pytest.raises(ValueError, match="never negative"):
        canonical_form("g", -1, "A", "x")


@pytest.mark.parametrize(
    ("seed", "game", "turn", "seat", "orders"),
    [
        ("seed-1", "gs1", 0, "A", "cards 10 8 6 4 2"),
        ("seed-1", "gs1", 1, "A", "cards 10 8 6 4 2"),
        ("seed-1", "gs1", 0, "B", "cards 10 8 6 4 2"),
        ("seed-2", "gs1", 0, "A", "cards 10 8 6 4 2"),
        ("seed-1", "gs2", 0, "A", "cards 10 8 6 4 2"),
        ("ünïcode seed", "sg-7", 41, "Sebastian Coe", "take 3\nstop"),
    ],
)
def test_known_vectors_match_an_independent_computation(seed, game, turn, seat, orders):
    assert order_commitment(seed, game, turn, seat, orders) == independent(seed, game, turn, seat, orders)


def test_every_field_and_the_seed_change_the_commitment():
    base = ("seed-1", "gs1", 0, "A", "play 10/0 bank 0")
    variants = [
        ("seed-2", "gs1", 0, "A", "play 10/0 bank 0"),
        ("seed-1", "gs2", 0, "A", "play 10/0 bank 0"),
        ("seed-1", "gs1", 1, "A", "play 10/0 bank 0"),
        ("seed-1", "gs1", 0, "B", "play 10/0 bank 0"),
        ("seed-1", "gs1", 0, "A", "play 10/0 bank 1"),
    ]
    found = {order_commitment(*v) for v in [base, *variants]}
    assert len(found) == 6


def test_pinned_vector():
    """A fixed answer, so that the form can never drift silently (a new form gets a new version)."""
    pinned = "6d9de973dc63bf45bd00786111d5f7472b5067a4ba30551abf1d80143fe86f61"
    assert order_commitment("seed-1", "gs1", 0, "A", "play 10/0 bank 0") == pinned
    assert independent("seed-1", "gs1", 0, "A", "play 10/0 bank 0") == pinned


def test_salts_differ_by_seat_and_seed():
    assert seat_salt("s", "A") != seat_salt("s", "B") != seat_salt("t", "B")
    assert seat_salt("s", "A") == hmac.new(b"s", b"orders-salt:A", hashlib.sha256).digest()


def test_short_form_fits_a_mail_line_and_is_a_prefix():
    full = order_commitment("seed-1", "gs1", 0, "A", "x")
    short = short_commitment(full)
    assert len(short) == 39 and short.count(" ") == 7
    assert full.startswith(short.replace(" ", ""))


@pytest.mark.parametrize(
    ("orders", "published", "message"),
    [
        ({"A": "x", "B": "y"}, {"A": "good", "B": "good"}, None),
        ({"A": "x", "B": "CHANGED"}, {"A": "good", "B": "good:y"}, "turn 4, seat B: the orders do not match"),
        ({"A": "x", "B": "y"}, {"A": "good"}, "turn 4, seat B: the record holds orders but no commitment"),
        ({"A": "x"}, {"A": "good", "B": "good:y"}, "turn 4, seat B: a commitment was published but"),
        ({"A": "x"}, {"A": "0" * 64}, "turn 4, seat A: the orders do not match"),
        ({"A": "x"}, {"A": "ünïcode"}, "turn 4, seat A: the orders do not match"),
        ({}, {}, None),
    ],
)
def test_check_turn_table(orders, published, message):
    """The attack: one order changed, a commitment dropped or added, a forged or non-hex digest."""

    def resolve(seat: str, value: str) -> str:
        if value == "good":
            return order_commitment("seed", "g", 4, seat, orders[seat])
        if value.startswith("good:"):
            return order_commitment("seed", "g", 4, seat, value[5:])
        return value

    given = {seat: resolve(seat, value) for seat, value in published.items()}
    found = check_turn("seed", "g", 4, orders, given)
    if message is None:
        assert found is None
    else:
        assert found is not None and str(found).startswith(message)


def test_upper_case_hex_is_accepted():
    digest = order_commitment("seed", "g", 0, "A", "x")
    assert check_turn("seed", "g", 0, {"A": "x"}, {"A": digest.upper()}) is None
