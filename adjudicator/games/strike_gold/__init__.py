"""Strike Gold (BGA; a Skyjo-family grid card game for 2-8 players)."""

from adjudicator.games.strike_gold.rules import StrikeGold

__all__ = ["StrikeGold"]
