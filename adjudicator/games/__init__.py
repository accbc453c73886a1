"""One package per game; games never import each other."""
