"""A fake Discord (REST + gateway) on loopback, for driving the real discord.py client.

The bot under test is pointed at it through ``discord.http.Route.BASE`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` (both are discord.py
internals, hence the exact pin).  It serves what the referee uses and nothing
more:

* gateway: HELLO -> IDENTIFY -> READY + GUILD_CREATE (one guild with a text
  channel and a forum channel), heartbeats, the interactions the tests
  send (:meth:`slash`, :meth:`autocomplete`, :meth:`click`, :meth:`submit_modal`),
  and a user's direct message to the bot (:meth:`dm`: MESSAGE_CREATE in the user's DM
  channel, without a guild, as Discord sends it);
* REST: ``users/@me``, ``oauth2/applications/@me``, command sync, channel
  messages (create, edit, delete; pins: pin, unpin, list, each as Discord
  does it, with the "pinned a message" system message), DM channels, forum posts, and the
  interaction callback and webhook follow-up routes that interaction replies
  take (not through ``HTTPClient.request``);
* uploads: a message posted as discord.py sends one with files
  (``multipart/form-data``: ``payload_json`` and ``files[n]``) is kept with
  its attachments (filename, description), and their bytes in :attr:`uploads`;
* guild scheduled events: create, fetch, edit (moved, or its status changed as
  Discord allows: scheduled -> active or cancelled, active -> completed),
  delete, kept in :attr:`events`; :meth:`refuse_events` answers them 403
  (50013), :meth:`start_events` plays Discord's own start of an external event
  at its time.

Every request is recorded (:attr:`requests`), every message created is kept
per channel (:attr:`messages`); :meth:`unguarded_mentions` lists each request
that creates or edits a message without ``allowed_mentions`` that parse
nothing (every Discord test checks it: ``tests/discord/conftest.py``).  Faults can be injected: an outage (any
status, for a number of requests or seconds, optionally *after* the message
was stored, as when a response is lost), 429s shaped like Discord's (``Via``,
``retry_after``, ``X-RateLimit-*``), closed DMs (50007) and refusing channels
(10003 unknown channel, 50013 missing permissions).  Discord's
``enforce_nonce`` is honoured: a second message with the same nonce in the
same channel returns the first instead of creating another.

Every JSON response has ``Content-Type`` exactly ``application/json`` (discord.py parses nothing else).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

from tests.support.net import free_port

TEXT, DM, FORUM, PUBLIC_THREAD = 0, 1, 15, 11
SLASH, COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5


@dataclass
class Request:
    """One REST request the fake received, and what it answered."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 0
    files: list[Upload] = field(default_factory=list)
    """The files of a ``multipart/form-data`` request (its ``payload_json`` is :attr:`body`)."""


@dataclass(frozen=True)
class Upload:
    """One file part of a multipart request, as received."""

    field: str
    filename: str
    content_type: str
    data: bytes


@dataclass
class Fault:
    """An injected failure: requests matching ``match`` get ``status`` and ``body``.

    ``times`` bounds how many requests fail (None: unbounded), ``until`` (a
    ``time.monotonic`` value) how long; ``after_commit`` lets the request take
    effect first (the response is what is lost).
    """

    match: Callable[[Request], bool]
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    times: int | None = None
    until: float | None = None
    after_commit: bool = False
    hits: int = 0

    def active(self) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        return not (self.until is not None and time.monotonic() >= self.until)


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # Exactly application/json: discord.py parses nothing else as JSON.
    response = web.Response(status=status, body=json.dumps(data).encode(), headers=headers or {})
    response.headers["Content-Type"] = "application/json"
    return response


def _now() -> str:
    return datetime.now(UTC).isoformat()


RECORD = web.RequestKey("record", Request)
"""Where the middleware leaves a request's :class:`Request` (its body read, a multipart form parsed) for the handler."""
DEFAULT_LOCALE = "en-GB"
"""The locale of a member whose test chose none (an English Discord)."""


