"""People: one player per person across channels, their seat secrets, the brake on guessing them."""
