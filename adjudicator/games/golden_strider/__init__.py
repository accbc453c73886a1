"""Golden Strider (Alan Parr), with the steeplechase variant."""

from adjudicator.games.golden_strider.rules import GoldenStrider

__all__ = ["GoldenStrider"]
