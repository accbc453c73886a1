"""A new game's settings, read and checked before anything is stored (create).

Every setting a GM gives as text is read here with the time arithmetic of
:mod:`bot.core.basics.durations` and :mod:`bot.core.turns.schedule`; a mistake raises
ValueError with a one-line reason that names the setting, which the create
command answers as a refusal (nothing is created).
"""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfo

from adjudicator.words import say
from bot.core.basics.durations import TimeInputError, parse_duration, parse_zone
from bot.core.basics.engine_words import reason
from bot.core.model import commands as c
from bot.core.turns.reminder_times import format_reminders, parse_reminders
from bot.core.turns.schedule import parse_schedule

AUTH_MODES = ("password", "address")
JOIN_POLICIES = ("anyone", "invited")
PRESS_MODES = c.PRESS_MODES
MAX_READY_MINUTES = 30 * 24 * 60
"""The longest ready check's window (a seat held a month without a word is the stall it prevents)."""
MAX_MISSED_TURNS = 20
"""The most missed turns in a row ``SUBSTITUTE AFTER`` may wait for."""


@dataclass(frozen=True)
class GameSettings:
    """What :func:`read_settings` found, in stored form."""

    zone: ZoneInfo
    schedule: str
    min_gap_minutes: int
    early_delay: int | None
    """Minutes after the last order; None: no early processing."""
    grace_minutes: int
    reminders: str
    ready_minutes: int = 0
    """The ready check's window (0: no ready check)."""


def _minutes(name: str, text: str) -> int:
    try:
        return int(parse_duration(text, allow_seconds=False).total_seconds() // 60)
    except TimeInputError as exc:
        raise ValueError(say("{setting}: {reason}", setting=name, reason=reason(exc))) from None


def player_count(least: int, most: int) -> str:
    """How many players a game takes, in words: "5 players", "2 to 8 players"."""
    return (
        say("{count} players", count=least)
        if least == most
        else say("{least} to {most} players", least=least, most=most)
    )


def read_settings(command: c.CreateGame, min_seats: int, max_seats: int, default_zone: str = "UTC") -> GameSettings:
    """The settings of ``command``, checked against the game's seat range; ValueError naming the setting.

    A command that names no time zone takes ``default_zone``, the host's ``time_zone`` setting.
    """
    try:
        zone = parse_zone(command.time_zone.strip() or default_zone)
    except TimeInputError as exc:
        raise ValueError(say("time zone: {reason}", reason=reason(exc))) from None
    try:
        schedule = str(parse_schedule(command.schedule)) if command.schedule.strip() else ""
    except TimeInputError as exc:
        raise ValueError(say("schedule: {reason}", reason=reason(exc))) from None
    if command.early_delay is not None:
        early: int | None = _minutes("early", command.early_delay)
    else:
        early = 0 if command.early_processing else None
    try:
        reminders = format_reminders(parse_reminders(command.reminders))
    except TimeInputError as exc:
        raise ValueError(say("reminders: {reason}", reason=reason(exc))) from None
    if command.auth not in AUTH_MODES:
        raise ValueError(
            say("auth: expected one of {known}, not {given}", known=", ".join(AUTH_MODES), given=repr(command.auth))
        )
    if command.join not in JOIN_POLICIES:
        raise ValueError(
            say("join: expected one of {known}, not {given}", known=", ".join(JOIN_POLICIES), given=repr(command.join))
        )
    for name, value in (("seats", command.seats), ("max-seats", command.max_seats)):
        if value is not None and not min_seats <= value <= max_seats:
            raise ValueError(
                say(
                    "{setting}: this game takes {count}, not {given}",
                    setting=name,
                    count=player_count(min_seats, max_seats),
                    given=value,
                )
            )
    if command.seats is not None and command.max_seats is not None and command.seats > command.max_seats:
        raise ValueError(
            say("seats: {seats} is more than max-seats {most}", seats=command.seats, most=command.max_seats)
        )
    if command.press not in PRESS_MODES:
        raise ValueError(
            say("press: expected one of {known}, not {given}", known=", ".join(PRESS_MODES), given=repr(command.press))
        )
    ready = command.ready_check.strip().lower()
    ready_minutes = 0 if ready in ("", "0", "off", "no", "none") else _minutes("ready", ready)
    if ready and ready_minutes == 0 and ready not in ("", "0", "off", "no", "none"):
        raise ValueError(say("ready: a window of at least a minute, or off"))
    if ready_minutes > MAX_READY_MINUTES:
        raise ValueError(say("ready: a window of at most 30 days"))
    if command.min_reliability is not None and not 0 <= command.min_reliability <= 100:
        raise ValueError(say("min-reliability: a percentage from 0 to 100, not {given}", given=command.min_reliability))
    if not 0 <= command.substitute_after <= MAX_MISSED_TURNS:
        raise ValueError(
            say("substitute after: a number of missed turns from 0 (never) to {most}", most=MAX_MISSED_TURNS)
        )
    if command.absence_limit_days < 0:
        raise ValueError(say("absence limit: expected a number of days, 0 or more"))
    return GameSettings(
        zone=zone,
        schedule=schedule,
        min_gap_minutes=_minutes("min-gap", command.min_gap),
        early_delay=early,
        grace_minutes=_minutes("grace", command.grace),
        reminders=reminders,
        ready_minutes=ready_minutes,
    )
