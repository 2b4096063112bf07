"""The language server: pygls wiring, debounced linting off the event loop, latest version wins.

Scheduling. Opening a document lints it at once; each change restarts a short timer (the
debounce) so that a burst of keystrokes costs one lint. Lints run on a thread pool, never on the
event loop; Python files, whose libcst parse takes a second or more for a long model file, are
linted in a worker process, so that they do not hold the GIL the event loop and the other lints
need. A slow file thus delays neither the diagnostics of other files nor hovers and code
actions. Each document has at most one lint running: a newer version
waits for it, and a result is published only if the document is still at the version it was
computed from — a late result for old text never overwrites newer diagnostics.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from dimlint import __version__
from dimlint.commands.server import protocol
from dimlint.commands.server.config import SETTINGS_FILES, ServerSettings
from dimlint.commands.server.linting import Linted, fix_all, lint_text
from dimlint.commands.server.positions import LineIndex, LspPosition, encoding_of
from dimlint.diagnostics import Applicability, Diagnostic

#: Seconds between the last keystroke and the lint (``debounce-ms`` in the editor settings).
DEBOUNCE = 0.1
#: Worker processes for Python files (a second one would only compete for the same cores).
PROCESSES = 1
#: Threads linting at once: enough that one slow file leaves room for the others.
WORKERS = 4

logger = logging.getLogger("dimlint.server")
T = TypeVar("T")


class DimlintServer(LanguageServer):
    """pygls server holding the per-document lint state."""

    def __init__(self) -> None:
        super().__init__(
            "dimlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental
        )
        self.config = ServerSettings()
        self.debounce = DEBOUNCE
        self.pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="dimlint-lint")
        self._processes: ProcessPoolExecutor | None = None
        self._processes_lock = threading.Lock()
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.running: dict[str, asyncio.Future[Any]] = {}
        self.open: set[str] = set()
        self.shown: set[str] = set()

    # -- settings ---------------------------------------------------------------------------

    def take_settings(self, section: Any) -> None:
        """Apply the editor's ``dimlint`` settings section (``debounce-ms`` is the server's)."""
        if isinstance(section, dict):
            section = dict(section)
            debounce = section.pop("debounce-ms", None)
            if isinstance(debounce, int | float) and not isinstance(debounce, bool):
                self.debounce = max(0.0, float(debounce) / 1000)
        problem = self.config.set_client(section)
        if problem is not None:
            self.tell(problem)

    def tell(self, problem: str) -> None:
        """Show a problem with the settings once (the log has every occurrence)."""
        self.window_log_message(
            types.LogMessageParams(type=types.MessageType.Warning, message=f"dimlint: {problem}")
        )
        if problem not in self.shown:
            self.shown.add(problem)
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"dimlint: {problem}"
                )
            )

    def relint_all(self) -> None:
        """Lint every open document again (the settings changed: cached results are stale)."""
        self.linted.clear()
        for uri in list(self.open):
            self.schedule(uri, 0.0)

    # -- linting ----------------------------------------------------------------------------

    def index(self, text: str) -> LineIndex:
        return LineIndex(text, encoding_of(self.workspace.position_encoding))

    def schedule(self, uri: str, delay: float) -> None:
        """Lint ``uri`` after ``delay`` seconds, replacing a lint scheduled earlier."""
        earlier = self.pending.pop(uri, None)
        if earlier is not None:
            earlier.cancel()
        task = asyncio.ensure_future(self._lint_later(uri, delay))
        task.add_done_callback(_log_failure)
        self.pending[uri] = task

    def heavy(self, path: str, function: Callable[..., T], *args: Any) -> T:
        """Run ``function(*args)`` for the file at ``path``: in the worker process for Python
        files, else right here (on a pool thread). A worker that died is replaced."""
        if not path.endswith(".py"):
            return function(*args)
        with self._processes_lock:
            if self._processes is None:
                context = multiprocessing.get_context("spawn")  # no fork of a threaded server
                self._processes = ProcessPoolExecutor(max_workers=PROCESSES, mp_context=context)
            processes = self._processes
        try:
            return processes.submit(function, *args).result()
        except BrokenProcessPool:
            with self._processes_lock:
                if self._processes is processes:
                    self._processes = None
            raise

    def close(self) -> None:
        """Stop the workers (at exit)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None:
            self._processes.shutdown(wait=True, cancel_futures=True)  # a Python lint at most

    def _lint_job(self, path: str, text: str) -> tuple[tuple[Diagnostic, ...], tuple[str, ...]]:
        resolved = self.config.resolve(path)
        return self.heavy(path, lint_text, path, text, resolved.selection), resolved.problems

    async def lint_now(self, uri: str) -> Linted | None:
        """Lint the current version of ``uri`` (waiting for a lint of it already running)."""
        running = self.running.get(uri)
        if running is not None:
            await asyncio.wait([running])
        if uri not in self.open:
            return None
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        cached = self.linted.get(uri)
        if cached is not None and cached.version == version and cached.text == text:
            return cached
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.pool, self._lint_job, document.path, text)
        self.running[uri] = future
        try:
            diagnostics, problems = await asyncio.shield(future)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug in a rule must not take the server down
            logger.exception("lint failed")
            self.tell(f"internal error linting {document.path}: {type(error).__name__}: {error}")
            return None
        finally:
            if self.running.get(uri) is future:
                del self.running[uri]
        for problem in problems:
            self.tell(problem)
        linted = Linted(version, text, diagnostics)
        if uri in self.open:
            self.linted[uri] = linted
        return linted

    async def _lint_later(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        linted = await self.lint_now(uri)
        if linted is None or uri not in self.open:
            return
        if self.workspace.get_text_document(uri).version != linted.version:
            return  # a newer version is scheduled: its result will be published
        index = self.index(linted.text)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                version=linted.version,
                diagnostics=[protocol.diagnostic(index, d) for d in linted.diagnostics],
            )
        )

    def forget(self, uri: str) -> None:
        self.open.discard(uri)
        self.linted.pop(uri, None)
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )


