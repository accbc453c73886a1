"""A person's own settings: their private calendar's address (``CALENDAR [NEW]``) and board pictures by
mail (``PICTURES ON|OFF``).

The calendar's address is derived from the player's id and ``calendar_epoch``
(:mod:`bot.core.people.calendar_keys`): ``CALENDAR NEW`` raises the epoch, so the
old address stops working at once.  The address is a capability (whoever has it
reads the person's deadlines), so the reply carries it as a
:class:`~bot.core.model.secret_values.Secret`: its outbox row forgets it once sent.
Without web pages (``ServiceConfig.web_base_url`` empty) there is no address,
and the reply says so plainly.
"""

from __future__ import annotations

from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, SHOWN, Result, handles
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.model.secret_values import Secret
from bot.core.people.calendar_keys import calendar_key, calendar_url
from bot.core.people.identities import find_or_create_player
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
    player = find_or_create_player(ctx.session, ctx.envelope.sender, ctx.now)
    if command.new:
        player.calendar_epoch = (player.calendar_epoch or 0) + 1
    ctx.reply.add("calendar", url=calendar_address(player, ctx.config), new=command.new)
    return DONE if command.new else SHOWN


@handles(c.SetPictures)
def set_pictures(ctx: CommandContext, command: c.SetPictures) -> Result:
    player = find_or_create_player(ctx.session, ctx.envelope.sender, ctx.now)
    player.board_pictures = command.on
    ctx.reply.add("pictures", on=command.on)
    return DONE
