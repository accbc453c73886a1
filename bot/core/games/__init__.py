"""Stored games read back: their rules, state and phase, the orders on file, batch preloads."""
