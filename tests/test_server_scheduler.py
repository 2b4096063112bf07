"""The language server's lint scheduling, driven by a scripted typing session.

The lints are futures the test completes by hand, so every count below is exact whatever the
machine's load: how many lints started, which results were published, which dropped.
"""

from __future__ import annotations

import asyncio

import pytest

from dimlint.commands.server.scheduler import Scheduler, Snapshot


class Editor:
    """Open documents, and the lints the scheduler asked for (completed by the test)."""

    def __init__(self, debounce: float = 0.0) -> None:
        self.documents: dict[str, Snapshot] = {}
        self.lints: list[tuple[str, Snapshot, asyncio.Future[str]]] = []
        self.published: list[tuple[str, int | None, str]] = []
        self.traced: list[str] = []
        self.scheduler: Scheduler[str] = Scheduler(
            self.documents.get, self.run, self.publish, self.traced.append, debounce
        )

    def run(self, uri: str, snapshot: Snapshot) -> asyncio.Future[str]:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.lints.append((uri, snapshot, future))
        return future

    def publish(self, uri: str, snapshot: Snapshot, result: str) -> None:
        self.published.append((uri, snapshot.version, result))

    def open(self, uri: str, text: str) -> None:
        self.documents[uri] = Snapshot(1, text)
        self.scheduler.opened(uri)

    def type(self, uri: str, text: str) -> None:
        old = self.documents[uri]
        self.documents[uri] = Snapshot((old.version or 0) + 1, text)
        self.scheduler.changed(uri)

    def running(self, uri: str) -> list[Snapshot]:
        return [s for u, s, f in self.lints if u == uri and not f.done()]

    async def finish(self, uri: str) -> None:
        """Complete the lint of ``uri`` in flight with a result naming its text."""
        [(_, snapshot, future)] = [(u, s, f) for u, s, f in self.lints if u == uri and not f.done()]
        future.set_result(f"findings of {snapshot.text!r}")
        await asyncio.sleep(0)  # run the done callbacks


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_keystrokes_during_a_lint_cost_one_more_lint_of_the_last_version() -> None:
    editor = Editor(debounce=0.0)  # no debounce: the worst case for piling up
    editor.open("a.py", "v1")
    await settle()
    assert len(editor.lints) == 1
    for key in range(2, 42):  # 40 keystrokes while the first lint runs
        editor.type("a.py", f"v{key}")
        await settle()
    assert len(editor.running("a.py")) == 1  # one lint in flight, whatever the typing
    assert len(editor.lints) == 1
    await editor.finish("a.py")  # the lint of v1 ends: dropped, the last version starts
    await settle()
    assert editor.published == []
    assert [s.text for _, s, _ in editor.lints] == ["v1", "v41"]
    await editor.finish("a.py")
    assert editor.published == [("a.py", 41, "findings of 'v41'")]
    assert editor.scheduler.counts == {"started": 2, "dropped": 1, "published": 1}
    assert editor.traced == [
        "lint started a.py version 1",
        "lint dropped a.py version 1",
        "lint started a.py version 41",
        "lint published a.py version 41",
    ]


@pytest.mark.asyncio
async def test_debounce_holds_the_next_lint_until_typing_pauses() -> None:
    editor = Editor(debounce=0.05)
    editor.open("a.py", "v1")
    await settle()
    for key in range(2, 6):  # keys faster than the debounce, while v1 is linted
        editor.type("a.py", f"v{key}")
        await asyncio.sleep(0.001)
    await editor.finish("a.py")
    await settle()
    # the debounce has not run out: nothing new starts yet, the stale result is dropped
    assert len(editor.lints) == 1
    await asyncio.sleep(0.2)
    assert [s.text for _, s, _ in editor.lints] == ["v1", "v5"]
    await editor.finish("a.py")
    assert editor.published == [("a.py", 5, "findings of 'v5'")]


@pytest.mark.asyncio
async def test_documents_do_not_wait_for_each_other() -> None:
    editor = Editor()
    editor.open("model.py", "slow")
    editor.open("config.json", "c1")
    await settle()
    assert {u for u, _, _ in editor.lints} == {"model.py", "config.json"}
    await editor.finish("config.json")  # published while the Python lint still runs
    assert editor.published == [("config.json", 1, "findings of 'c1'")]
    editor.type("config.json", "c2")
    await settle()
    await editor.finish("config.json")
    assert editor.published[-1] == ("config.json", 2, "findings of 'c2'")
    assert len(editor.running("model.py")) == 1


@pytest.mark.asyncio
async def test_a_request_shares_the_lint_and_its_cancellation_stops_nothing() -> None:
    editor = Editor(debounce=10.0)  # the timer would wait: the request starts the lint now
    editor.open("a.json", "v1")
    await settle()
    await editor.finish("a.json")
    editor.type("a.json", "v2")
    first = asyncio.ensure_future(editor.scheduler.current("a.json"))
    second = asyncio.ensure_future(editor.scheduler.current("a.json"))
    await settle()
    assert len(editor.lints) == 2  # one lint for both requests
    first.cancel()  # the client cancelled one request: the lint goes on
    await settle()
    assert len(editor.running("a.json")) == 1
    editor.type("a.json", "v3")  # typing meanwhile, the debounce long
    await editor.finish("a.json")  # v2's result is stale: dropped, and v3 starts at once
    await settle()
    assert not second.done()
    assert [s.text for s in editor.running("a.json")] == ["v3"]  # a request waits: no debounce
    await editor.finish("a.json")
    snapshot, result = (await second) or (None, None)
    assert snapshot is not None
    assert snapshot.version == 3
    assert result == "findings of 'v3'"
    assert editor.scheduler.counts["started"] == 3


@pytest.mark.asyncio
async def test_close_drops_the_running_result_and_an_unchanged_text_is_not_relinted() -> None:
    editor = Editor()
    editor.open("a.yaml", "v1")
    await settle()
    editor.scheduler.closed("a.yaml")
    del editor.documents["a.yaml"]
    await editor.finish("a.yaml")
    assert editor.published == []
    editor.open("b.yaml", "same")
    await settle()
    await editor.finish("b.yaml")
    editor.scheduler.changed("b.yaml", 0.0)  # e.g. a save: same version and text
    await settle()
    assert editor.scheduler.counts["started"] == 2
    assert editor.scheduler.cached("b.yaml") is not None


@pytest.mark.asyncio
async def test_a_failed_lint_frees_the_slot() -> None:
    editor = Editor()
    editor.open("a.py", "v1")
    await settle()
    waiting = asyncio.ensure_future(editor.scheduler.current("a.py"))
    await settle()
    editor.lints[0][2].set_exception(RuntimeError("a bug in a rule"))
    assert await waiting is None
    editor.type("a.py", "v2")
    await asyncio.sleep(0.2)
    await editor.finish("a.py")
    assert editor.published == [("a.py", 2, "findings of 'v2'")]
