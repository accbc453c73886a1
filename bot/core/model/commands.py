"""The common command model: what every channel turns its input into.

An adapter (email, Discord, the host's command line, the demo's computer
players) builds one :class:`Envelope` per thing received: who sent it, how far
the channel vouches for that (:class:`Trust`), the commands in it, a source id
that makes applying it idempotent, and an opaque reply context the core hands
back untouched with the reply.  The core applies an envelope in one
transaction (:meth:`bot.core.runtime.service.GameService.apply`) and answers with
outcomes as template name + plain data (:mod:`bot.core.model.outcomes`).

Every command declares, in one place on its class (``declaration``, see
:mod:`bot.core.model.declaration`), who may run it (:class:`Permission`), how
a refusal names it, whether the next report announces it, how it is written
and its help; one pipeline step checks the permission for every channel alike
(:mod:`bot.core.commands.pipeline`), and the channels read the rest.  A new
command is its class here (and in :data:`Command`), its handler
(:func:`bot.core.commands.registry.handles`), its phrases and its test.

Orders stay raw text here; the game's own parser reads them in the core.
Every text a command holds is free text from outside, cleaned as it enters
the pipeline (:func:`bot.core.model.declaration.cleaned`): one line, unless
its field is declared ``field(metadata=LINES)`` (orders, a message).
User mistakes are not exceptions: a line the adapter could not read becomes
:class:`NotUnderstood` so the reply can quote it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.core.basics.translation import mark
from bot.core.model.declaration import LINES as LINES
from bot.core.model.declaration import Announcement as Announcement
from bot.core.model.declaration import Declaration as Declaration
from bot.core.model.declaration import Declared as Declared
from bot.core.model.declaration import Form as Form
from bot.core.model.declaration import Permission as Permission
from bot.core.model.declaration import Told as Told


class Trust(enum.Enum):
    """How far the channel vouches for the sender's identity.

    * ``VERIFIED``: the channel authenticated the person (Discord, the host's command line);
    * ``VOUCHED``: the receiving server vouches for the address (DMARC, or aligned DKIM or SPF,
      recorded by a server the host trusts: :mod:`bot.email.policy`);
    * ``CLAIMED``: only the sender's own word (a bare From header, whatever its envelope sender).

    Every permission above ``ANYONE`` needs a sender that is more than CLAIMED, or the matching
    secret (:func:`bot.core.commands.pipeline.authorise`): a password game needs the seat password unless
    the sender is VERIFIED; an address-only game needs it unless the sender is VERIFIED or
    VOUCHED; a game master's command needs the GM password unless the sender is VERIFIED;
    creating a game needs a sender who is VERIFIED or VOUCHED (there is no secret for it).
    """

    VERIFIED = "verified"
    VOUCHED = "vouched"
    CLAIMED = "claimed"


@dataclass(frozen=True)
class Sender:
    """Who sent an envelope: the adapter's channel label and the canonical address on it."""

    channel: str
    address: str
    display_name: str | None = None


@dataclass(frozen=True)
class ShowHelp(Declared):
    """``HELP [game]``: the command vocabulary, or one game's rules and order syntax."""

    declaration = Declaration(
        "HELP", Permission.ANYONE, summary=mark("command", "the commands, or one game's rules and order syntax")
    )

    game: str | None = None


@dataclass(frozen=True)
class ShowRules(Declared):
    """``RULES <kind>``: a game's whole rules as this referee applies them (its page of ``docs/rules/``)."""

    declaration = Declaration(
        "RULES", Permission.ANYONE, summary=mark("command", "a game's rules as this referee applies them"),
        forms=(Form("RULES <kind>", "RULES <kind> (a kind of game: HELP lists them)"),),
    )  # fmt: skip

    kind: str


@dataclass(frozen=True)
class ListGames(Declared):
    """``LIST``: the games open to join or running."""

    declaration = Declaration(
        "LIST", Permission.ANYONE, name="games", summary=mark("command", "the games open to join or running")
    )


@dataclass(frozen=True)
class JoinGame(Declared):
    """``JOIN <game> [AS <name>]``: take a seat; the reply carries the seat's secret."""

    declaration = Declaration(
        "JOIN", Permission.ANYONE, summary=mark("command", "take a seat in a game before it starts")
    )

    game: str
    name: str | None = None


@dataclass(frozen=True)
class SubmitOrders(Declared):
    """``GAME <game>`` / ``ORDERS <game>`` followed by order lines in the game's own syntax.

    A later submission for the same turn replaces the earlier one (last set wins).
    """

    declaration = Declaration("ORDERS", Permission.SEAT)

    game: str
    text: str = field(metadata=LINES)


@dataclass(frozen=True)
class ShowFiledOrders(Declared):
    """``ORDERS? <game>``: the orders this seat has on file for the open turn, and their commitment
    (:mod:`adjudicator.order_commitments`): what the turn's report will list beside the seat."""

    declaration = Declaration(
        "ORDERS?", Permission.SEAT, name="onfile",
        summary=mark("command", "the orders this seat has on file for the open turn, and their commitment"),
    )  # fmt: skip

    game: str


@dataclass(frozen=True)
class ShowStatus(Declared):
    """``STATUS <game>``: the phase, deadline, who has ordered, and the last report."""

    declaration = Declaration(
        "STATUS",
        Permission.ANYONE,
        summary=mark("command", "phase, turn, deadline, who owes orders and who has sent them"),
    )

    game: str


@dataclass(frozen=True)
class ShowRecord(Declared):
    """``RECORD <game>``: a finished game's sealed record (the file ``referee verify`` reads)."""

    declaration = Declaration("RECORD", Permission.ANYONE)

    game: str


@dataclass(frozen=True)
class Resign(Declared):
    """``RESIGN <game>``: leave the game; the seat gets no-moves-received orders from then on."""

    declaration = Declaration(
        "RESIGN", Permission.SEAT, summary=mark("command", "leave a game; your seat gets no-moves-received orders")
    )

    game: str


@dataclass(frozen=True)
class CreateGame(Declared):
    """Host/GM: create a game of ``kind`` named ``game`` (open for joining)."""

    declaration = Declaration(
        "CREATE", Permission.CREATOR, told=Told.NAMED, summary=mark("command", "create a game, open for joining (you run it, or the game masters you name)"),
        forms=(Form("CREATE <game> <kind>", help=(
            "CREATE <game> <kind>      then its settings, one a line (all optional):",
            "  SEATS n  or  MAX n        exactly n seats, or open joining up to n",
            "  ZONE Europe/London        the game's time zone (default UTC)",
            "  SCHEDULE 48h              or: every 3 days at 18:00, mon,thu at 20:00",
            "                            (every day at 20:00, started at 08:00: the",
            "                            first deadline is that day's 20:00)",
            "  GAP 12h                   least time from a report to a deadline",
            "  EARLY 30m                 process early, 30m after the last orders",
            "  GRACE 2h                  wait this long for late orders",
            "  REMINDERS 24h,1h          before each deadline (or none)",
            "  AUTH password             or: address (orders count from the address)",
            "  OPTION name=value         a game option (HELP <kind> lists them)",
            "  INVITE a@x.org b@y.org    only these may join",
            "  OBSERVERS no              closed to observers",
            "  LANGUAGE fr               its players' language unless they chose one",
            "                            (en, fr or de; default English)",
            "  ABSENCE 14                days of absence per player (0: none)",
            "  RELIABILITY 80            JOIN needs 80% of owed turns ordered in",
            "                            time (once a player has owed 5 turns)",
            "  GM other@club.org         someone else runs it (then co-GMs)",
            "  PRESS white               press between players: none, white (signed)",
            "                            or grey (anonymous allowed); default white",
            "  PRESS COPIES no           the GMs get no copy of the press (default yes)",
            "  PRESS RECORD yes          keep the press's texts (default no)",
            "  READY CHECK 24h           once full, each seat confirms within 24h",
            "                            (READY <game>) or is freed (default: off)",
            "  SUBSTITUTE AFTER 2        a seat that missed 2 turns in a row is offered",
            "                            to the standby list (default: only by you)",
            "  SUBSTITUTE AUTO yes       the first to STAND IN has it (default: you",
            "                            accept them: SUBSTITUTE <game> <seat> ACCEPT)",
        )),),
    )  # fmt: skip

    game: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    time_zone: str = ""
    """An IANA name; empty takes the host's default (the ``time_zone`` setting)."""
    turn_minutes: int = 0
    """The length of a turn's window; 0 takes the host's default (the ``turn_minutes`` setting)."""
    early_processing: bool = False
    auth: str = "password"
    seats: int | None = None
    """Seats the game starts with (START is refused until they are filled); None: any number the game allows."""
    max_seats: int | None = None
    """Open joining up to this many seats (at most the game's own maximum)."""
    schedule: str = ""
    """Deadline schedule (``48h``, ``every 3 days at 18:00``, ``mon,thu at 20:00``); empty: ``turn_minutes``."""
    min_gap: str = "0"
    """Minimum time between a report and the next deadline (``12h``)."""
    early_delay: str | None = None
    """Early processing: resolve this long after the last order (``30m``, ``0``); None: off unless early_processing."""
    grace: str = "0"
    reminders: str = "24h,1h"
    join: str = "anyone"
    """Who may join: ``anyone``, or ``invited`` (the addresses in ``invited``)."""
    invited: tuple[str, ...] = ()
    observers: bool = True
    absence_limit_days: int = 14
    min_reliability: int | None = None
    """The least share (a percentage) of owed turns a player must have ordered in time to join; None: any
    player (:mod:`bot.core.people.reliability`)."""
    game_masters: tuple[tuple[str, str], ...] = ()
    """(channel, address) of the game's GMs when someone else creates it for them (the host): the first is
    the game's GM, the others co-GMs; each is sent the GM password.  Empty: the creator is the GM."""
    press: str = "white"
    """Press between players: ``none``, ``white`` (signed only) or ``grey`` (anonymous allowed)."""
    press_gm_copies: bool = True
    """The game masters get a copy of every press message, naming its sender."""
    press_in_record: bool = False
    """Press texts are kept (the ``press_messages`` table); off, a text rests only in its unsent outbox rows."""
    ready_check: str = ""
    """The ready check's window (``24h``): once the game fills, each seat confirms within it or is freed
    (:mod:`bot.core.turns.ready_checks`); empty or ``0``: no check (the default)."""
    substitute_after: int = 0
    """A seat whose holder missed this many turns in a row is put up for a substitute (0: never by itself)."""
    substitute_auto: bool = False
    """The first to take a seat put up has it at once (default: a game master accepts them)."""
    language: str | None = None
    """The language of its players who chose none (``LANGUAGE fr``: :mod:`bot.core.people.languages`); None:
    English."""


@dataclass(frozen=True)
class SetJoining(Declared):
    """GM: open or close joining before the start."""

    declaration = Declaration(
        "JOINING", Permission.GAME_MASTER, announced=Announcement("announce_joining"), summary=mark("command", "open or close joining"),
        forms=(Form("OPEN <game>", "OPEN <game> (opens joining)", help=("OPEN <game>, CLOSE <game> open or close joining",)),
               Form("CLOSE <game>", "CLOSE <game> (closes joining)")),
    )  # fmt: skip

    game: str
    open: bool
    reason: str = ""


@dataclass(frozen=True)
class StartGame(Declared):
    """GM: close joining and start the game (its first phase and deadline)."""

    declaration = Declaration(
        "START", Permission.GAME_MASTER, told=Told.PLAYERS, summary=mark("command", "close joining and start the game (refused until its seats are filled)"),
        forms=(Form("START <game>", help=("START <game>              start (refused until the seats are filled)",)),),
    )  # fmt: skip

    game: str


@dataclass(frozen=True)
class MarkReady(Declared):
    """GM: confirm a seat in the ready check for its player (an override, logged with its reason)."""

    declaration = Declaration(
        "READY FOR", Permission.GAME_MASTER, name="ready", announced=Announcement("announce_ready", ("seat",)), told=Told.SEAT,
        summary=mark("command", "confirm a seat in the ready check for its player (logged)"),
        forms=(Form("READY <game> FOR <seat>", "",
                    help=("READY <game> FOR <seat>   confirm the seat in the ready check",
                          "                                                  REASON needed")),),
    )  # fmt: skip

    game: str
    seat: str
    reason: str


# ---- game masters: each names its game; overrides carry a reason ------------------------


@dataclass(frozen=True)
class SetDeadline(Declared):
    """GM: set the deadline of the open turn: ``when`` is an ISO time (game's zone) or ``+2d3h`` from the deadline."""

    declaration = Declaration(
        "DEADLINE", Permission.GAME_MASTER, announced=Announcement("announce_deadline"), told=Told.PLAYERS,
        summary=mark("command", "set the deadline: an ISO time in the game's zone, or +2d3h from the deadline"),
        forms=(Form("SET DEADLINE <game> <when>", help=("SET DEADLINE <game> <when>                  REASON needed",)),
               Form("EXTEND <game> <duration>", "EXTEND <game> <duration> (e.g. EXTEND g1 1d), with a REASON line below",
                    help=("EXTEND <game> <duration>  e.g. EXTEND g1 1d REASON needed",))),
    )  # fmt: skip

    game: str
    when: str
    reason: str


@dataclass(frozen=True)
class PauseGame(Declared):
    """GM: stop the clock (optionally until a time: then the game resumes with a new deadline)."""

    declaration = Declaration(
        "PAUSE", Permission.GAME_MASTER, announced=Announcement("announce_pause"), told=Told.PLAYERS, summary=mark("command", "stop the clock (optionally until a time)"),
        forms=(Form("PAUSE <game> [UNTIL <until>]", "PAUSE <game> or PAUSE <game> UNTIL <when>, with a REASON line below",
                    help=("PAUSE <game> [UNTIL <when>]                 REASON needed",)),),
    )  # fmt: skip

    game: str
    reason: str
    until: str | None = None


@dataclass(frozen=True)
class ResumeGame(Declared):
    """GM: start the clock again, with a new deadline (default: the game's schedule from now)."""

    declaration = Declaration(
        "RESUME", Permission.GAME_MASTER, announced=Announcement("announce_resume"), told=Told.PLAYERS, summary=mark("command", "start the clock again, with a new deadline"),
        forms=(Form("RESUME <game> [DEADLINE <deadline>]", "RESUME <game> or RESUME <game> DEADLINE <when>, with a REASON line below",
                    help=("RESUME <game> [DEADLINE <when>]             REASON needed",)),),
    )  # fmt: skip

    game: str
    reason: str
    deadline: str | None = None


@dataclass(frozen=True)
class ProcessNow(Declared):
    """GM: resolve turn ``turn`` now; refused once that turn is resolved (a repeat can never process two)."""

    declaration = Declaration(
        "PROCESS", Permission.GAME_MASTER, announced=Announcement("announce_process", ("turn",)), told=Told.PLAYERS, summary=mark("command", "resolve the open turn now (name it: a repeat cannot process two)"),
        forms=(Form("PROCESS <game> TURN <turn>", "PROCESS <game> TURN <n> (the open turn, as STATUS shows it), with a REASON line below",
                    help=("PROCESS <game> TURN <n>   resolve turn n now (as STATUS numbers it);",
                          "                          refused once it is resolved    REASON needed")),),
    )  # fmt: skip

    game: str
    turn: int
    reason: str


@dataclass(frozen=True)
class PreviewTurn(Declared):
    """GM: resolve the open turn privately with the orders so far; the GM sees the report, nothing changes."""

    declaration = Declaration(
        "PREVIEW", Permission.GAME_MASTER, shows=True, summary=mark("command", "resolve the open turn privately; change nothing"),
        forms=(Form("PREVIEW <game>", help=("PREVIEW <game>            the open turn resolved privately; no change",)),),
    )  # fmt: skip

    game: str


@dataclass(frozen=True)
class EnterOrders(Declared):
    """GM: enter or change the orders of a seat (its player gets a copy)."""

    declaration = Declaration(
        "ORDERS FOR", Permission.GAME_MASTER, announced=Announcement("announce_orders", ("seat",)), told=Told.SEAT, name="orders",
        summary=mark("command", "enter or change a seat's orders (its player gets a copy)"),
        forms=(Form("ORDERS <game> FOR <seat>", "", also=("GAME",), help=(
            "ORDERS <game> FOR <seat>  then the seat's orders; the player gets a copy",
            "                                                         REASON needed")),),
    )  # fmt: skip

    game: str
    seat: str
    text: str = field(metadata=LINES)
    reason: str


@dataclass(frozen=True)
class ReplacePlayer(Declared):
    """GM: give a seat to someone else (``channel``/``address``): a fresh secret, the seat's private state."""

    declaration = Declaration(
        "REPLACE", Permission.GAME_MASTER, announced=Announcement("announce_replace", ("seat",)), told=Told.SEAT,
        summary=mark("command", "give a seat to a substitute (a fresh secret, the seat's last report)"),
        forms=(Form("REPLACE <game> <seat> WITH <address> [EXTEND <extend>]",
                    "REPLACE <game> <seat> WITH <address> [EXTEND <duration>], with a REASON line below",
                    help=("REPLACE <game> <seat> WITH <address> [EXTEND <duration>] REASON needed",)),),
    )  # fmt: skip

    game: str
    seat: str
    channel: str
    address: str
    reason: str
    extend: str | None = None
    """Also move the deadline (``+1d``, or an ISO time)."""


@dataclass(frozen=True)
class EjectPlayer(Declared):
    """GM: take a seat from its player; it gets the no-moves-received rule until replaced."""

    declaration = Declaration(
        "EJECT", Permission.GAME_MASTER, announced=Announcement("announce_eject", ("seat",)), told=Told.SEAT, summary=mark("command", "take a seat from its player"),
        forms=(Form("EJECT <game> <seat>", "EJECT <game> <seat>, with a REASON line below",
                    help=("EJECT <game> <seat>       the seat gets no-moves-received   REASON needed",)),),
    )  # fmt: skip

    game: str
    seat: str
    reason: str


@dataclass(frozen=True)
class RollBack(Declared):
    """GM: go back to the start of turn ``to_turn`` (its orders stay on file) with a new deadline, and a fresh
    draw; ``same_draw``: the turns played again draw what they drew, and the orders on file for the turn stand
    as they were (to correct a game master's mistake; :mod:`bot.core.turns.draws`)."""

    declaration = Declaration(
        "ROLLBACK", Permission.GAME_MASTER, announced=Announcement("announce_rollback", ("to_turn",)), told=Told.PLAYERS,
        summary=mark("command", "go back to the start of turn N with a fresh draw (its orders stay on file)"),
        forms=(Form("ROLLBACK <game> TO <to_turn> [DEADLINE <deadline>]",
                    "ROLLBACK <game> TO <n> [SAME DRAW] [DEADLINE <when>], with a REASON line below",
                    also=("ROLL BACK",),
                    help=("ROLLBACK <game> TO <n> [DEADLINE <when>]  back to turn n  REASON needed",
                          "                          with a fresh draw (its orders may change);",
                          "  ... TO <n> SAME DRAW    the same draw, its orders on file kept as they are")),
               Form("ROLLBACK <game> TO <to_turn> SAME DRAW [DEADLINE <deadline>]", "", also=("ROLL BACK",))),
    )  # fmt: skip

    game: str
    to_turn: int
    reason: str
    deadline: str | None = None
    same_draw: bool = False
    """Keep the draw (and the orders on file for the turn): the players are told so."""


@dataclass(frozen=True)
class Broadcast(Declared):
    """GM: a message to every seat, the observers and the game's public place."""

    declaration = Declaration(
        "BROADCAST", Permission.GAME_MASTER, told=Told.PLAYERS, summary=mark("command", "a message to every seat, the observers and the public place"),
        forms=(Form("BROADCAST <game>", "BROADCAST <game>, then the message on the lines below",
                    help=("BROADCAST <game>          then the message, up to the next command line",)),),
    )  # fmt: skip

    game: str
    text: str = field(metadata=LINES)


@dataclass(frozen=True)
class SetOption(Declared):
    """GM: change a game option before the start (``value`` as JSON, or a word)."""

    declaration = Declaration(
        "OPTION", Permission.GAME_MASTER, announced=Announcement("announce_option", ("name",)), told=Told.PLAYERS, summary=mark("command", "change an option before the start"),
        forms=(Form("SET OPTION <game> <name> <value>",
                    help=("SET OPTION <game> <name> <value>  before the start        REASON needed",)),),
    )  # fmt: skip

    game: str
    name: str
    value: str
    reason: str


@dataclass(frozen=True)
class SetGameLanguage(Declared):
    """GM: the language the game's players who chose none are told in (``en``, ``fr``, ``de``; ``OFF``:
    English), at any time (:mod:`bot.core.people.languages`)."""

    declaration = Declaration(
        "GAME LANGUAGE", Permission.GAME_MASTER, name="language", announced=Announcement("announce_language", ("language",)),
        summary=mark("command", "the language of the players who chose none"),
        forms=(Form("SET LANGUAGE <game> <language>", "SET LANGUAGE <game> fr (or en, de; OFF for English)",
                    help=("SET LANGUAGE <game> <language>  fr, de or en: its players' default",)),),
    )  # fmt: skip

    game: str
    language: str


@dataclass(frozen=True)
class EndGame(Declared):
    """GM: end the game now (``abandon``: without a result), for a reason."""

    declaration = Declaration(
        "END", Permission.GAME_MASTER, announced=Announcement("announce_end", ("abandon",)), told=Told.PLAYERS, summary=mark("command", "end the game now, or abandon it without a result"),
        forms=(Form("END <game>", "END <game> (ends the game, with a REASON line below)",
                    help=("END <game>                end the game now               REASON needed",)),
               Form("ABANDON <game>", "ABANDON <game>, with a REASON line below",
                    help=("ABANDON <game>            end it without a result        REASON needed",))),
    )  # fmt: skip

    game: str
    reason: str
    abandon: bool = False


@dataclass(frozen=True)
class AddGameMaster(Declared):
    """GM: add a co-GM (``hand_over``: make them the GM and step back)."""

    declaration = Declaration(
        "ADD GM", Permission.GAME_MASTER,
        announced=Announcement("announce_game_master", ("hand_over",), names_an_address=True), told=Told.NAMED, summary=mark("command", "add a co-GM, or hand the game over to them"),
        forms=(Form("ADD GM <game> <address>", "ADD GM <game> <address>, with a REASON line below", also=("ADD CO-GM", "ADD COGM"),
                    help=("ADD GM <game> <address>   a co-GM                        REASON needed",)),
               Form("HANDOVER <game> <address>", "HANDOVER <game> <address>, with a REASON line below", also=("HAND OVER",),
                    help=("HANDOVER <game> <address> make them the GM; you step back REASON needed",))),
    )  # fmt: skip

    game: str
    channel: str
    address: str
    reason: str
    hand_over: bool = False


@dataclass(frozen=True)
class ShowLog(Declared):
    """GM: the game's audit log."""

    declaration = Declaration(
        "LOG", Permission.GAME_MASTER, shows=True, summary=mark("command", "the game's audit log"),
        forms=(Form("LOG <game>", help=("LOG <game>                the game's audit log",)),),
    )  # fmt: skip

    game: str


# ---- players: waiting, observing, absence -------------------------------------------------------


@dataclass(frozen=True)
class WaitForDeadline(Declared):
    """``SET WAIT`` / ``SET NOWAIT``: this turn, do not process early (njudge's SET WAIT)."""

    declaration = Declaration(
        "WAIT", Permission.SEAT,
        forms=(Form("SET WAIT <game>", "SET WAIT <game> or SET NOWAIT <game>"),
               Form("SET NOWAIT <game>", "", also=("SET NO WAIT",))),
    )  # fmt: skip

    game: str
    wait: bool = True


@dataclass(frozen=True)
class Observe(Declared):
    """``OBSERVE <game>``: get the public reports without a seat (``stop``: no longer)."""

    declaration = Declaration(
        "OBSERVE", Permission.ANYONE, summary=mark("command", "get a game's public reports without a seat"),
        forms=(Form("OBSERVE <game>"), Form("STOP OBSERVING <game>", also=("UNOBSERVE",))),
    )  # fmt: skip

    game: str
    stop: bool = False


@dataclass(frozen=True)
class DeclareAbsence(Declared):
    """``ABSENT <game> <from> <to>``: days away; a deadline inside them moves to their end, within a limit."""

    declaration = Declaration(
        "ABSENT", Permission.SEAT, summary=mark("command", "days you are away: a deadline inside them moves to their end"),
        forms=(Form("ABSENT <game> <first> <last>", "ABSENT <game> <from> <to> (dates such as 2026-07-01 2026-07-14)"),),
    )  # fmt: skip

    game: str
    first: str
    last: str


@dataclass(frozen=True)
class ConfirmReady(Declared):
    """``READY <game>``: the seat confirms, in the ready check of a game that has filled, that it will play
    (:mod:`bot.core.turns.ready_checks`); a seat not confirmed by the end of the window is freed."""

    declaration = Declaration(
        "READY", Permission.SEAT, summary=mark("command", "confirm, when a full game asks, that you will play"),
        forms=(Form("READY <game>", "READY <game> (you will play), or as a game master READY <game> FOR <seat> "
                    "with a REASON line below"),),
    )  # fmt: skip

    game: str
    seat: str | None = None
    """The seat a button was made for (Discord): refused unless it is the sender's own."""
    check_round: int | None = None
    """The check a button was made for (``games.ready_round``): refused once another has begun."""


# ---- a person's own settings: see bot/core/commands/player_settings.py ---------------------------


@dataclass(frozen=True)
class ShowCalendar(Declared):
    """``CALENDAR``: the address of the sender's private calendar (every deadline of their seats, with
    reminders); ``CALENDAR NEW``: a new address, and the old one stops working."""

    declaration = Declaration(
        "CALENDAR", Permission.ANYONE, summary=mark("command", "the address of your calendar of deadlines (NEW: a new one)"),
        forms=(Form("CALENDAR", "CALENDAR, or CALENDAR NEW for a new address"), Form("CALENDAR NEW", "")),
    )  # fmt: skip

    new: bool = False


@dataclass(frozen=True)
class SetPictures(Declared):
    """``PICTURES ON`` / ``PICTURES OFF``: whether the sender's report mails carry the board as a picture."""

    declaration = Declaration(
        "PICTURES", Permission.ANYONE, summary=mark("command", "whether your report mails carry a picture of the board"),
        forms=(Form("PICTURES ON", "PICTURES ON or PICTURES OFF"), Form("PICTURES OFF", "")),
    )  # fmt: skip

    on: bool


@dataclass(frozen=True)
class SetZone(Declared):
    """``ZONE <name>``: the sender's own time zone (IANA), in which the times they are told are shown first;
    ``ZONE OFF``: none (the game's zone, as for everyone).  The game's zone still decides its schedule."""

    declaration = Declaration(
        "ZONE", Permission.ANYONE, summary=mark("command", "your time zone: the times you are told are shown in it first"),
        forms=(Form("ZONE <zone>", "ZONE <name>, an IANA zone such as Europe/Paris or Asia/Ho_Chi_Minh; ZONE OFF"),),
    )  # fmt: skip

    zone: str


@dataclass(frozen=True)
class SetQuiet(Declared):
    """``QUIET <from>-<to>``: hours in the sender's zone in which mail that can wait (reports, notices of
    others' actions) is held until they end (:mod:`bot.core.messaging.quiet_hours`); ``QUIET OFF``: none."""

    declaration = Declaration(
        "QUIET", Permission.ANYONE, summary=mark("command", "hours in your zone when mail that can wait is held until they end"),
        forms=(Form("QUIET <hours>", "QUIET 22:00-07:00 (from-to, in your zone) or QUIET OFF"),),
    )  # fmt: skip

    hours: str


@dataclass(frozen=True)
class SetLanguage(Declared):
    """``LANGUAGE <code>``: the language the sender is told in (``en``, ``fr``, ``de``;
    :mod:`bot.core.people.languages`); ``LANGUAGE OFF``: their game's default, else English.  Orders and
    command words stay the same in every language."""

    declaration = Declaration(
        "LANGUAGE", Permission.ANYONE, summary=mark("command", "the language you are told in: en, fr or de"),
        forms=(Form("LANGUAGE <language>", "LANGUAGE fr (or en, de; LANGUAGE OFF for the game's own)"),),
    )  # fmt: skip

    language: str


@dataclass(frozen=True)
class SetFormat(Declared):
    """``FORMAT PLAIN``: reports and replies as sentences and lists a screen reader can follow;
    ``FORMAT TABLES``: fixed-width tables and drawn boards (the default; :mod:`bot.core.people.text_formats`)."""

    declaration = Declaration(
        "FORMAT", Permission.ANYONE, summary=mark("command", "PLAIN: reports as sentences and lists; TABLES: as tables"),
        forms=(Form("FORMAT <form>", "FORMAT PLAIN (sentences and lists) or FORMAT TABLES"),),
    )  # fmt: skip

    form: str


@dataclass(frozen=True)
class SetDigest(Declared):
    """``DIGEST DAILY [HH:MM]``: press, notices and reminders gathered into one mail a day at that time in
    the sender's zone; ``DIGEST TURN``: one per turn per game; ``DIGEST OFF``: each on its own
    (:mod:`bot.core.messaging.digest_setting`).  Reports and replies are never gathered."""

    declaration = Declaration(
        "DIGEST", Permission.ANYONE, summary=mark("command", "press, notices and reminders in one mail a day or per turn"),
        forms=(Form("DIGEST <when>", "DIGEST DAILY 08:00 (in your zone), DIGEST TURN or DIGEST OFF"),),
    )  # fmt: skip

    when: str


@dataclass(frozen=True)
class ShowSettings(Declared):
    """``SETTINGS``: the sender's own settings (language, format, zone, quiet hours, digest, board pictures),
    the same on every channel linked to them."""

    declaration = Declaration(
        "SETTINGS", Permission.ANYONE, summary=mark("command", "your settings: language, format, zone, quiet hours, digest"),
        forms=(Form("SETTINGS", "SETTINGS (then LANGUAGE, FORMAT, ZONE, QUIET, DIGEST or PICTURES to change one)"),),
    )  # fmt: skip


# ---- press between players: see bot/core/commands/press.py ------------------------------------


PRESS_MODES = ("none", "white", "grey")
"""A game's press (``CreateGame.press``): none, signed only, or anonymous allowed."""
EVERY_SEAT = "ALL"
"""``PRESS <game> TO ALL``: every other seat of the game (public press)."""


@dataclass(frozen=True)
class SendPress(Declared):
    """``PRESS <game> TO <seat>[, <seat>...]`` or ``PRESS <game> TO ALL``, optionally ``ANON`` (grey press),
    then the message: press from the sender's seat, relayed by the referee without an address."""

    declaration = Declaration(
        "PRESS", Permission.SEAT, summary=mark("command", "a message to other seats of the game, relayed by the referee"),
        forms=(Form("PRESS <game> TO <to>", "PRESS <game> TO <seat>[, <seat>...] or TO ALL [ANON], then the "
                    "message on the lines below; PRESS <game> REPLY <code>; PRESS <game> MUTE|UNMUTE <seat or code>"),),
    )  # fmt: skip

    game: str
    to: tuple[str, ...]
    """Seat names, or (:data:`EVERY_SEAT`,) for every other seat."""
    text: str = field(metadata=LINES)
    anonymous: bool = False


@dataclass(frozen=True)
class ReplyPress(Declared):
    """``PRESS <game> REPLY <code> [ANON]``, then the message: an answer to the sender of the press message
    ``code``, who is reached without being named (a reply to an anonymous sender stays anonymous)."""

    declaration = Declaration(
        "PRESS REPLY", Permission.SEAT, summary=mark("command", "answer the sender of a press message by its code"),
        forms=(Form("PRESS <game> REPLY <code>", ""),),
    )  # fmt: skip

    game: str
    code: str
    text: str = field(metadata=LINES)
    anonymous: bool = False


@dataclass(frozen=True)
class MutePress(Declared):
    """``PRESS <game> MUTE <seat or code>`` / ``UNMUTE``: no signed press from that seat, or no anonymous press
    from the sender of that code, reaches the sender any more, or again (never both by one: a mute by code
    that stopped signed press would say who wrote anonymously; :mod:`bot.core.commands.press`)."""

    declaration = Declaration(
        "PRESS MUTE", Permission.SEAT,
        summary=mark("command", "no more signed press from a seat, or anonymous press from the sender of a code"),
        forms=(Form("PRESS <game> MUTE <who>", ""), Form("PRESS <game> UNMUTE <who>", "")),
    )  # fmt: skip

    game: str
    who: str
    mute: bool = True


# ---- players' reliability records: see bot/core/commands/player_records.py ----------------------


@dataclass(frozen=True)
class ShowReliability(Declared):
    """``RECORD ME``: the sender's reliability record across every game of this referee (turns owed,
    ordered in time, missed; seats held to the end, resigned, ejected, replaced).  ``RECORD <game>`` is
    a finished game's sealed record: no game may be named ``me``."""

    declaration = Declaration(
        "RECORD ME", Permission.ANYONE, name="reliability", summary=mark("command", "your record as a player: turns ordered in time, missed, games ended"),
        forms=(Form("RECORD ME", ""),),
    )  # fmt: skip


# ---- substitutes: see bot/core/commands/substitutes.py and bot/core/turns/substitutes.py ---------

ANY_KIND = "*"
"""``STANDBY ALL``: seats of every kind of game (:class:`SetStandby`)."""
OFFER_ACTIONS = ("offer", "withdraw", "accept", "decline")
"""What a game master's ``SUBSTITUTE`` does with a seat (:class:`OfferSeat`)."""


@dataclass(frozen=True)
class SetStandby(Declared):
    """``STANDBY <kind>``: the sender is offered every seat of a game of ``kind`` put up for a substitute
    (``ALL``: of any kind, :data:`ANY_KIND`); ``STANDBY OFF <kind>``: no longer."""

    declaration = Declaration(
        "STANDBY", Permission.VOUCHED, summary=mark("command", "be offered seats that need a substitute (OFF: no longer)"),
        forms=(Form("STANDBY <kind>", "STANDBY <kind> or STANDBY ALL (be offered seats that need a substitute), "
                    "STANDBY OFF <kind>, or STANDBY alone (your list)"),
               Form("STANDBY OFF <kind>", "")),
    )  # fmt: skip

    kind: str
    on: bool = True


@dataclass(frozen=True)
class ShowStandby(Declared):
    """``STANDBY`` alone: the kinds the sender stands by for (reading it changes nothing: anyone may ask)."""

    declaration = Declaration(
        "STANDBY",
        Permission.ANYONE,
        summary=mark("command", "the kinds of game you stand by for"),
        forms=(Form("STANDBY", ""),),
    )


@dataclass(frozen=True)
class OfferSeat(Declared):
    """GM: put a seat up for a substitute (``offer``: the standby list, the game's public place and page
    are told), take the offer back (``withdraw``), or, when a game master accepts substitutes, give the
    seat to the player who offered to take it (``accept``) or turn them down (``decline``)."""

    declaration = Declaration(
        "SUBSTITUTE", Permission.GAME_MASTER, announced=Announcement("announce_substitute", ("seat",)), told=Told.SEAT,
        summary=mark("command", "put a seat up for a substitute; withdraw the offer, accept or decline who offered"),
        forms=(Form("SUBSTITUTE <game> <seat> [<action>]",
                    "SUBSTITUTE <game> <seat> [WITHDRAW|ACCEPT|DECLINE], and a REASON line below",
                    help=("SUBSTITUTE <game> <seat>  offer the seat to the standby list (REASON)",
                          "  ... WITHDRAW, ACCEPT, DECLINE  take the offer back, or give the seat to",
                          "                          who offered to take it, or turn them down")),),
    )  # fmt: skip

    game: str
    seat: str
    action: str = "offer"
    """One of :data:`OFFER_ACTIONS`."""
    reason: str = ""


@dataclass(frozen=True)
class TakeSeat(Declared):
    """``STAND IN <game> <seat>``: the sender takes over a seat put up for a substitute (the first to ask has it,
    at once or once a game master accepts them, as the game says); then a briefing on the seat."""

    declaration = Declaration(
        "STAND IN", Permission.VOUCHED, name="take", announced=Announcement("announce_seat_taken", ("seat",)), summary=mark("command", "take over a seat that needs a substitute"),
        forms=(Form("STAND IN <game> <seat>", "STAND IN <game> <seat> (a seat put up for a substitute)",
                    also=("STANDIN",)),),
    )  # fmt: skip

    game: str
    seat: str
    offer_round: int | None = None
    """The offer a button was made for (Discord): refused once the seat was put up again or taken."""


# ---- one person across channels: see bot/core/commands/linking.py ------------------------------


@dataclass(frozen=True)
class RequestLink(Declared):
    """Link another channel's address to the sender: a code is sent there, to be given back (:class:`ConfirmLink`).

    ``channel`` and ``address`` are the target's, in the target channel's
    canonical form (the adapter's word: the core never names a channel).  The
    sender must be authenticated by their channel (``Trust.VERIFIED``): the code
    proves the other side.
    """

    declaration = Declaration("LINK", Permission.ANYONE)

    channel: str
    address: str


@dataclass(frozen=True)
class ConfirmLink(Declared):
    """The code sent by :class:`RequestLink`, given back by the same sender: the two addresses become one person."""

    declaration = Declaration("LINK CODE", Permission.ANYONE)

    code: str


@dataclass(frozen=True)
class UnlinkIdentity(Declared):
    """Host: separate (channel, address) from the person it is linked to; it becomes a player with no seat.

    What a player refused with ``link_taken`` is told to ask for.  The seats stay
    with the person's other addresses.
    """

    declaration = Declaration(
        "UNLINK",
        Permission.HOST,
        summary=mark("command", "separate an address from the person it is linked to (it keeps no seat)"),
    )

    channel: str
    address: str
    reason: str


@dataclass(frozen=True)
class NotUnderstood(Declared):
    """A line the adapter could not read as a command, quoted back in the reply."""

    declaration = Declaration("NOT UNDERSTOOD", Permission.ANYONE)

    line: str
    reason: str


Command = (
    ShowHelp | ShowRules | ListGames | JoinGame | SubmitOrders | ShowFiledOrders | ShowStatus | ShowRecord | Resign
    | CreateGame | StartGame | MarkReady
    | SetJoining | EndGame | SetDeadline | PauseGame | ResumeGame | ProcessNow | PreviewTurn | EnterOrders
    | ReplacePlayer | EjectPlayer | RollBack | Broadcast | SetOption | SetGameLanguage | AddGameMaster | ShowLog
    | WaitForDeadline | Observe | DeclareAbsence | ConfirmReady | ShowCalendar | SetPictures | ShowReliability
    | SetZone | SetQuiet | SetLanguage | SetFormat | SetDigest | ShowSettings
    | SendPress | ReplyPress | MutePress | SetStandby | ShowStandby | OfferSeat | TakeSeat | RequestLink | ConfirmLink
    | UnlinkIdentity | NotUnderstood
)  # fmt: skip


@dataclass(frozen=True)
class Envelope:
    """Everything one received message asks for.

    ``source_id`` is the idempotency key (``imap:<uidvalidity>:<uid>``, a
    Message-ID, a Discord interaction id): applying the same envelope twice is a
    no-op the second time.  ``password`` is the seat secret given in the
    message (``PASSWORD ...``), if any; it is checked, never stored or echoed.
    ``automatic`` marks machine-sent mail: it is recorded but never answered.
    ``answer_if_proven`` (the mail adapter's reply limit for a sender nobody
    vouches for): answered only when the message proved its sender with a
    password (orders accepted, or a password given and nothing refused);
    a forger knows no password, so a forged victim gets no reply.
    ``trust``, ``as_host`` and ``may_create`` are the adapter's word on who the
    sender is; the core never asks which channel a message came from.
    """

    sender: Sender
    commands: tuple[Command, ...]
    source_id: str
    received_at: datetime
    reply_context: Mapping[str, Any] = field(default_factory=dict)
    """Whatever the adapter needs to answer (subject and Message-ID, an interaction id): never read by the core."""
    password: str | None = None
    ignored: tuple[str, ...] = ()
    automatic: bool = False
    answer_if_proven: bool = False
    trust: Trust = Trust.CLAIMED
    as_host: bool = False
    """The host's own command line: a game master of every game."""
    may_create: bool = False
    """The channel knows the sender may create games (a Discord GM role); ``game_masters`` is checked too."""
    unverified_reason: str = ""
    """Why the adapter could not vouch for a CLAIMED sender, said in a refusal (never a secret)."""
    client_language: str | None = None
    """The shipped language the sender's client says they read (a Discord interaction's locale), if any: the
    core remembers it as their default until they choose one (:mod:`bot.core.people.client_language`)."""
