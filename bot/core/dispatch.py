"""Sending each command of an envelope to its handler."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from bot.core import commands as c
from bot.core.host_commands import HostCommands
from bot.core.order_commands import OrderCommands
from bot.core.player_commands import PlayerCommands
from bot.core.replies import ReplyBuilder

if TYPE_CHECKING:
    from bot.core.service import ServiceConfig


def handle_command(
    session: Session, envelope: c.Envelope, reply: ReplyBuilder, config: ServiceConfig, command: c.Command
) -> None:
    """Apply one command inside the envelope's transaction; its outcome goes into ``reply``."""
    args = (session, envelope, reply, config)
    match command:
        case c.ShowHelp():
            PlayerCommands(*args).show_help(command)
        case c.ListGames():
            PlayerCommands(*args).list_games()
        case c.JoinGame():
            PlayerCommands(*args).join(command)
        case c.ShowStatus():
            PlayerCommands(*args).status(command)
        case c.Resign():
            PlayerCommands(*args).resign(command)
        case c.SubmitOrders():
            OrderCommands(*args).submit(command)
        case c.CreateGame():
            HostCommands(*args).create(command)
        case c.StartGame():
            HostCommands(*args).start(command)
        case c.NotUnderstood():
            reply.error(command.line, command.reason)
