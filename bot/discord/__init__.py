"""The Discord channel (discord.py): slash commands in, reports to each game's forum thread.

This package is the seam the Discord issue fills in; until then nothing here
runs.  Like every adapter it talks to the rest only through :mod:`bot.core`.
"""
