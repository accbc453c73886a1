"""Commands: the pipeline (authorise, apply, audit), the handlers, the reply as data.

Importing the package imports every family of handlers (each registers its
functions in :mod:`bot.core.commands.registry`) and checks that every command
of the model has exactly one: a command without a handler stops the program
at start, not a player's message later.
"""

from typing import get_args

from bot.core.commands import game_admin, hosting, linking, orders, overrides, player, presence
from bot.core.commands.registry import check_complete
from bot.core.model import commands as c

FAMILIES = (player, orders, hosting, game_admin, overrides, presence, linking)
"""The modules of handlers, one per family of commands."""

check_complete(get_args(c.Command))
