"""Dragon Stripes (Alex Randolph, 1989), refereed by mail with take-over windows and standing orders."""

from adjudicator.games.dragon_stripes.rules import DragonStripes

__all__ = ["DragonStripes"]
