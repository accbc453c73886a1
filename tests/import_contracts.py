"""Import-linter contract types that read the list of channels: a channel names itself once.

``pyproject.toml`` cannot loop over bot/channels/registry.py's list, so its contracts
write ``"<channels>"`` where the channel packages belong (``bot.email``,
``bot.discord``, ``bot.web``, and any channel added to the list), and name
these types (``contract_types`` in ``[tool.importlinter]``): each is
import-linter's own contract with that one word replaced by the packages of
``bot.channels.registry.CHANNELS`` before the contract reads its options.
``lint-imports`` imports this module from the repository's root (it puts the
working directory on ``sys.path``); tests/test_architecture.py checks the
same rules by walking the imports, and checks that the expansion is the list.
"""

from __future__ import annotations

from typing import Any

from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.independence import IndependenceContract

CHANNELS = "<channels>"
"""The word a contract's list of modules writes for every channel package."""


def channel_packages() -> list[str]:
    """The packages of the channels of bot/channels/registry.py's list, in its order."""
    from bot.channels import registry as channels

    return [channel.package for channel in channels.CHANNELS]


def expand(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with :data:`CHANNELS` in any list replaced by :func:`channel_packages` (the rest as it is)."""
    packages = channel_packages()

    def each(value: Any) -> Any:
        if isinstance(value, list) and CHANNELS in value:
            return [module for item in value for module in (packages if item == CHANNELS else [item])]
        return value

    return {key: each(value) for key, value in options.items()}


class ChannelsIndependence(IndependenceContract):
    """``independence``, its ``modules`` able to say ``"<channels>"``."""

    def __init__(self, name: str, session_options: dict[str, Any], contract_options: dict[str, Any]) -> None:
        super().__init__(name, session_options, expand(contract_options))


class ChannelsForbidden(ForbiddenContract):
    """``forbidden``, its ``source_modules`` or ``forbidden_modules`` able to say ``"<channels>"``."""

    def __init__(self, name: str, session_options: dict[str, Any], contract_options: dict[str, Any]) -> None:
        super().__init__(name, session_options, expand(contract_options))
