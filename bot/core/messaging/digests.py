"""The digest's one rule: which person's copies are gathered into a digest, and when a digest is due.

A person with a digest (``DIGEST DAILY 08:00`` or ``DIGEST TURN``, ``players.digest``:
:mod:`bot.core.messaging.digest_setting`) gets their press, notices and reminders gathered
(:func:`gathered`): delivery (:mod:`bot.core.messaging.delivery`) writes such a copy as a *digest item*
(``digest_items``) instead of outbox rows, and the digest pass (:mod:`bot.core.messaging.digest_pass`)
writes the items that are due as one ordinary message, ``digest``.

What is gathered: a person's copy of outbox kind ``notice`` (press, a notice of others' actions, a
reminder), unless it is in :data:`NEVER_GATHERED` or carries a secret other than press text
(:data:`SECRET_GATHERED`).  Never gathered: reports and replies (another kind), a message that carries a
credential (a GM's password), and the notices a person
is waiting for or must act on at once (:data:`NEVER_GATHERED`): a seat offer with its deadline, a late
notice (the grace is minutes), a link code, a lock-out, a link or unlink of their own addresses, a copy
of their own orders, and the digest itself.  Unlike quiet hours
(:data:`bot.core.messaging.quiet_hours.NEVER_HELD`), a reminder is gathered: the person asked for it.

When a digest is due (:func:`due_before`, :func:`turn_over`):

* ``DAILY HH:MM``: the items created before the latest moment the person's clock (``players.time_zone``;
  UTC without one) showed ``HH:MM`` (a time the clocks skip that day: the moment they jump over it);
* ``TURN``: the items of one game's turn, once that turn is resolved (the game's turn moved past it)
  or the game is over; one digest per game per turn;
* none (``DIGEST OFF``, or a setting that no longer reads): every waiting item, at once.

The digest itself is a notice that can wait: inside the person's quiet hours it is held until they end
(:mod:`bot.core.messaging.quiet_hours`), reminders in it too.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.core.basics.durations import jump_over
from bot.core.messaging.digest_setting import DAILY, Digest
from bot.core.model.outcomes import NOTICE

DIGEST_TEMPLATE = "digest"
"""The template of the digest itself (``templates/<form>/digest.txt.j2``)."""

NEVER_GATHERED = frozenset({
    "seat_offer", "late_notice", "link_code", "password_locked", "linked", "unlinked", "orders_copy",
    "orders_elsewhere", DIGEST_TEMPLATE,
})  # fmt: skip
"""Notice templates that are never gathered (see the module docstring)."""


SECRET_GATHERED = frozenset({"press", "press_gm_copy"})
"""Templates whose secret is no credential but press a game does not keep (``PRESS RECORD no``): gathered,
the digest carrying it as a secret in turn (forgotten once sent)."""


def gathered(kind: str, template: str, secret: bool = False) -> bool:
    """Whether a person's copy of outbox ``kind`` and ``template`` is gathered into their digest when they
    have one (``secret``: the message carries a secret, gathered only for :data:`SECRET_GATHERED`)."""
    return kind == NOTICE and template not in NEVER_GATHERED and (not secret or template in SECRET_GATHERED)


def due_before(digest: Digest | None, time_zone: str | None, now: datetime) -> datetime | None:
    """The moment (UTC) before which a person's items were created to be due at ``now``.

    ``DAILY``: the latest moment at or before ``now`` when the person's clock showed the digest's time;
    no digest: ``now`` itself plus a microsecond (everything waiting); ``TURN``: None (due by turn:
    :func:`turn_over`)."""
    if digest is None:
        return now + timedelta(microseconds=1)
    if digest.mode != DAILY or digest.at is None:
        return None
    try:
        zone = ZoneInfo(time_zone or "UTC")
    except (ValueError, KeyError):
        zone = ZoneInfo("UTC")
    day = now.astimezone(zone).date()
    for back in range(3):
        moment = _shown(datetime.combine(day - timedelta(days=back), digest.at), zone)
        if moment <= now:
            return moment
    return now  # not reached: a wall-clock time is shown every day, at most a day ago


def _shown(wall: datetime, zone: ZoneInfo) -> datetime:
    """The first moment clocks in ``zone`` show ``wall`` (naive), or the jump over it when they skip it."""
    jump = jump_over(wall, zone)
    return wall.replace(tzinfo=zone, fold=0).astimezone(UTC) if jump is None else jump


def turn_over(item_turn: int | None, game_turn: int, game_over: bool) -> bool:
    """Whether a ``TURN`` digest item of turn ``item_turn`` is due: its game's turn (``game_turn``) moved
    past it, or the game is over (an item without a turn is due at once)."""
    return game_over or item_turn is None or game_turn > item_turn
