"""The language server: pygls wiring of the scheduler, the executors and the features.

Scheduling is :mod:`.scheduler`'s: one lint in flight per document, the latest version wins,
results for old text dropped. Where lints run: JSON and YAML on a small thread pool of their
own; Python files, whose libcst parse takes a second or more for a long model file, in a worker
process (no thread waits on it), so that they hold neither the GIL the event loop and the data
lints need nor a thread a config's lint could use. A slow Python file thus delays neither the
diagnostics of configs nor their hovers and code actions.
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
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from dimlint import __version__
from dimlint.commands.server import protocol
from dimlint.commands.server.capabilities import CODE_ACTION_KINDS, DIAGNOSTIC_OPTIONS
from dimlint.commands.server.config import SETTINGS_FILES, ServerSettings
from dimlint.commands.server.documents import folder_paths, lint_path
from dimlint.commands.server.framing import Framed, Writer
from dimlint.commands.server.linting import Linted, Outcome, fix_all, lint_text, silenced
from dimlint.commands.server.positions import LineIndex, LspPosition, encoding_of
from dimlint.commands.server.rpc import DimlintProtocol
from dimlint.commands.server.scheduler import Scheduler, Snapshot
from dimlint.commands.server.suppress import noqa_change, per_file_ignore
from dimlint.diagnostics import Applicability, Diagnostic

#: Seconds between the last keystroke and the lint (``debounce-ms`` in the editor settings).
DEBOUNCE = 0.1
#: Worker processes for Python files (a second one would only compete for the same cores).
PROCESSES = 1
#: Threads for JSON and YAML lints, hovers and fixes (each takes milliseconds).
DATA_WORKERS = 2
#: Added to the message of a finding kept from the last version that could be read.
STALE = " [stale: from the last version that parsed]"

logger = logging.getLogger("dimlint.server")
T = TypeVar("T")


class DimlintServer(LanguageServer):
    """pygls server holding the open documents and their lint scheduling."""

    protocol: DimlintProtocol

    def __init__(self) -> None:
        super().__init__(
            "dimlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=DimlintProtocol,
        )
        self.config = ServerSettings()
        #: JSON and YAML lints, hovers and fixes: never behind Python work.
        self.pool = ThreadPoolExecutor(max_workers=DATA_WORKERS, thread_name_prefix="dimlint-data")
        self._processes: ProcessPoolExecutor | None = None
        self._processes_lock = threading.Lock()
        self.scheduler: Scheduler[Outcome] = Scheduler(
            self._snapshot, self._start_lint, self._publish, self._trace, DEBOUNCE
        )
        #: uri → (the path it is linted as, its workspace folder); only linted documents.
        self.paths: dict[str, tuple[str, str | None]] = {}
        #: uri → the last version that could be read, and its findings (kept beside a DL001).
        self.good: dict[str, tuple[str, tuple[Diagnostic, ...]]] = {}
        self.generation = 0
        self.shown: set[str] = set()

    @property
    def debounce(self) -> float:
        return self.scheduler.debounce

    # -- settings ---------------------------------------------------------------------------

    def take_settings(self, section: Any) -> None:
        """Apply the editor's ``dimlint`` settings section (``debounce-ms`` is the server's)."""
        if isinstance(section, dict):
            section = dict(section)
            debounce = section.pop("debounce-ms", None)
            if isinstance(debounce, int | float) and not isinstance(debounce, bool):
                self.scheduler.debounce = max(0.0, float(debounce) / 1000)
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
        self.generation += 1
        self.scheduler.relint_all()
        workspace = self.client_capabilities.workspace
        diagnostics = workspace.diagnostics if workspace is not None else None
        if self.pull and diagnostics is not None and diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)  # the client pulls them again

    # -- documents ----------------------------------------------------------------------------

    def folders(self) -> list[str]:
        workspace = self.workspace
        uris = [folder.uri for folder in workspace.folders.values()]
        if workspace.root_uri and workspace.root_uri not in uris:
            uris.append(workspace.root_uri)
        return folder_paths(uris)

    def track(self, uri: str, language: str | None) -> bool:
        """Start linting ``uri`` if it is a document dimlint can lint (False: it is not)."""
        found = lint_path(uri, language, self.folders())
        if found is None:
            logger.info("not linting %s: not a local file nor an untitled buffer", uri)
            return False
        self.paths[uri] = found
        return True

    def _snapshot(self, uri: str) -> Snapshot | None:
        if uri not in self.paths:
            return None
        document = self.workspace.text_documents.get(unquote(uri))
        if document is None:
            return None
        return Snapshot(document.version, document.source, self.generation)

    def index(self, text: str) -> LineIndex:
        return LineIndex(text, encoding_of(self.workspace.position_encoding))

    # -- linting ------------------------------------------------------------------------------

    def processes(self) -> ProcessPoolExecutor:
        """The worker process for Python files (started on first use; replaced if it died)."""
        with self._processes_lock:
            if self._processes is None:
                context = multiprocessing.get_context("spawn")  # no fork of a threaded server
                self._processes = ProcessPoolExecutor(max_workers=PROCESSES, mp_context=context)
            return self._processes

    async def heavy(self, path: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` for the file at ``path``: in the worker process for Python files,
        on the data threads for JSON and YAML."""
        if not path.endswith(".py"):
            return await asyncio.get_running_loop().run_in_executor(self.pool, function, *args)
        processes = self.processes()
        try:
            return await asyncio.wrap_future(processes.submit(function, *args))
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

    def _start_lint(self, uri: str, snapshot: Snapshot) -> asyncio.Future[Outcome]:
        return asyncio.ensure_future(self._lint(uri, snapshot))  # failures: logged in _lint

    async def _lint(self, uri: str, snapshot: Snapshot) -> Outcome:
        path, folder = self.paths[uri]
        loop = asyncio.get_running_loop()
        try:
            resolved = await loop.run_in_executor(self.pool, self.config.resolve, path)
            for problem in resolved.problems:
                self.tell(problem)
            return await self.heavy(
                path, lint_text, path, snapshot.text, resolved.selection, folder
            )
        except Exception as error:  # a bug must not take the server down
            logger.exception("lint failed")
            self.tell(f"internal error linting {path}: {type(error).__name__}: {error}")
            raise

    def _trace(self, message: str) -> None:
        if self.protocol.trace not in (None, types.TraceValue.Off):
            self.log_trace(types.LogTraceParams(message=message))

    def shown_diagnostics(
        self, uri: str, snapshot: Snapshot, outcome: Outcome
    ) -> list[types.Diagnostic]:
        """The LSP diagnostics of a result; an unreadable version keeps the last readable one's
        findings beside its DL001, marked as stale."""
        index = self.index(snapshot.text)
        shown = [protocol.diagnostic(index, d) for d in outcome.diagnostics]
        if outcome.readable:
            self.good[uri] = (snapshot.text, outcome.diagnostics)
            return shown
        last = self.good.get(uri)
        if last is not None:
            old = self.index(last[0])
            for found in last[1]:
                if found.code != "DL001":
                    stale = protocol.diagnostic(old, found)
                    stale.message += STALE
                    shown.append(stale)
        return shown

    def _publish(self, uri: str, snapshot: Snapshot, outcome: Outcome) -> None:
        diagnostics = self.shown_diagnostics(uri, snapshot, outcome)
        if self.pull:
            return  # the client asks for them (textDocument/diagnostic)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=snapshot.version, diagnostics=diagnostics
            )
        )

    async def linted(self, uri: str) -> Linted | None:
        """The findings on the current version of ``uri`` (waiting for its lint)."""
        found = await self.scheduler.current(uri)
        if found is None:
            return None
        snapshot, outcome = found
        return Linted(snapshot.version, snapshot.text, outcome.diagnostics)

    @property
    def pull(self) -> bool:
        """Whether the client pulls diagnostics (``textDocument/diagnostic``) instead."""
        document = self.client_capabilities.text_document
        return bool(document is not None and document.diagnostic is not None)

    def suppressions(
        self,
        uri: str,
        where: tuple[str, str | None],
        linted: Linted,
        index: LineIndex,
        wanted: types.Range,
        versioned: bool,
    ) -> list[types.CodeAction]:
        """The actions switching a finding in ``wanted`` off: "disable for this line"
        (``# noqa`` in Python and YAML) or "ignore in this file" (the settings'
        ``per-file-ignores``, for JSON, which has no comments)."""
        path, folder = where
        actions: list[types.CodeAction] = []
        seen: set[tuple[str, int]] = set()
        for found in linted.diagnostics:
            if found.code in ("DL001", "DL701") or found.span is None:
                continue
            converted = protocol.diagnostic(index, found)
            line = found.span.start_pos[0]
            if not protocol.overlaps(converted.range, wanted):
                continue
            commented = path.endswith((".py", ".yaml", ".yml"))
            if (found.code, line if commented else 0) in seen:
                continue
            seen.add((found.code, line if commented else 0))
            if commented:
                yaml = not path.endswith(".py")
                change = noqa_change(linted.text, line, found.code, yaml)
                if change is None:
                    continue
                edit = types.TextEdit(
                    range=protocol.offsets_range(index, change.start, change.end),
                    new_text=change.new,
                )
                title = f"Disable {found.code} for this line (# noqa: {found.code})"
                workspace_edit = protocol.workspace_edit(uri, linted.version, [edit], versioned)
            else:
                settings = self.config.resolve(path).settings.source
                target = per_file_ignore(
                    settings, folder or os.path.dirname(path), path, found.code
                )
                if target is None:
                    continue
                made = protocol.settings_edit(
                    target.path, target.old, target.new, self._creates(), index.encoding
                )
                if made is None:
                    continue
                name = os.path.basename(target.path)
                title = f"Ignore {found.code} in this file (per-file-ignores in {name})"
                workspace_edit = made
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[converted],
                    edit=workspace_edit,
                )
            )
        return actions

    def _creates(self) -> bool:
        """Whether the client can create a file in a workspace edit (a new dimlint.toml)."""
        workspace = self.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        operations = edit.resource_operations if edit is not None else None
        return bool(operations and types.ResourceOperationKind.Create in operations)

    def forget(self, uri: str) -> None:
        self.scheduler.closed(uri)
        self.good.pop(uri, None)
        if self.paths.pop(uri, None) is not None and not self.pull:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )


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
        if params.trace is not None:
            ls.protocol.trace = params.trace
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
        item = params.text_document
        if _is_settings_file(item.uri) or not ls.track(item.uri, item.language_id):
            return
        ls.scheduler.opened(item.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DimlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.scheduler.changed(params.text_document.uri)

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
        types.CodeActionOptions(code_action_kinds=list(CODE_ACTION_KINDS)),
    )
    async def code_action(
        ls: DimlintServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        linted = await ls.linted(uri)
        where = ls.paths.get(uri)
        if linted is None or where is None:  # closed meanwhile
            return None
        path, _ = where
        index = ls.index(linted.text)
        versioned = _versioned_edits(ls)
        only = list(params.context.only or [])
        actions: list[types.CodeAction] = []
        if _kind_wanted(only, types.CodeActionKind.QuickFix):
            actions += protocol.quick_fixes(
                uri, linted.version, index, linted.diagnostics, params.range, versioned
            )
            loop = asyncio.get_running_loop()
            actions += await loop.run_in_executor(
                ls.pool, ls.suppressions, uri, where, linted, index, params.range, versioned
            )
        safe = [
            d for d in linted.diagnostics if d.fix and d.fix.applicability is Applicability.SAFE
        ]
        if safe and _kind_wanted(only, protocol.FIX_ALL_KIND):
            selection = ls.config.resolve(path).selection
            if selection is not None:
                fixed = await ls.heavy(path, fix_all, path, linted.text, selection)
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

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier=str(DIAGNOSTIC_OPTIONS["identifier"]),
            inter_file_dependencies=False,
            workspace_diagnostics=False,
        ),
    )
    async def diagnostic(
        ls: DimlintServer, params: types.DocumentDiagnosticParams
    ) -> types.RelatedFullDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport:
        """Pull diagnostics: the findings on the current version, once its lint is done."""
        found = await ls.scheduler.current(params.text_document.uri)
        if found is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        snapshot, outcome = found
        result_id = f"{snapshot.version}.{snapshot.generation}.{hash(snapshot.text)}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        items = ls.shown_diagnostics(params.text_document.uri, snapshot, outcome)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: DimlintServer, params: types.HoverParams) -> types.Hover | None:
        from dimlint.commands.server.targets_at import hover_text

        uri = params.text_document.uri
        snapshot = ls._snapshot(uri)
        where = ls.paths.get(uri)
        if snapshot is None or where is None:
            return None
        path, folder = where
        loop = asyncio.get_running_loop()
        if await loop.run_in_executor(ls.pool, silenced, path, folder) is not None:
            return None  # a file check passes over gets no hover either
        text = snapshot.text
        resolved = ls.config.resolve(path)
        deployment = resolved.selection.deployment if resolved.selection else None
        index = ls.index(text)
        offset = index.offset_of(LspPosition(params.position.line, params.position.character))
        try:
            found = await ls.heavy(
                path, hover_text, path, text, offset, deployment, resolved.settings
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


class _Out:
    """pygls' writer: framed bytes to stdout, under the bootstrap writer's lock."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    def write(self, data: bytes) -> None:
        with self.writer.lock:
            self.writer.stream.write(data)
            self.writer.stream.flush()

    def close(self) -> None:
        """Nothing to close: stdout ends with the process."""


async def _loop(server: DimlintServer, reader: Framed) -> None:
    """Hand each message read from stdin (on a thread: reads block) to the protocol in order."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def pump() -> None:
        while True:
            body = reader.read()
            loop.call_soon_threadsafe(queue.put_nowait, body)
            if body is None:
                return

    threading.Thread(target=pump, name="dimlint-stdin", daemon=True).start()
    while (body := await queue.get()) is not None:
        if body:
            server.protocol.deliver(body)


def run(server: DimlintServer, reader: Framed, writer: Writer, initialize: dict[str, Any]) -> int:
    """Serve after :mod:`.bootstrap` answered ``initialize``: replay it to set up pygls' workspace
    (its answer suppressed), then handle messages until ``exit`` or the end of the input."""
    protocol = server.protocol
    protocol.set_writer(_Out(writer))
    protocol.silent_id = initialize["id"]
    protocol.deliver(initialize)
    try:
        asyncio.run(_loop(server, reader))
    except SystemExit:
        pass
    finally:
        server.close()
    if protocol.exit_code is not None:
        return int(protocol.exit_code)
    return 0 if protocol._shutdown else 1  # the input ended without exit
