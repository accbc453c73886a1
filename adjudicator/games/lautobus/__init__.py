"""L'autobus (Tony Reeves): five teams of five cyclists on a card-driven road race."""

from adjudicator.games.lautobus.rules import Lautobus

__all__ = ["Lautobus"]
