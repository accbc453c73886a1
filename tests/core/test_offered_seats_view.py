"""``GameViews.offered_seats``: the seats up for a substitute, as a channel suggests them to ``TAKE``.

What it lists is what the offer made public (the game's post and page say the seat
needs a player): a seat put up by its game master, until it is withdrawn or taken;
only in running or paused games; in game and seat order.
"""

from __future__ import annotations

from typing import Any

from bot.core.model import commands as c
from bot.core.views import GameViews, OfferedSeat
from tests.core.harness import Harness


def test_the_seats_up_for_a_substitute_by_game_until_withdrawn_or_taken(sessions: Any) -> None:
    harness = Harness(sessions)
    views = GameViews(sessions)
    harness.golden_strider_game("gs2")
    harness.golden_strider_game("gs1")
    harness.send("GM", c.CreateGame("forming", "golden-strider", {}, "UTC", 60, False, "address"))
    assert views.offered_seats() == []

    for game, seat in (("gs2", "Cat"), ("gs1", "Fay"), ("gs1", "Ben")):
        put_up = harness.send("GM", c.OfferSeat(game, seat, reason="no orders"))
        assert put_up.applied.results == ("seat_put_up",), put_up.reply
    golden = "Golden Strider"
    assert views.offered_seats() == [OfferedSeat("gs1", golden, "Ben"), OfferedSeat("gs1", golden, "Fay"),
                                     OfferedSeat("gs2", golden, "Cat")]  # fmt: skip
    assert views.offered_seats(" GS2 ") == [OfferedSeat("gs2", golden, "Cat")]
    assert views.offered_seats("forming") == [] and views.offered_seats("nosuch") == []

    withdrawn = harness.send("GM", c.OfferSeat("gs1", "Fay", "withdraw"))
    assert withdrawn.applied.results == ("offer_withdrawn",), withdrawn.reply
    taken = harness.send("Zed", c.TakeSeat("gs2", "Cat"))  # the game's GM accepts: Zed waits, the seat stays up
    assert taken.applied.results == ("take_waiting",), taken.reply
    assert views.offered_seats() == [OfferedSeat("gs1", golden, "Ben"), OfferedSeat("gs2", golden, "Cat")]
    accepted = harness.send("GM", c.OfferSeat("gs2", "Cat", "accept"))
    assert accepted.applied.results == ("substitute_accepted",), accepted.reply
    assert views.offered_seats() == [OfferedSeat("gs1", golden, "Ben")]

    harness.send("GM", c.PauseGame("gs1", "a holiday"))
    assert views.offered_seats() == [OfferedSeat("gs1", golden, "Ben")]
    harness.send("GM", c.EndGame("gs1", "done"))
    assert views.offered_seats() == []
