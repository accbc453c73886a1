"""What the core needs from the host's settings: one frozen value, passed explicitly (never global).

``bot.host.wiring`` builds it from the settings; tests build it directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TEST_ONLY_SECRET_KEY = b"test-only key for seat secrets: never use it to serve real games"
"""The default of ``ServiceConfig.secret_key``: for tests only; ``bot.host.wiring`` always passes the real key."""


@dataclass(frozen=True)
class ServiceConfig:
    """What the core needs from the settings (passed explicitly, never global)."""

    message_domain: str = "referee.invalid"
    """The domain of the stable Message-IDs of outgoing messages."""
    default_turn_minutes: int = 48 * 60
    default_offer_minutes: int = 12 * 60
    default_decision_minutes: int = 24 * 60
    default_time_zone: str = "UTC"
    """A new game's time zone when its creator names none (the ``time_zone`` setting)."""
    public_channels: tuple[str, ...] = ()
    """Channels that have a public place for every game (its public copies go there)."""
    status_channels: tuple[str, ...] = ()
    """Channels that keep each game's live status in its public place, changed in place (:mod:`bot.core.messaging.status_board`)."""
    host_recipients: tuple[tuple[str, str], ...] = ()
    """(channel, address) pairs that reach the host (parked turns and other host notices)."""
    game_masters: frozenset[str] = field(default_factory=frozenset)
    """Addresses the host allows to create games."""
    turn_max_attempts: int = 5
    """Failed resolutions of one turn before it is parked."""
    turn_retry_seconds: int = 30
    """First retry delay of a failed resolution (doubling)."""
    secret_key: bytes = field(default=TEST_ONLY_SECRET_KEY, repr=False)
    """The key of the seat-secret hashes (bot.core.people.seat_secrets), kept outside the database."""
    inline_channels: tuple[str, ...] = ()
    """Channels that answer in the moment and get nothing through the outbox (the host's command line)."""
    intakes: tuple[str, ...] = ()
    """The intakes whose watermarks a deadline waits for (:mod:`bot.core.intake.watermarks`)."""
    intake_wait_seconds: float = 300.0
    """How long past its deadline a turn waits for an intake that is behind, before it resolves anyway."""
    web_base_url: str = ""
    """Where the web channel's pages are read (``https://referee.club.org``), for links in messages;
    empty: no web pages, so messages carry no links."""

    def page_of(self, slug: str) -> str | None:
        """The web page of game ``slug`` (``<web_base_url>/games/<slug>``), or None: no web pages."""
        return f"{self.web_base_url.rstrip('/')}/games/{slug}" if self.web_base_url else None
