"""Outcomes: what a command or a turn wants said, to whom, as data.

A handler never writes text for a channel.  It returns (or adds to the
pipeline) :class:`Outcome` values: an audience and a :class:`Message`, which
is a template name plus plain JSON data.  The delivery step
(:mod:`bot.core.messaging.delivery`) resolves each audience to the channels that reach
it and writes outbox rows; each channel's sender renders the message in its
own form (``templates/<form>/<template>...``).

Audiences:

* :class:`ToSender`: the one reply to the envelope being applied;
* :class:`ToPlayer`: a person, on every channel linked to them;
* :class:`ToAddress`: one channel address, linked to anyone or no one (a link code);
* :class:`ToGameMasters`: the game's GM(s);
* :class:`ToPublic`: the game's public place on each channel that has one
  (a Discord forum post, the demo's screen); nowhere when none is configured;
* :class:`ToHost`: the host (the people named in ``host_addresses``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.basics.engine_words import kept
from bot.core.model.secret_values import any_secret

REPLY = "reply"
REPORT = "report"
NOTICE = "notice"
STATUS = "status"
KINDS = (REPLY, REPORT, NOTICE, STATUS)
"""Outbox kinds: the reply to a message, a game's report or announcement, a notice to one person,
a game's live status (one coalescing row per game: :mod:`bot.core.messaging.status_board`)."""


@dataclass(frozen=True)
class Message:
    """What to say: a template name (``reply``, ``report``, ``started``, ``notice`` ...) and its plain data.

    ``secret``: the data holds a :class:`~bot.core.model.secret_values.Secret` (a password or a code), which
    its outbox rows forget once sent.  Found among the data's own values; a reply says it of its items.
    """

    template: str
    data: Mapping[str, Any]
    secret: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", kept(self.data))  # an engine's words keep their pattern (engine_words)
        if not self.secret and any_secret(self.data.values()):
            object.__setattr__(self, "secret", True)


@dataclass(frozen=True)
class ToSender:
    """The sender of the envelope being applied (the reply)."""


@dataclass(frozen=True)
class ToPlayer:
    """One person, on every channel that reaches them; ``seat`` names the copy (private parts) if any."""

    player_id: int
    seat: str | None = None


@dataclass(frozen=True)
class ToGameMasters:
    """The game masters of the game."""

    game_id: int


@dataclass(frozen=True)
class ToPublic:
    """The game's public place on every channel that has one."""

    game_id: int


@dataclass(frozen=True)
class ToAddress:
    """One address on one channel, whoever it belongs to (a code that proves the address: bot/core/commands/linking.py)."""

    channel: str
    address: str


@dataclass(frozen=True)
class ToHost:
    """The host of this referee."""


Audience = ToSender | ToPlayer | ToAddress | ToGameMasters | ToPublic | ToHost


@dataclass(frozen=True)
class Outcome:
    """One message for one audience.

    ``key`` makes the message unique per recipient (its stable Message-ID is
    derived from it), so writing the same outcome twice cannot send it twice.
    """

    audience: Audience
    message: Message
    kind: str
    key: str
    game_id: int | None = None
    turn_number: int | None = None
    context: Mapping[str, Any] = field(default_factory=dict)
