"""A person's own settings: their private calendar's address (``CALENDAR [NEW]``), board pictures by
mail (``PICTURES ON|OFF``), their time zone (``ZONE <name>|OFF``), their quiet hours (``QUIET <from>-<to>|OFF``),
their language (``LANGUAGE fr|OFF``), their form (``FORMAT PLAIN|TABLES``), their digest
(``DIGEST DAILY [HH:MM]|TURN|OFF``), and all of them shown (``SETTINGS``).

Settings are the player's (``players``), not an address's: they hold on every channel linked to the
player, and any of those channels changes them.  A zone is an IANA name this machine knows (an unknown
one is answered with the closest names, when there are any); quiet hours are read by
:func:`bot.core.messaging.quiet_hours.parse_quiet`, and a malformed range is answered with the form.

The calendar's address is derived from the player's id and ``calendar_epoch``
(:mod:`bot.core.people.calendar_keys`): ``CALENDAR NEW`` raises the epoch, so the
old address stops working at once.  The address is a capability (whoever has it
reads the person's deadlines), so the reply carries it as a
:class:`~bot.core.model.secret_values.Secret`: its outbox row forgets it once sent.
Without web pages (``ServiceConfig.web_base_url`` empty) there is no address,
and the reply says so plainly.
"""

from __future__ import annotations

import difflib

from bot.core.basics.durations import TimeInputError, parse_zone, zone_names
from bot.core.basics.engine_words import reason
from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, SHOWN, Result, handles
from bot.core.messaging.digest_setting import parse_digest
from bot.core.messaging.quiet_hours import OFF, parse_quiet
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.model.secret_values import Secret
from bot.core.people.calendar_keys import calendar_key, calendar_url
from bot.core.people.languages import LANGUAGES, UnknownLanguage, parse_language
from bot.core.people.text_formats import UnknownFormat, parse_format, stored_format
from bot.store.models import Player


def calendar_address(player: Player, config: ServiceConfig) -> Secret | None:
    """The address of ``player``'s private calendar now, as a secret of the reply; None without web pages."""
    url = calendar_url(config.web_base_url, calendar_key(player.id, player.calendar_epoch, config.secret_key))
    return None if url is None else Secret(url)


@handles(c.ShowCalendar)
def show_calendar(ctx: CommandContext, command: c.ShowCalendar) -> Result:
    line = "CALENDAR NEW" if command.new else "CALENDAR"
    if not ctx.config.web_base_url.strip():
        ctx.reply.problem(line, "no_calendar_address")
        return REFUSED
    player = ctx.sender_player()
    if command.new:
        player.calendar_epoch = (player.calendar_epoch or 0) + 1
    ctx.reply.add("calendar", url=calendar_address(player, ctx.config), new=command.new)
    return DONE if command.new else SHOWN


@handles(c.SetPictures)
def set_pictures(ctx: CommandContext, command: c.SetPictures) -> Result:
    player = ctx.sender_player()
    player.board_pictures = command.on
    ctx.reply.add("pictures", on=command.on)
    return DONE


@handles(c.SetZone)
def set_zone(ctx: CommandContext, command: c.SetZone) -> Result:
    line = f"ZONE {command.zone}"
    player = ctx.sender_player()
    if command.zone.strip().upper() == OFF:
        player.time_zone = None
        ctx.reply.add("zone_set", zone=None)
        return DONE
    try:
        zone = parse_zone(command.zone)
    except TimeInputError as error:
        ctx.reply.problem(line, "unknown_zone", reason=reason(error), close=close_zones(command.zone))
        return REFUSED
    player.time_zone = zone.key
    ctx.reply.add("zone_set", zone=zone.key)
    return DONE


def close_zones(name: str, many: int = 3) -> list[str]:
    """Up to ``many`` zone names close to ``name`` (as written, or its last part: ``Hanoi``, ``Europe/Pari``)."""
    names = zone_names()
    wanted = name.strip().lower()
    found = difflib.get_close_matches(wanted, list(names), n=many, cutoff=0.75)
    if len(found) < many:
        cities = {key.rsplit("/", 1)[-1]: key for key in names}
        found += [cities[city] for city in difflib.get_close_matches(wanted.rsplit("/", 1)[-1], list(cities), n=many)]
    return [names[key] for key in dict.fromkeys(found)][:many]


@handles(c.SetQuiet)
def set_quiet(ctx: CommandContext, command: c.SetQuiet) -> Result:
    try:
        quiet = parse_quiet(command.hours)
    except TimeInputError as error:
        ctx.reply.problem(f"QUIET {command.hours}", "bad_time", reason=reason(error))
        return REFUSED
    player = ctx.sender_player()
    player.quiet_hours = None if quiet is None else str(quiet)
    ctx.reply.add("quiet_set", hours=player.quiet_hours, zone=player.time_zone or "UTC")
    return DONE


@handles(c.SetLanguage)
def set_language(ctx: CommandContext, command: c.SetLanguage) -> Result:
    player = ctx.sender_player()
    if command.language.strip().upper() == OFF:
        player.language = None
        ctx.reply.add("language_set", language=None, name=None)
        return DONE
    try:
        player.language = parse_language(command.language)
    except UnknownLanguage as error:
        ctx.reply.problem(f"LANGUAGE {command.language}", "unknown_language", reason=reason(error))
        return REFUSED
    ctx.reply.add("language_set", language=player.language, name=LANGUAGES[player.language])
    return DONE


@handles(c.SetFormat)
def set_format(ctx: CommandContext, command: c.SetFormat) -> Result:
    try:
        form = parse_format(command.form)
    except UnknownFormat as error:
        ctx.reply.problem(f"FORMAT {command.form}", "unknown_format", reason=reason(error))
        return REFUSED
    player = ctx.sender_player()
    player.text_format = stored_format(form)
    ctx.reply.add("format_set", form=form)
    return DONE


@handles(c.SetDigest)
def set_digest(ctx: CommandContext, command: c.SetDigest) -> Result:
    try:
        digest = parse_digest(command.when)
    except TimeInputError as error:
        ctx.reply.problem(f"DIGEST {command.when}", "bad_time", reason=reason(error))
        return REFUSED
    player = ctx.sender_player()
    player.digest = None if digest is None else str(digest)
    ctx.reply.add("digest_set", digest=player.digest, zone=player.time_zone or "UTC")
    return DONE


@handles(c.ShowSettings)
def show_settings(ctx: CommandContext, command: c.ShowSettings) -> Result:
    player = ctx.sender_player()
    ctx.reply.add(
        "settings", zone=player.time_zone, quiet=player.quiet_hours, pictures=bool(player.board_pictures),
        language=player.language, form=player.text_format, digest=player.digest,
    )  # fmt: skip
    return SHOWN
