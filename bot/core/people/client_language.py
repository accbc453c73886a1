"""A player's client language: what their client says they read, their default until they choose.

A Discord interaction carries the member's locale; the adapter names it on the envelope when it is a
shipped language (:attr:`bot.core.model.commands.Envelope.client_language`).  Before an envelope's
commands a known sender's ``players.client_language`` is set to it when it differs, and a sender its
commands make a player (:meth:`bot.core.commands.context.CommandContext.sender_player`: a JOIN) is made
with it, so what those commands send them (the ready check their own JOIN starts) is in it too: what is
sent to them (reports, notices, digests, on any channel) is in it while they have chosen no language of
their own (``LANGUAGE``: ``players.language``, which always wins), before their game's default.  An
envelope naming none (a mail: no client says) changes nothing.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from bot.core.model import commands as c
from bot.core.people.identities import find_player
from bot.store.models import Player


def remember_client_language(session: Session, envelope: c.Envelope) -> None:
    """Keep ``envelope``'s client language as its known sender's (see the module); nothing else changes."""
    if envelope.client_language is None:
        return
    player = find_player(session, envelope.sender)
    if player is not None:
        keep_client_language(player, envelope)


def keep_client_language(player: Player, envelope: c.Envelope) -> None:
    """``player`` (the sender of ``envelope``) reads what their client says, when it says (see the module)."""
    if envelope.client_language is not None and player.client_language != envelope.client_language:
        player.client_language = envelope.client_language
