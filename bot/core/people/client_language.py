"""A player's client language: what their client says they read, their default until they choose.

A Discord interaction carries the member's locale; the adapter names it on the envelope when it is a
shipped language (:attr:`bot.core.model.commands.Envelope.client_language`).  After an envelope's commands
(a JOIN may have made the player), a known sender's ``players.client_language`` is set to it when it
differs: what is sent to them later (reports, notices, digests, on any channel) is in it while they have
chosen no language of their own (``LANGUAGE``: ``players.language``, which always wins), before their
game's default.  An envelope naming none (a mail: no client says) changes nothing.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from bot.core.model import commands as c
from bot.core.people.identities import find_player


def remember_client_language(session: Session, envelope: c.Envelope) -> None:
    """Keep ``envelope``'s client language as its known sender's (see the module); nothing else changes."""
    if envelope.client_language is None:
        return
    player = find_player(session, envelope.sender)
    if player is not None and player.client_language != envelope.client_language:
        player.client_language = envelope.client_language
