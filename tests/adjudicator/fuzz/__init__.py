"""Fuzzing every order parser with near-valid text built from each game's own grammar."""
