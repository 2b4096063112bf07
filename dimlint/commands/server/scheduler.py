"""When each open document is linted: one lint in flight per document, the latest version wins.

An editor sends a change per keystroke; a lint of a long Python file takes seconds. The rules:

* **Debounce.** A change (re)starts a short timer; the lint starts when the timer fires, so a
  burst of keystrokes costs one lint.
* **One lint in flight per document.** While a lint of a document runs, nothing else of that
  document starts. The running lint is never cancelled by a keystroke or by a cancelled request
  (its result is just not used): the slot is freed only when the work itself has ended, so the
  next lint cannot start beside it and pile up behind it on the workers.
* **Latest version wins.** A result is published only if the document is still at the version
  (and settings generation) it was computed from; otherwise it is dropped, and the lint of the
  document as it is now starts — at once when the document's debounce has already run out while
  the old lint was busy, or when its timer fires.
* **Requests wait for the current version**, sharing the lint the scheduler runs anyway (a code
  action right after a keystroke does not start a second lint; a cancelled request only stops
  waiting).

Where each lint runs (threads for JSON and YAML, a worker process for Python, so that data files
never queue behind code) is the ``run`` function given to the scheduler. No pygls here: the
scheduler is tested with a scripted clock of futures.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

R = TypeVar("R")
logger = logging.getLogger("dimlint.server")


class Snapshot(NamedTuple):
    """One version of one document, as a lint reads it."""

    version: int | None
    text: str
    #: The settings generation: a change of settings makes every cached result stale.
    generation: int = 0


class _Slot(Generic[R]):
    """The lint state of one open document."""

    __slots__ = ("done", "published", "running", "timer", "waiters")

    def __init__(self) -> None:
        self.timer: asyncio.TimerHandle | None = None
        self.running: asyncio.Future[R] | None = None
        self.done: tuple[Snapshot, R] | None = None
        self.published: Snapshot | None = None
        self.waiters: list[asyncio.Future[tuple[Snapshot, R] | None]] = []


class Scheduler(Generic[R]):
    """Schedules the lints of open documents.

    ``snapshot(uri)``: the document as it is now (None once closed). ``run(uri, snapshot)``: start
    its lint, returning a future. ``publish(uri, snapshot, result)``: show a result that is still
    current. ``trace(message)``: one line per lint started, published or dropped (the server's
    ``$/logTrace``; tests count lints with it). ``counts`` keeps the same tallies in process.
    """

    def __init__(
        self,
        snapshot: Callable[[str], Snapshot | None],
        run: Callable[[str, Snapshot], asyncio.Future[R]],
        publish: Callable[[str, Snapshot, R], None],
        trace: Callable[[str], None] | None = None,
        debounce: float = 0.1,
    ) -> None:
        self._snapshot = snapshot
        self._run = run
        self._publish = publish
        self._trace = trace
        self.debounce = debounce
        self.counts: Counter[str] = Counter()
        self._slots: dict[str, _Slot[R]] = {}

    # -- events --------------------------------------------------------------------------------

    def opened(self, uri: str) -> None:
        """A document was opened: lint it at once."""
        self._slots.setdefault(uri, _Slot())
        self.changed(uri, 0.0)

    def changed(self, uri: str, delay: float | None = None) -> None:
        """``uri`` changed: lint it once ``delay`` (the debounce) has passed without a change."""
        slot = self._slots.get(uri)
        if slot is None:
            return
        if slot.timer is not None:
            slot.timer.cancel()
            slot.timer = None
        wait = self.debounce if delay is None else delay
        if wait > 0:
            slot.timer = asyncio.get_running_loop().call_later(wait, self._due, uri)
        else:
            self._due(uri)

    def closed(self, uri: str) -> None:
        """Forget ``uri``: a lint of it still running finishes, and its result is dropped."""
        slot = self._slots.pop(uri, None)
        if slot is None:
            return
        if slot.timer is not None:
            slot.timer.cancel()
        for waiter in slot.waiters:
            if not waiter.done():
                waiter.set_result(None)

    def relint_all(self) -> None:
        """Lint every open document again now (the settings changed)."""
        for uri in list(self._slots):
            self.changed(uri, 0.0)

    def is_open(self, uri: str) -> bool:
        return uri in self._slots

    def cached(self, uri: str) -> tuple[Snapshot, R] | None:
        """The last result computed for ``uri``'s current version, if any."""
        slot = self._slots.get(uri)
        if slot is None or slot.done is None:
            return None
        return slot.done if slot.done[0] == self._snapshot(uri) else None

    async def current(self, uri: str) -> tuple[Snapshot, R] | None:
        """The result for the document as it is when the result is ready (None: closed, or its
        lint failed). Starts the lint now instead of after the debounce: someone is waiting."""
        slot = self._slots.get(uri)
        if slot is None:
            return None
        found = self.cached(uri)
        if found is not None:
            return found
        waiter: asyncio.Future[tuple[Snapshot, R] | None] = (
            asyncio.get_running_loop().create_future()
        )
        slot.waiters.append(waiter)
        if slot.timer is not None:
            slot.timer.cancel()
            slot.timer = None
        if slot.running is None:
            self._start(uri, slot)
        try:
            return await waiter
        finally:
            if waiter in slot.waiters:
                slot.waiters.remove(waiter)

    # -- internals -----------------------------------------------------------------------------

    def _due(self, uri: str) -> None:
        slot = self._slots.get(uri)
        if slot is None:
            return
        slot.timer = None
        if slot.running is None:
            self._start(uri, slot)
        # else: when the running lint ends, its result is stale and the current version starts

    def _note(self, event: str, uri: str, snapshot: Snapshot) -> None:
        self.counts[event] += 1
        if self._trace is not None:
            self._trace(f"lint {event} {uri} version {snapshot.version}")

    def _start(self, uri: str, slot: _Slot[R]) -> None:
        snapshot = self._snapshot(uri)
        if snapshot is None:
            return
        if slot.done is not None and slot.done[0] == snapshot:
            self._deliver(uri, slot, slot.done)  # nothing changed since (a change undone)
            return
        self._note("started", uri, snapshot)
        future = self._run(uri, snapshot)
        slot.running = future
        future.add_done_callback(lambda done: self._finished(uri, slot, snapshot, done))

    def _finished(
        self, uri: str, slot: _Slot[R], snapshot: Snapshot, done: asyncio.Future[R]
    ) -> None:
        slot.running = None
        if self._slots.get(uri) is not slot:
            self._note("dropped", uri, snapshot)  # closed meanwhile
            return
        failed = done.cancelled() or done.exception() is not None
        now = self._snapshot(uri)
        if now != snapshot:
            self._note("dropped", uri, snapshot)
            # the debounce ran out while this lint was busy, or a request waits: start now
            if slot.timer is None or slot.waiters:
                if slot.timer is not None:
                    slot.timer.cancel()
                    slot.timer = None
                self._start(uri, slot)
            return
        if failed:
            self._note("failed", uri, snapshot)
            for waiter in slot.waiters:
                if not waiter.done():
                    waiter.set_result(None)
            return
        self._deliver(uri, slot, (snapshot, done.result()))

    def _deliver(self, uri: str, slot: _Slot[R], result: tuple[Snapshot, R]) -> None:
        slot.done = result
        for waiter in slot.waiters:
            if not waiter.done():
                waiter.set_result(result)
        if slot.published != result[0]:
            slot.published = result[0]
            self._note("published", uri, result[0])
            self._publish(uri, *result)