def _log_failure(task: asyncio.Task[None]) -> None:
    """A failed lint task is logged (its exception would otherwise vanish with the task)."""
    if not task.cancelled() and task.exception() is not None:
        logger.error("lint task failed", exc_info=task.exception())


def _is_settings_file(uri: str) -> bool:
    return uri.rsplit("/", 1)[-1] in SETTINGS_FILES


def _kind_wanted(only: list[str] | None, kind: str) -> bool:
    """LSP kinds are hierarchical: asking for ``source.fixAll`` includes ``source.fixAll.x``."""
    if not only:
        return True
    return any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


def build() -> DimlintServer:
    """The server with every feature registered."""
    server = DimlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: DimlintServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict):
            ls.take_settings(options.get("dimlint", options))

    @server.feature(types.INITIALIZED)
    async def initialized(ls: DimlintServer, params: types.InitializedParams) -> None:
        del params
        watched = ls.client_capabilities.workspace
        changes = watched.did_change_watched_files if watched is not None else None
        if changes is None or not changes.dynamic_registration:
            return
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in SETTINGS_FILES]
        registration = types.Registration(
            id="dimlint-settings-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception:  # a client refusing the registration still gets didSave handling
            logger.warning("the client refused to watch the settings files")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DimlintServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        if _is_settings_file(uri):
            return
        ls.open.add(uri)
        ls.schedule(uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DimlintServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in ls.open:
            ls.schedule(uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DimlintServer, params: types.DidSaveTextDocumentParams) -> None:
        if _is_settings_file(params.text_document.uri):
            ls.config.invalidate()
            ls.relint_all()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DimlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: DimlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(_is_settings_file(change.uri) for change in params.changes):
            ls.config.invalidate()
            ls.relint_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration(ls: DimlintServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and "dimlint" in settings:
            ls.take_settings(settings["dimlint"])
        else:
            workspace = ls.client_capabilities.workspace
            if workspace is not None and workspace.configuration:
                items = [types.ConfigurationItem(section="dimlint")]
                try:
                    answer = await ls.workspace_configuration_async(
                        types.ConfigurationParams(items=items)
                    )
                    if answer and answer[0] is not None:  # none: keep initializationOptions
                        ls.take_settings(answer[0])
                except Exception:
                    logger.warning("the client did not answer workspace/configuration")
        ls.config.invalidate()
        ls.relint_all()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, protocol.FIX_ALL_KIND]
        ),
    )
    async def code_action(
        ls: DimlintServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        linted = await ls.lint_now(uri)
        if linted is None:
            return None
        index = ls.index(linted.text)
        versioned = _versioned_edits(ls)
        only = list(params.context.only or [])
        actions: list[types.CodeAction] = []
        if _kind_wanted(only, types.CodeActionKind.QuickFix):
            actions += protocol.quick_fixes(
                uri, linted.version, index, linted.diagnostics, params.range, versioned
            )
        safe = [
            d for d in linted.diagnostics if d.fix and d.fix.applicability is Applicability.SAFE
        ]
        if safe and _kind_wanted(only, protocol.FIX_ALL_KIND):
            path = ls.workspace.get_text_document(uri).path
            selection = ls.config.resolve(path).selection
            if selection is not None:
                loop = asyncio.get_running_loop()
                fixed = await loop.run_in_executor(
                    ls.pool, ls.heavy, path, fix_all, path, linted.text, selection
                )
                if fixed is not None:
                    edit = protocol.whole_text_edit(index, fixed)
                    actions.append(
                        types.CodeAction(
                            title="Fix all safe dimlint findings",
                            kind=protocol.FIX_ALL_KIND,
                            edit=protocol.workspace_edit(uri, linted.version, [edit], versioned),
                        )
                    )
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: DimlintServer, params: types.HoverParams) -> types.Hover | None:
        from dimlint.commands.server.targets_at import hover_text

        uri = params.text_document.uri
        if uri not in ls.open:
            return None
        document = ls.workspace.get_text_document(uri)
        text, path = document.source, document.path
        resolved = ls.config.resolve(path)
        deployment = resolved.selection.deployment if resolved.selection else None
        index = ls.index(text)
        offset = index.offset_of(LspPosition(params.position.line, params.position.character))
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(
                ls.pool, ls.heavy, path, hover_text, path, text, offset, deployment
            )
        except Exception:  # hover is a convenience: a failure shows nothing
            logger.exception("hover failed")
            return None
        if found is None:
            return None
        markdown, start, end = found
        begin, finish = index.offset_to_lsp(start), index.offset_to_lsp(end)
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
            range=types.Range(
                start=types.Position(line=begin.line, character=begin.character),
                end=types.Position(line=finish.line, character=finish.character),
            ),
        )

    return server


def _versioned_edits(ls: DimlintServer) -> bool:
    workspace = ls.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace is not None else None
    return bool(edit is not None and edit.document_changes)


def serve() -> int:
    """Speak LSP on stdin/stdout until the client says exit."""
    logging.basicConfig(level=os.environ.get("DIMLINT_LOG_LEVEL", "WARNING"))
    server = build()
    try:
        server.start_io()
    finally:
        server.close()
    return 0
