"""The Alan Parr three-race card game (four teams; races of 25, 55 and 85 squares)."""

from adjudicator.games.three_races.rules import ThreeRaces

__all__ = ["ThreeRaces"]