class FakeDiscord:
    """One guild, one bot application, any number of members; see the module docstring."""

    def __init__(self) -> None:
        self._ids = itertools.count(1_100_000_000_000_000_000)
        self.application_id = self.new_id()
        self.bot_user = self._user_payload(self.application_id, "referee", bot=True)
        self.guild_id = self.new_id()
        self.text_channel_id = self.new_id()
        self.forum_channel_id = self.new_id()
        self.gm_role_id = self.new_id()
        self.channels: dict[int, dict[str, Any]] = {
            self.text_channel_id: self._channel(self.text_channel_id, TEXT, "general"),
            self.forum_channel_id: self._channel(self.forum_channel_id, FORUM, "games"),
        }
        self.users: dict[int, dict[str, Any]] = {}
        self.member_roles: dict[int, list[str]] = {}
        self.member_locales: dict[int, str] = {}
        """Each member's Discord locale (:meth:`add_member`), said by their interactions."""
        self.messages: dict[int, list[dict[str, Any]]] = {}
        self.interaction_messages: dict[str, list[dict[str, Any]]] = {}
        self.callbacks: dict[int, list[dict[str, Any]]] = {}
        self.dm_channels: dict[int, int] = {}
        self.pins: dict[int, list[int]] = {}
        self.commands: dict[str, list[dict[str, Any]]] = {}
        self.requests: list[Request] = []
        self.faults: list[Fault] = []
        self.closed_dms: set[int] = set()
        self.uploads: dict[str, bytes] = {}
        """Attachment id -> the bytes uploaded."""
        self.events: dict[int, dict[str, Any]] = {}
        """Guild scheduled events by id, as Discord would answer them (deleted ones removed)."""
        self.events_refused: int | None = None
        self.role_permissions = 2248473465835073
        """The permissions of every role (and so of every member, the bot too), as the guild is sent at login."""
        self.owner_id = self.application_id
        """The guild's owner (the bot, unless a test says otherwise: an owner may do anything)."""
        self.refused_channels: dict[int, int] = {}
        self.identifies = 0
        self._nonces: dict[tuple[int, str], dict[str, Any]] = {}
        self._token_channels: dict[str, int] = {}
        self._component_messages: dict[int, dict[str, Any]] = {}
        self._sockets: list[web.WebSocketResponse] = []
        self._sequence = itertools.count(1)
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = free_port()

    # -- lifecycle ---------------------------------------------------------

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware])
        api = "/api/v10"
        app.router.add_get("/", self._gateway)
        routes = [
            ("GET", "/users/@me", self._me),
            ("GET", "/oauth2/applications/@me", self._application),
            ("GET", "/gateway", self._gateway_info),
            ("PUT", "/applications/{app}/commands", self._sync),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self._sync),
            ("GET", "/channels/{channel}", self._get_channel),
            ("POST", "/channels/{channel}/messages", self._post_message),
            ("PATCH", "/channels/{channel}/messages/{message}", self._edit_message),
            ("DELETE", "/channels/{channel}/messages/{message}", self._delete_message),
            ("PUT", "/channels/{channel}/messages/pins/{message}", self._pin),
            ("PUT", "/channels/{channel}/pins/{message}", self._pin),
            ("DELETE", "/channels/{channel}/messages/pins/{message}", self._unpin),
            ("DELETE", "/channels/{channel}/pins/{message}", self._unpin),
            ("GET", "/channels/{channel}/messages/pins", self._list_pins),
            ("GET", "/channels/{channel}/pins", self._list_pins_legacy),
            ("POST", "/channels/{channel}/threads", self._forum_post),
            ("GET", "/guilds/{guild}/threads/active", self._active_threads),
            ("POST", "/users/@me/channels", self._open_dm),
            ("GET", "/guilds/{guild}/scheduled-events", self._list_events),
            ("POST", "/guilds/{guild}/scheduled-events", self._create_event),
            ("GET", "/guilds/{guild}/scheduled-events/{event}", self._get_event),
            ("PATCH", "/guilds/{guild}/scheduled-events/{event}", self._edit_event),
            ("DELETE", "/guilds/{guild}/scheduled-events/{event}", self._delete_event),
            ("POST", "/interactions/{interaction}/{token}/callback", self._callback),
            ("POST", "/webhooks/{app}/{token}", self._followup),
            ("PATCH", "/webhooks/{app}/{token}/messages/{message}", self._edit_followup),
            ("DELETE", "/webhooks/{app}/{token}/messages/{message}", self._delete_followup),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, api + path, handler)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        for socket in list(self._sockets):
            await socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- ids and payloads --------------------------------------------------

    def new_id(self) -> int:
        return next(self._ids)

    @staticmethod
    def _user_payload(user_id: int, name: str, bot: bool = False) -> dict[str, Any]:
        return {"id": str(user_id), "username": name, "global_name": name, "discriminator": "0", "avatar": None,
                "bot": bot}  # fmt: skip

    def _channel(self, channel_id: int, kind: int, name: str, parent: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"id": str(channel_id), "type": kind, "name": name, "guild_id": str(self.guild_id),
                                "position": len(getattr(self, "channels", {})), "permission_overwrites": [],
                                "nsfw": False, "parent_id": str(parent) if parent else None}  # fmt: skip
        if kind == FORUM:
            data.update(available_tags=[], default_reaction_emoji=None, flags=0, topic=None)
        return data

    def add_member(self, name: str, roles: tuple[int, ...] = (), locale: str = DEFAULT_LOCALE) -> dict[str, Any]:
        """A new member of the guild (known to the fake; interactions carry the member), whose Discord is set to
        ``locale`` (every interaction of theirs says it, as Discord does: ``de``, ``fr``, ``en-GB``)."""
        user = self._user_payload(self.new_id(), name)
        self.users[int(user["id"])] = user
        self.member_roles[int(user["id"])] = [str(r) for r in roles]
        self.member_locales[int(user["id"])] = locale
        return user

    def member_payload(self, user: dict[str, Any]) -> dict[str, Any]:
        return {"user": user, "roles": self.member_roles.get(int(user["id"]), []), "joined_at": _now(),
                "deaf": False, "mute": False, "flags": 0, "nick": None, "permissions": str(self.role_permissions)}  # fmt: skip

    def _guild_payload(self) -> dict[str, Any]:
        everyone = {"id": str(self.guild_id), "name": "@everyone", "permissions": str(self.role_permissions), "position": 0,
                    "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}  # fmt: skip
        gm = dict(everyone, id=str(self.gm_role_id), name="GM", position=1)
        members = [self.member_payload(self.bot_user)] + [self.member_payload(u) for u in self.users.values()]
        return {"id": str(self.guild_id), "name": "Postal Games", "owner_id": str(self.owner_id),
                "roles": [everyone, gm], "channels": list(self.channels.values()), "threads": [],
                "members": members, "member_count": len(members), "emojis": [], "stickers": [], "features": [],
                "unavailable": False, "large": False, "voice_states": [], "presences": [],
                "premium_tier": 0, "verification_level": 0, "explicit_content_filter": 0,
                "default_message_notifications": 0, "mfa_level": 0, "nsfw_level": 0, "preferred_locale": "en-US",
                "system_channel_flags": 0, "afk_timeout": 300, "joined_at": _now(), "stage_instances": [],
                "guild_scheduled_events": [], "soundboard_sounds": []}  # fmt: skip

    def _message(self, channel_id: int, body: dict[str, Any], author: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"id": str(self.new_id()), "channel_id": str(channel_id), "author": author or self.bot_user,
                "content": body.get("content") or "", "timestamp": _now(), "edited_timestamp": None, "tts": False,
                "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
                "embeds": body.get("embeds") or [], "components": body.get("components") or [], "pinned": False,
                "type": 0, "flags": body.get("flags") or 0, "nonce": body.get("nonce")}  # fmt: skip

    # -- faults ------------------------------------------------------------

    def outage(self, status: int = 503, *, times: int | None = None, seconds: float | None = None,
               after_commit: bool = False, match: Callable[[Request], bool] | None = None) -> Fault:  # fmt: skip
        """REST answers ``status`` (for ``times`` requests or ``seconds``); gateway and login stay up."""
        fault = Fault(match or _delivery_request, status, {"message": "Service Unavailable", "code": 0},
                      times=times, until=None if seconds is None else time.monotonic() + seconds,
                      after_commit=after_commit)  # fmt: skip
        self.faults.append(fault)
        return fault

    def forget_nonces(self) -> None:
        """Forget every nonce seen, as Discord does after a few minutes (a late retry is a new message)."""
        self._nonces.clear()

    def drop_connections(self, *, times: int = 1, match: Callable[[Request], bool] | None = None) -> Fault:
        """Close the connection without an answer (the client sees a raw ServerDisconnectedError: discord.py retries no reset on Linux)."""
        fault = Fault(match or _delivery_request, 0, {}, times=times)
        self.faults.append(fault)
        return fault

    def rate_limit(
        self, retry_after: float, *, times: int = 1, match: Callable[[Request], bool] | None = None
    ) -> Fault:
        """429s as Discord sends them: ``Via`` present, ``retry_after`` in the body, bucket headers."""
        headers = {"Via": "1.1 google", "Retry-After": str(max(1, round(retry_after))), "X-RateLimit-Limit": "5",
                   "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(retry_after),
                   "X-RateLimit-Bucket": "fakebucket", "X-RateLimit-Scope": "user"}  # fmt: skip
        fault = Fault(match or _delivery_request, 429,
                      {"message": "You are being rate limited.", "retry_after": retry_after, "global": False},
                      headers, times=times)  # fmt: skip
        self.faults.append(fault)
        return fault

    def close_dms(self, user_id: int | str) -> None:
        """Messages to this user's DM channel get 403 code 50007 (cannot send messages to this user)."""
        self.closed_dms.add(int(user_id))

    def refuse_events(self, code: int = 50013) -> None:
        """Every scheduled-event request gets 403 ``code`` (50013: missing permissions)."""
        self.events_refused = code

    def refuse_channel(self, channel_id: int | str, code: int) -> None:
        """Messages to this channel get 404 code 10003 (unknown channel) or 403 code 50013 (missing permissions)."""
        self.refused_channels[int(channel_id)] = code

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
        if request.path == "/":
            return await handler(request)  # type: ignore[no-any-return]
        raw = await request.read()
        files: list[Upload] = []
        try:
            if request.content_type == "multipart/form-data":
                parts = _form_parts(raw, request.headers.get("Content-Type", ""))
                payload = next((p for p in parts if p.field == "payload_json"), None)
                body = None if payload is None else json.loads(payload.data)
                files = [p for p in parts if p.field != "payload_json"]
            else:
                body = json.loads(raw) if raw and request.content_type == "application/json" else None
        except ValueError:
            body = None
        record = Request(request.method, request.path.removeprefix("/api/v10"), dict(request.query), body, files=files)
        self.requests.append(record)
        request[RECORD] = record
        fault = next((f for f in self.faults if f.active() and f.match(record)), None)
        if fault is not None and fault.status == 0:
            fault.hits += 1
            if request.transport is not None:
                request.transport.abort()
            record.status = -1
            return web.Response(status=500)
        if fault is not None and not fault.after_commit:
            fault.hits += 1
            response: web.StreamResponse = _json(fault.body, fault.status, fault.headers)
        else:
            response = await handler(request)
            if fault is not None:
                fault.hits += 1
                response = _json(fault.body, fault.status, fault.headers)
        record.status = response.status
        async with self._changed:
            self._changed.notify_all()
        return response

    async def wait_for_request(self, pred: Callable[[Request], bool], timeout: float = 10.0) -> Request:
        """The first recorded request (past or future) matching ``pred``."""

        def found() -> Request | None:
            return next((r for r in self.requests if r.status and pred(r)), None)  # 0: not answered yet

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: found() is not None), timeout)
        result = found()
        assert result is not None
        return result

    async def wait_until(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until ``condition()`` holds (checked after every request)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(condition), timeout)

    # -- gateway -----------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.append(socket)
        await socket.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None}))
        try:
            async for frame in socket:
                if frame.type != WSMsgType.TEXT:
                    continue
                message = json.loads(frame.data)
                if message["op"] == 1:
                    await socket.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
                elif message["op"] == 2:
                    self.identifies += 1
                    ready = {"v": 10, "user": self.bot_user, "guilds": [{"id": str(self.guild_id), "unavailable": True}],
                             "session_id": f"session{self.identifies}", "resume_gateway_url": self.gateway_url,
                             "application": {"id": str(self.application_id), "flags": 0}, "private_channels": [],
                             "relationships": [], "shard": [0, 1]}  # fmt: skip
                    await self._send(socket, "READY", ready)
                    await self._send(socket, "GUILD_CREATE", self._guild_payload())
        finally:
            self._sockets.remove(socket)
        return socket

    async def _send(self, socket: web.WebSocketResponse, event: str, data: dict[str, Any]) -> None:
        await socket.send_str(json.dumps({"op": 0, "t": event, "s": next(self._sequence), "d": data}))

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a gateway event to every connected client (a client closing meanwhile is skipped)."""
        sent = 0
        for socket in list(self._sockets):
            if socket.closed:
                continue
            try:
                await self._send(socket, event, data)
                sent += 1
            except (ConnectionError, RuntimeError):
                continue
        if not sent:
            raise AssertionError(f"no client is connected to the gateway to receive {event}")

    # -- interactions the tests send ---------------------------------------

    def interaction_payload(self, kind: int, data: dict[str, Any], user: dict[str, Any],
                            channel_id: int | None = None, message: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
        """An INTERACTION_CREATE payload from ``user`` (a guild member) in ``channel_id``."""
        channel = self.channels.get(channel_id or self.text_channel_id, self.channels[self.text_channel_id])
        payload = {"id": str(self.new_id()), "application_id": str(self.application_id), "type": kind, "data": data,
                   "guild_id": str(self.guild_id), "channel_id": channel["id"], "channel": channel,
                   "member": self.member_payload(user), "token": f"token{self.new_id()}", "version": 1,
                   "app_permissions": "2248473465835073", "locale": self.member_locales.get(int(user["id"]), DEFAULT_LOCALE),
                   "guild_locale": "en-US",
                   "entitlements": [], "authorizing_integration_owners": {"0": str(self.guild_id)}, "context": 0,
                   "attachment_size_limit": 10485760}  # fmt: skip
        if message is not None:
            payload["message"] = message
            self._component_messages[int(payload["id"])] = message
        self._token_channels[payload["token"]] = int(channel["id"])
        return payload

    async def slash(self, name: str, options: dict[str, Any] | None = None, user: dict[str, Any] | None = None,
                    *, subcommand: str | None = None) -> dict[str, Any]:  # fmt: skip
        """Send ``/name option:value ...`` from ``user``; returns the interaction payload."""
        payload = self.interaction_payload(SLASH, self.command_data(name, options or {}, subcommand=subcommand),
                                           user or self._any_user())  # fmt: skip
        await self.dispatch("INTERACTION_CREATE", payload)
        return payload

    async def autocomplete(self, name: str, options: dict[str, Any], focused: str,
                           user: dict[str, Any] | None = None, *, subcommand: str | None = None) -> dict[str, Any]:  # fmt: skip
        """Type into option ``focused`` of ``/name [subcommand]``; the choices come back in the callback (type 8)."""
        data = self.command_data(name, options, focused=focused, subcommand=subcommand)
        payload = self.interaction_payload(AUTOCOMPLETE, data, user or self._any_user())
        await self.dispatch("INTERACTION_CREATE", payload)
        return payload

    async def click(
        self, custom_id: str, message: dict[str, Any], user: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Press the button ``custom_id`` on ``message`` (a payload this fake stored)."""
        data = {"custom_id": custom_id, "component_type": 2}
        payload = self.interaction_payload(COMPONENT, data, user or self._any_user(), int(message["channel_id"]),
                                           message)  # fmt: skip
        await self.dispatch("INTERACTION_CREATE", payload)
        return payload

    async def choose(
        self, custom_id: str, values: list[str], message: dict[str, Any], user: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Pick ``values`` in the string select menu ``custom_id`` on ``message`` (a payload this fake stored)."""
        data = {"custom_id": custom_id, "component_type": 3, "values": values}
        payload = self.interaction_payload(COMPONENT, data, user or self._any_user(), int(message["channel_id"]),
                                           message)  # fmt: skip
        await self.dispatch("INTERACTION_CREATE", payload)
        return payload

    async def submit_modal(self, custom_id: str, values: dict[str, str], user: dict[str, Any] | None = None,
                           *, labelled: bool = True) -> dict[str, Any]:  # fmt: skip
        """Submit the modal ``custom_id`` with text inputs ``values`` (wrapped in Labels, as from discord.py 2.6)."""
        inputs = [{"type": 4, "custom_id": key, "value": value} for key, value in values.items()]
        rows = [{"type": 18, "id": i + 1, "component": c} if labelled else {"type": 1, "components": [c]}
                for i, c in enumerate(inputs)]  # fmt: skip
        payload = self.interaction_payload(MODAL_SUBMIT, {"custom_id": custom_id, "components": rows},
                                           user or self._any_user())  # fmt: skip
        await self.dispatch("INTERACTION_CREATE", payload)
        return payload

    def command_data(self, name: str, options: dict[str, Any], *, focused: str | None = None,
                     subcommand: str | None = None) -> dict[str, Any]:  # fmt: skip
        """The ``data`` of a slash command interaction, typed from the synced command's own options."""
        synced = next((c for cs in self.commands.values() for c in cs if c["name"] == name), None)
        declared = {o["name"]: o for o in (synced or {}).get("options", [])}
        if subcommand is not None:
            declared = {o["name"]: o for o in declared.get(subcommand, {}).get("options", [])}
        opts = []
        for key, value in options.items():
            kind = declared.get(key, {}).get("type", 3)
            option: dict[str, Any] = {"name": key, "type": kind, "value": value}
            if key == focused:
                option["focused"] = True
            opts.append(option)
        if subcommand is not None:
            opts = [{"name": subcommand, "type": 1, "options": opts}]
        data = {"id": str((synced or {}).get("id", self.new_id())), "name": name, "type": 1, "options": opts,
                "guild_id": str(self.guild_id)}  # fmt: skip
        chosen = [self.users[int(o["value"])] for o in (opts[0].get("options", []) if subcommand else opts)
                  if o["type"] == 6 and int(o["value"]) in self.users]  # fmt: skip
        if chosen:  # a USER option comes with the user and member it names, as Discord sends it
            data["resolved"] = {"users": {u["id"]: u for u in chosen},
                                "members": {u["id"]: {k: v for k, v in self.member_payload(u).items() if k != "user"}
                                            for u in chosen}}  # fmt: skip
        return data

    async def dm(self, user: dict[str, Any], content: str, *, author: dict[str, Any] | None = None) -> dict[str, Any]:
        """``user`` sends ``content`` to the bot in their DM channel (opened if need be): kept in
        :attr:`messages` and dispatched as MESSAGE_CREATE (``author``: another author in that channel,
        such as the bot itself or another bot); returns the message."""
        channel_id = self._dm_channel(int(user["id"]))
        message = self._message(channel_id, {"content": content}, author or user)
        self.messages.setdefault(channel_id, []).append(message)
        await self.dispatch("MESSAGE_CREATE", message)
        return message

    def bot_dm_messages(self, user_id: int | str) -> list[dict[str, Any]]:
        """What the bot posted in the user's DM channel (the user's own messages left out)."""
        return [m for m in self.dm_messages(user_id) if m["author"]["id"] == self.bot_user["id"]]

    async def wait_for_dm(self, user_id: int | str, count: int = 1, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Until the bot has posted ``count`` messages in the user's DMs; returns them all."""
        await self.wait_until(lambda: len(self.bot_dm_messages(user_id)) >= count, timeout)
        return self.bot_dm_messages(user_id)

    def _dm_channel(self, user_id: int) -> int:
        if user_id not in self.dm_channels:
            channel_id = self.new_id()
            self.dm_channels[user_id] = channel_id
            self.channels[channel_id] = {"id": str(channel_id), "type": DM, "recipient_id": str(user_id),
                                         "recipients": [self.users[user_id]], "last_message_id": None}  # fmt: skip
        return self.dm_channels[user_id]

    def _any_user(self) -> dict[str, Any]:
        return next(iter(self.users.values())) if self.users else self.add_member("someone")

    def replies(self, interaction: dict[str, Any]) -> list[dict[str, Any]]:
        """Messages answering ``interaction``: its callback message (type 4) and its follow-ups."""
        return self.interaction_messages.get(interaction["token"], [])

    async def wait_for_replies(
        self, interaction: dict[str, Any], count: int = 1, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        await self.wait_until(lambda: len(self.replies(interaction)) >= count, timeout)
        return self.replies(interaction)

    async def wait_for_callback(self, interaction: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        interaction_id = int(interaction["id"])
        await self.wait_until(lambda: bool(self.callbacks.get(interaction_id)), timeout)
        return self.callbacks[interaction_id][0]

    def dm_messages(self, user_id: int | str) -> list[dict[str, Any]]:
        channel = self.dm_channels.get(int(user_id))
        return [] if channel is None else self.messages.get(channel, [])

    def everything_said(self) -> list[str]:
        """The text of every message the bot posted anywhere: channels, threads, DMs, interaction replies."""
        posted = [m for channel in self.messages.values() for m in channel]
        answered = [m for replies in self.interaction_messages.values() for m in replies]
        return [str(m.get("content") or "") for m in posted + answered if m.get("author", {}).get("bot", True)]

    def message_requests(self) -> list[Request]:
        """Every request that created or edited a message (see :func:`message_payload`)."""
        return [r for r in self.requests if message_payload(r) is not None]

    def unguarded_mentions(self, users: frozenset[str] = frozenset()) -> list[Request]:
        """The requests that created or edited a message that could ping (see :func:`mentions_guarded`)."""
        return [r for r in self.message_requests() if not mentions_guarded(message_payload(r) or {}, users)]

    def threads(self) -> list[dict[str, Any]]:
        return [c for c in self.channels.values() if c["type"] == PUBLIC_THREAD]

    # -- REST handlers -----------------------------------------------------

    async def _me(self, request: web.Request) -> web.Response:
        return _json(self.bot_user)

    async def _application(self, request: web.Request) -> web.Response:
        return _json({"id": str(self.application_id), "name": "referee", "icon": None, "description": "",
                      "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64,
                      "flags": 0, "owner": self.bot_user, "team": None, "summary": ""})  # fmt: skip

    async def _gateway_info(self, request: web.Request) -> web.Response:
        return _json({"url": self.gateway_url})

    async def _sync(self, request: web.Request) -> web.Response:
        body = await request.json()
        wrong = [error for command in body for error in _command_errors(command, command.get("name", "?"))]
        wrong += [f"{c.get('name')}: {_size(c)} characters in all" for c in body if _size(c) > COMMAND_SIZE_LIMIT]
        if wrong:  # Discord refuses the whole list ("Invalid Form Body"): the bot's commands stay as they were
            return _json({"message": "Invalid Form Body", "code": 50035, "errors": wrong}, 400)
        synced = []
        for command in body:
            synced.append({**command, "id": str(self.new_id()), "application_id": str(self.application_id),
                           "version": str(self.new_id()), "guild_id": request.match_info.get("guild")})  # fmt: skip
        self.commands[request.match_info.get("guild") or "global"] = synced
        return _json(synced)

    def _refusal(self, channel_id: int) -> web.Response | None:
        if channel_id not in self.channels:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        code = self.refused_channels.get(channel_id)
        if code == 10003:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        if code is not None:
            return _json({"message": "Missing Permissions", "code": code}, 403)
        recipient = self.channels[channel_id].get("recipient_id")
        if recipient is not None and int(recipient) in self.closed_dms:
            return _json({"message": "Cannot send messages to this user", "code": 50007}, 403)
        return None

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["channel"])
        if channel_id not in self.channels:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        return _json(self.channels[channel_id])

    async def _post_message(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["channel"])
        refusal = self._refusal(channel_id)
        if refusal is not None:
            return refusal
        record = request[RECORD]
        body = _body(request)
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce") and (channel_id, nonce) in self._nonces:
            return _json(self._nonces[(channel_id, nonce)])
        attachments = self._attachments(channel_id, body, record.files)
        if isinstance(attachments, web.Response):
            return attachments
        message = self._message(channel_id, body)
        message["attachments"] = attachments
        self.messages.setdefault(channel_id, []).append(message)
        if nonce is not None:
            self._nonces[(channel_id, nonce)] = message
        return _json(message)

    def _attachments(
        self, channel_id: int, body: dict[str, Any], files: list[Upload]
    ) -> list[dict[str, Any]] | web.Response:
        """The attachments of a new message, as Discord lists them: each ``attachments`` entry of the
        payload names its file part (``files[<id>]``); a part named by none, or an entry with no part, is refused."""
        by_field = {f.field: f for f in files}
        made: list[dict[str, Any]] = []
        for entry in body.get("attachments") or []:
            upload = by_field.pop(f"files[{entry.get('id')}]", None)
            if upload is None:
                return _json({"message": "Invalid Form Body", "code": 50035,
                              "errors": {"attachments": f"no file part for {entry!r}"}}, 400)  # fmt: skip
            attachment_id = str(self.new_id())
            self.uploads[attachment_id] = upload.data
            filename = entry.get("filename") or upload.filename
            made.append({"id": attachment_id, "filename": filename, "size": len(upload.data),
                         "url": f"https://cdn.fake/attachments/{channel_id}/{attachment_id}/{filename}",
                         "proxy_url": f"https://media.fake/attachments/{channel_id}/{attachment_id}/{filename}",
                         "content_type": upload.content_type, "description": entry.get("description")})  # fmt: skip
        if by_field:
            return _json({"message": "Invalid Form Body", "code": 50035,
                          "errors": {"files": f"parts with no attachment entry: {sorted(by_field)}"}}, 400)  # fmt: skip
        return made

    def attachments(self, message: dict[str, Any]) -> list[tuple[dict[str, Any], bytes]]:
        """A stored message's attachments, each with the bytes uploaded."""
        return [(a, self.uploads[a["id"]]) for a in message.get("attachments", [])]

    def _find(self, channel_id: int, message_id: int) -> dict[str, Any] | None:
        return next((m for m in self.messages.get(channel_id, []) if int(m["id"]) == message_id), None)

    async def _edit_message(self, request: web.Request) -> web.Response:
        channel_id, message_id = int(request.match_info["channel"]), int(request.match_info["message"])
        refusal = self._refusal(channel_id)
        if refusal is not None:
            return refusal
        message = self._find(channel_id, message_id)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        body = await request.json()
        message.update({k: v for k, v in body.items() if k in ("content", "embeds", "components", "flags")})
        message["edited_timestamp"] = _now()
        return _json(message)

    async def _delete_message(self, request: web.Request) -> web.Response:
        channel_id, message_id = int(request.match_info["channel"]), int(request.match_info["message"])
        message = self._find(channel_id, message_id)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        self.messages[channel_id].remove(message)
        return web.Response(status=204)

    async def _pin(self, request: web.Request) -> web.Response:
        """Pin a message, as Discord does: idempotent, at most 250 pins, and a system message says it (type 6)."""
        channel_id, message_id = int(request.match_info["channel"]), int(request.match_info["message"])
        refusal = self._refusal(channel_id)
        if refusal is not None:
            return refusal
        message = self._find(channel_id, message_id)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        pins = self.pins.setdefault(channel_id, [])
        if message_id in pins:
            return web.Response(status=204)
        if len(pins) >= 250:
            return _json({"message": "Maximum number of pins reached (250)", "code": 30003}, 400)
        message["pinned"] = True
        pins.insert(0, message_id)  # newest first, as Discord lists them
        notice = self._message(channel_id, {})
        notice.update(type=6, message_reference={"channel_id": str(channel_id), "message_id": str(message_id)})
        self.messages[channel_id].append(notice)
        return web.Response(status=204)

    async def _unpin(self, request: web.Request) -> web.Response:
        channel_id, message_id = int(request.match_info["channel"]), int(request.match_info["message"])
        message = self._find(channel_id, message_id)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        message["pinned"] = False
        if message_id in self.pins.get(channel_id, []):
            self.pins[channel_id].remove(message_id)
        return web.Response(status=204)

    async def _list_pins(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["channel"])
        items = [{"pinned_at": _now(), "message": self._find(channel_id, m)} for m in self.pins.get(channel_id, [])]
        return _json({"items": items, "has_more": False})

    async def _list_pins_legacy(self, request: web.Request) -> web.Response:
        """The old route (``GET /channels/{c}/pins``): the pinned messages themselves, newest first."""
        channel_id = int(request.match_info["channel"])
        return _json([self._find(channel_id, m) for m in self.pins.get(channel_id, [])])

    def pinned(self, channel_id: int | str) -> list[dict[str, Any]]:
        """The messages pinned in a channel, newest first."""
        found = (self._find(int(channel_id), m) for m in self.pins.get(int(channel_id), []))
        return [m for m in found if m is not None]

    async def _forum_post(self, request: web.Request) -> web.Response:
        forum_id = int(request.match_info["channel"])
        refusal = self._refusal(forum_id)
        if refusal is not None:
            return refusal
        if self.channels[forum_id]["type"] != FORUM:
            return _json({"message": "Cannot execute action on this channel type", "code": 50024}, 400)
        body = await request.json()
        thread_id = self.new_id()
        thread = self._channel(thread_id, PUBLIC_THREAD, body["name"], parent=forum_id)
        thread.update(owner_id=str(self.application_id), message_count=1, member_count=1, rate_limit_per_user=0,
                      flags=0, applied_tags=[], total_message_sent=1,
                      thread_metadata={"archived": False, "auto_archive_duration": body.get("auto_archive_duration",
                                       10080), "archive_timestamp": _now(), "locked": False})  # fmt: skip
        self.channels[thread_id] = thread
        first = self._message(thread_id, body.get("message", {}))
        first["id"] = str(thread_id)  # a forum post's first message shares the thread's id
        self.messages[thread_id] = [first]
        return _json({**thread, "message": first})

    async def _active_threads(self, request: web.Request) -> web.Response:
        live = [t for t in self.threads() if not t["thread_metadata"]["archived"]]
        return _json({"threads": live, "members": [], "has_more": False})

    async def _open_dm(self, request: web.Request) -> web.Response:
        body = await request.json()
        user_id = int(body["recipient_id"])
        if user_id not in self.users:
            return _json({"message": "Unknown User", "code": 10013}, 404)
        channel = self.channels[self._dm_channel(user_id)]
        return _json({k: v for k, v in channel.items() if k != "recipient_id"})

    async def _callback(self, request: web.Request) -> web.Response:
        interaction_id = int(request.match_info["interaction"])
        body = await request.json()
        if self.callbacks.get(interaction_id):
            return _json({"message": "Interaction has already been acknowledged.", "code": 40060}, 400)
        self.callbacks.setdefault(interaction_id, []).append(body)
        token = request.match_info["token"]
        data = body.get("data") or {}
        answer: dict[str, Any] = {"interaction": {"id": str(interaction_id), "type": 2}}
        if body["type"] == 4:  # a message in answer
            message = self._message(self._token_channels.get(token, 0), data)
            self.interaction_messages.setdefault(token, []).append(message)
            answer["interaction"].update(response_message_id=message["id"],
                                         response_message_ephemeral=bool(data.get("flags", 0) & 64))  # fmt: skip
            answer["resource"] = {"type": 4, "message": message}
        elif body["type"] == 5:  # deferred: "thinking"
            answer["interaction"].update(response_message_loading=True,
                                         response_message_ephemeral=bool(data.get("flags", 0) & 64))  # fmt: skip
            answer["resource"] = {"type": 5}
        elif body["type"] == 7:  # UPDATE_MESSAGE: the message the component is on is edited
            message = self._component_messages.get(interaction_id)
            if message is None:
                return _json({"message": "Unknown Message", "code": 10008}, 404)
            message.update({k: v for k, v in data.items() if k in ("content", "embeds", "components")})
            message["edited_timestamp"] = _now()
            answer["resource"] = {"type": 7, "message": message}
        else:
            answer["resource"] = {"type": body["type"]}
        return _json(answer)

    async def _followup(self, request: web.Request) -> web.Response:
        body = await request.json()
        token = request.match_info["token"]
        message = self._message(self._token_channels.get(token, 0), body)
        self.interaction_messages.setdefault(token, []).append(message)
        return _json(message)

    async def _edit_followup(self, request: web.Request) -> web.Response:
        body = await request.json()
        token = request.match_info["token"]
        messages = self.interaction_messages.setdefault(token, [])
        target = request.match_info["message"]
        message = messages[0] if target == "@original" and messages else next(
            (m for m in messages if m["id"] == target), None)  # fmt: skip
        if message is None:
            message = self._message(0, body)
            messages.append(message)
        message.update({k: v for k, v in body.items() if k in ("content", "embeds", "components")})
        return _json(message)

    async def _delete_followup(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    # -- guild scheduled events --------------------------------------------

    def _event_refusal(self, request: web.Request) -> web.Response | None:
        if int(request.match_info["guild"]) != self.guild_id:
            return _json({"message": "Unknown Guild", "code": 10004}, 404)
        if self.events_refused is not None:
            return _json({"message": "Missing Permissions", "code": self.events_refused}, 403)
        return None

    def _event(self, request: web.Request) -> dict[str, Any] | web.Response:
        refusal = self._event_refusal(request)
        if refusal is not None:
            return refusal
        event = self.events.get(int(request.match_info["event"]))
        if event is None:
            return _json({"message": "Unknown Guild Scheduled Event", "code": UNKNOWN_EVENT}, 404)
        return event

    async def _list_events(self, request: web.Request) -> web.Response:
        refusal = self._event_refusal(request)
        return refusal or _json(list(self.events.values()))

    async def _create_event(self, request: web.Request) -> web.Response:
        refusal = self._event_refusal(request)
        if refusal is not None:
            return refusal
        body = _body(request)
        event_id = self.new_id()
        event = {"id": str(event_id), "guild_id": str(self.guild_id), "channel_id": None,
                 "creator_id": str(self.application_id), "creator": self.bot_user, "name": body.get("name"),
                 "description": body.get("description"), "scheduled_start_time": body.get("scheduled_start_time"),
                 "scheduled_end_time": body.get("scheduled_end_time"), "privacy_level": body.get("privacy_level"),
                 "status": EVENT_SCHEDULED, "entity_type": body.get("entity_type"), "entity_id": None,
                 "entity_metadata": body.get("entity_metadata"), "user_count": 0, "image": None}  # fmt: skip
        problems = _event_problems(event)
        if problems:
            return _json({"message": "Invalid Form Body", "code": 50035, "errors": problems}, 400)
        self.events[event_id] = event
        return _json(event)

    async def _get_event(self, request: web.Request) -> web.Response:
        event = self._event(request)
        return event if isinstance(event, web.Response) else _json(event)

    async def _edit_event(self, request: web.Request) -> web.Response:
        """An edit as Discord takes one: a finished event is not edited (180000), a status moves only
        scheduled -> active or cancelled and active -> completed, a started event keeps its start."""
        event = self._event(request)
        if isinstance(event, web.Response):
            return event
        if event["status"] in (EVENT_COMPLETED, EVENT_CANCELLED):
            return _json({"message": "Cannot edit a finished event", "code": 180000}, 400)
        body = _body(request)
        wanted = body.get("status", event["status"])
        if wanted != event["status"] and (event["status"], wanted) not in EVENT_MOVES:
            return _json({"message": "Invalid Form Body", "code": 50035,
                          "errors": {"status": f"{event['status']} -> {wanted}"}}, 400)  # fmt: skip
        edited = {**event, **{k: v for k, v in body.items() if k in EVENT_FIELDS}}
        if event["status"] == EVENT_ACTIVE and edited["scheduled_start_time"] != event["scheduled_start_time"]:
            return _json({"message": "Invalid Form Body", "code": 50035,
                          "errors": {"scheduled_start_time": "the event has started"}}, 400)  # fmt: skip
        problems = _event_problems(edited)
        if problems:
            return _json({"message": "Invalid Form Body", "code": 50035, "errors": problems}, 400)
        event.update(edited)
        return _json(event)

    async def _delete_event(self, request: web.Request) -> web.Response:
        event = self._event(request)
        if isinstance(event, web.Response):
            return event
        del self.events[int(event["id"])]
        return web.Response(status=204)

    def start_events(self, now: datetime) -> None:
        """What Discord does on its own at ``now``: an external event whose start came is active, one whose
        end came is completed."""
        for event in self.events.values():
            if event["status"] == EVENT_SCHEDULED and datetime.fromisoformat(event["scheduled_start_time"]) <= now:
                event["status"] = EVENT_ACTIVE
            if event["status"] == EVENT_ACTIVE and datetime.fromisoformat(event["scheduled_end_time"]) <= now:
                event["status"] = EVENT_COMPLETED

    def event_requests(self, method: str | None = None) -> list[Request]:
        """The scheduled-event requests answered (of ``method``, when given)."""
        return [r for r in self.requests if "/scheduled-events" in r.path and r.status
                and (method is None or r.method == method)]  # fmt: skip


MESSAGE_CALLBACKS = {4, 7}
"""Interaction callbacks that carry a message: CHANNEL_MESSAGE_WITH_SOURCE and UPDATE_MESSAGE."""


def message_payload(request: Request) -> dict[str, Any] | None:
    """The message a request creates or edits (content, ``allowed_mentions`` ...); None for any other request.

    Messages in channels, threads and DMs (POST and PATCH), a forum post's
    first message, interaction answers that carry a message, follow-ups and
    their edits.  A request whose body is not JSON gives ``{}`` (so it counts
    as saying nothing about mentions).
    """
    path, method = request.path, request.method
    body = request.body if isinstance(request.body, dict) else {}
    parts = path.strip("/").split("/")
    if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages" and "pins" not in parts:
        creates = method == "POST" and len(parts) == 3
        edits = method == "PATCH" and len(parts) == 4
        return body if creates or edits else None
    if parts[0] == "channels" and method == "POST" and parts[-1] == "threads":
        message = body.get("message")
        return message if isinstance(message, dict) else {}
    if parts[0] == "interactions" and method == "POST" and parts[-1] == "callback":
        data = body.get("data")
        return (data if isinstance(data, dict) else {}) if body.get("type") in MESSAGE_CALLBACKS else None
    creates = method == "POST" and len(parts) == 3
    if parts[0] == "webhooks" and (creates or (method == "PATCH" and "messages" in parts)):
        return body
    return None


def mentions_guarded(payload: dict[str, Any], users: frozenset[str] = frozenset()) -> bool:
    """Whether a message's ``allowed_mentions`` parse nothing and ping no role, and name no user but ``users``."""
    allowed = payload.get("allowed_mentions")
    if not isinstance(allowed, dict) or allowed.get("parse") != []:
        return False
    named = {str(user) for user in allowed.get("users", [])}
    return not allowed.get("roles") and named <= users and not allowed.get("replied_user")


def _delivery_request(request: Request) -> bool:
    """By default faults hit what the bot sends on its own (messages, DMs, forum posts), not logins."""
    return request.method == "POST" and (
        request.path.endswith("/messages") or request.path.endswith("/threads") or request.path == "/users/@me/channels"
    )


EVENT_SCHEDULED, EVENT_ACTIVE, EVENT_COMPLETED, EVENT_CANCELLED = 1, 2, 3, 4
EVENT_MOVES = {(EVENT_SCHEDULED, EVENT_ACTIVE), (EVENT_SCHEDULED, EVENT_CANCELLED), (EVENT_ACTIVE, EVENT_COMPLETED)}
EVENT_FIELDS = ("name", "description", "scheduled_start_time", "scheduled_end_time", "privacy_level", "status",
                "entity_type", "entity_metadata", "channel_id")  # fmt: skip
EXTERNAL, GUILD_ONLY = 3, 2
UNKNOWN_EVENT = 10070


def _event_problems(event: dict[str, Any]) -> dict[str, str]:
    """What Discord would refuse in an event (its documented limits for an external one)."""
    problems: dict[str, str] = {}
    name = event.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        problems["name"] = "1 to 100 characters"
    description = event.get("description")
    if description is not None and (not isinstance(description, str) or len(description) > 1000):
        problems["description"] = "at most 1000 characters"
    if event.get("privacy_level") != GUILD_ONLY:
        problems["privacy_level"] = "must be 2 (guild only)"
    if event.get("entity_type") != EXTERNAL:
        problems["entity_type"] = "this fake takes external events (3) only"
    location = (event.get("entity_metadata") or {}).get("location")
    if not isinstance(location, str) or not 1 <= len(location) <= 100:
        problems["entity_metadata.location"] = "1 to 100 characters"
    try:
        start = datetime.fromisoformat(event["scheduled_start_time"])
        end = datetime.fromisoformat(event["scheduled_end_time"])
    except (KeyError, TypeError, ValueError):
        problems["scheduled_end_time"] = "an external event needs a start and an end (ISO 8601)"
    else:
        if start.tzinfo is None or end.tzinfo is None or end <= start:
            problems["scheduled_end_time"] = "after the start, with a time zone"
    return problems


def _body(request: web.Request) -> dict[str, Any]:
    """The JSON object a request carried (its ``payload_json``, for a form), or ``{}``."""
    body = request[RECORD].body
    return body if isinstance(body, dict) else {}


_BOUNDARY = re.compile(r'boundary="?([^";]+)"?')
_NAME = re.compile(r'\bname="([^"]*)"')
_FILENAME = re.compile(r'\bfilename="([^"]*)"')


def _form_parts(raw: bytes, content_type: str) -> list[Upload]:
    """The parts of a ``multipart/form-data`` body (RFC 7578), bytes exactly as sent."""
    found = _BOUNDARY.search(content_type)
    if found is None:
        raise ValueError("multipart/form-data without a boundary")
    parts: list[Upload] = []
    for chunk in raw.split(b"--" + found.group(1).encode())[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, data = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        headers = dict(line.split(":", 1) for line in head.decode().split("\r\n") if ":" in line)
        headers = {k.strip().lower(): v.strip() for k, v in headers.items()}
        disposition = headers.get("content-disposition", "")
        name, filename = _NAME.search(disposition), _FILENAME.search(disposition)
        parts.append(Upload(name.group(1) if name else "", filename.group(1) if filename else "",
                            headers.get("content-type", ""), data.removesuffix(b"\r\n")))  # fmt: skip
    return parts


DESCRIPTION_LIMIT, NAME_LIMIT, OPTION_LIMIT, COMMAND_SIZE_LIMIT = 100, 32, 25, 8000
"""Discord's limits on an application command (its API reference, "Application Command Structure")."""


def _size(command: dict[str, Any]) -> int:
    """A command's size as Discord counts it against 8,000: its names, descriptions and choices' names and
    values, options and subcommands included, each field by its longest localization."""

    def longest(entry: dict[str, Any], key: str) -> int:
        return max([len(str(entry.get(key) or "")), *map(len, (entry.get(f"{key}_localizations") or {}).values())])

    choices = sum(
        longest(choice, "name") + len(str(choice.get("value", ""))) for choice in command.get("choices") or []
    )
    options = sum(_size(option) for option in command.get("options") or [])
    return longest(command, "name") + longest(command, "description") + choices + options


def _command_errors(command: dict[str, Any], path: str) -> list[str]:
    """What Discord refuses in a synced command or option, recursively: a description of more than 100
    characters or none (a chat command's), a name longer than 32 or not lower case, more than 25 options,
    and the same limits on every translation of a name or a description."""
    errors: list[str] = []
    name, description = command.get("name", ""), command.get("description")
    names = [name, *(command.get("name_localizations") or {}).values()]
    if any(not 1 <= len(n) <= NAME_LIMIT or n != n.lower() or " " in n for n in names):
        errors.append(f"{path}: a name is empty, longer than {NAME_LIMIT}, not lower case or has a space: {names}")
    if description is not None or command.get("type", 1) == 1:
        described = [description or "", *(command.get("description_localizations") or {}).values()]
        errors += [f"{path}: description of {len(d)} characters: {d!r}" for d in described
                   if not 1 <= len(d) <= DESCRIPTION_LIMIT]  # fmt: skip
    options = command.get("options") or []
    if len(options) > OPTION_LIMIT:
        errors.append(f"{path}: {len(options)} options")
    for option in options:
        errors += _command_errors(option, f"{path} {option.get('name', '?')}")
    return errors
