"""Built pages, kept until what they show changes; and the bound on how many are being built at once.

A request costs a stamp (one small SELECT, :mod:`bot.core.views.page_stamps`)
and, while the stamp is the one a page was built under, nothing more: the
kept bytes are served again, and a reader who sends the page's ``ETag`` back
(``If-None-Match``) gets ``304 Not Modified``.  A page is built again only
when its stamp changes, so a burst of readers of a long game costs one build,
not one per request.

* :class:`PageCache`: least recently used first out, bounded in bytes (a page
  bigger than the whole bound is served, not kept).
* :class:`Builds`: one build per page and stamp at a time, however many ask
  for it meanwhile (they wait for the same build); at most ``running`` builds
  run at once, in threads, and at most ``waiting`` more wait for a turn.
  Beyond that a request is refused at once (:class:`Busy`: the server answers
  503 with ``Retry-After``) rather than queued without end.  A build goes on
  when the reader who asked for it leaves (another may want it); a request
  that waits for one can be cancelled freely.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Built:
    """A page's bytes, its media type and its entity tag (a digest of the bytes)."""

    body: bytes
    content_type: str
    etag: str = field(default="")
    headers: tuple[tuple[str, str], ...] = ()
    """Headers of this page beside the site's own (a picture's own policy, a download's file name)."""

    @classmethod
    def of(cls, body: bytes, content_type: str, headers: tuple[tuple[str, str], ...] = ()) -> Built:
        return cls(body, content_type, hashlib.sha256(body).hexdigest()[:32], headers)


class PageCache:
    """Built pages by key, each with the stamp it was built under; at most ``max_bytes`` of bodies."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._pages: OrderedDict[Hashable, tuple[str, Built]] = OrderedDict()

    def get(self, key: Hashable, stamp: str) -> Built | None:
        """The page kept for ``key`` if it was built under ``stamp`` (else None)."""
        kept = self._pages.get(key)
        if kept is None or kept[0] != stamp:
            return None
        self._pages.move_to_end(key)
        return kept[1]

    def put(self, key: Hashable, stamp: str, built: Built) -> None:
        """Keep ``built`` for ``key`` (replacing what was kept), dropping the least recently used beyond the bound."""
        self._drop(key)
        if len(built.body) > self.max_bytes:
            return
        self._pages[key] = (stamp, built)
        self.bytes += len(built.body)
        while self.bytes > self.max_bytes:
            self._drop(next(iter(self._pages)))

    def _drop(self, key: Hashable) -> None:
        kept = self._pages.pop(key, None)
        if kept is not None:
            self.bytes -= len(kept[1].body)

    def __len__(self) -> int:
        return len(self._pages)


class Busy(Exception):
    """Too many pages are being built, and too many requests wait for one: come back later."""


class Builds:
    """Runs builds in threads, ``running`` at once and ``waiting`` more queued; one per key at a time."""

    def __init__(self, running: int, waiting: int, cache: PageCache) -> None:
        self.cache = cache
        self.limit = running + waiting
        self._slots = asyncio.Semaphore(running)
        self._flights: dict[Hashable, asyncio.Task[Any]] = {}
        self.builds = 0
        """How many builds have run (for tests)."""

    async def page(self, key: Hashable, stamp: str, build: Callable[[], Built | None]) -> Built | None:
        """The page ``key`` as of ``stamp``: kept, or built once (whoever else asks meanwhile waits for the
        same build) and kept; None when ``build`` found nothing to build (not kept).  Raises :class:`Busy`
        when a new build would exceed the bound."""
        kept = self.cache.get(key, stamp)
        if kept is not None:
            return kept
        flight = (key, stamp)
        task = self._flights.get(flight)
        if task is None:
            task = self._start(flight, lambda: self._kept(key, stamp, build))
        built: Built | None = await asyncio.shield(task)
        return built

    async def run(self, work: Callable[[], T]) -> T:
        """``work`` in a thread within the bound (a page that is not kept: a calendar read per request)."""
        result: T = await asyncio.shield(self._start(object(), lambda: self._in_a_slot(work)))
        return result

    async def _kept(self, key: Hashable, stamp: str, build: Callable[[], Built | None]) -> Built | None:
        built = await self._in_a_slot(build)
        if built is not None:
            self.cache.put(key, stamp, built)
        return built

    def _start(self, flight: Hashable, work: Callable[[], Coroutine[Any, Any, Any]]) -> asyncio.Task[Any]:
        if len(self._flights) >= self.limit:
            raise Busy
        task = asyncio.create_task(work())
        self._flights[flight] = task
        task.add_done_callback(lambda done: self._landed(flight, done))
        return task

    def _landed(self, flight: Hashable, task: asyncio.Task[Any]) -> None:
        self._flights.pop(flight, None)
        if not task.cancelled():
            task.exception()  # retrieved: whoever waited has it; nobody may be left to

    async def _in_a_slot(self, work: Callable[[], T]) -> T:
        async with self._slots:
            self.builds += 1
            return await asyncio.to_thread(work)
