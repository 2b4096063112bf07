"""Answer ``initialize`` at once, before the heavy imports are done.

Importing pygls and ``lsprotocol.types`` takes seconds on a loaded machine, and an editor shows
"starting…" until ``initialize`` is answered. So this module, which imports nothing heavy,
starts those imports on a thread, reads the first message itself (:mod:`.framing`) and answers
``initialize`` with the capabilities the server is known to have (:mod:`.capabilities`). The
pygls server, once built, is handed the ``initialize`` request again to set up its workspace,
its own answer suppressed (:mod:`.rpc`).
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

from dimlint import __version__
from dimlint.commands.server.capabilities import capabilities
from dimlint.commands.server.framing import Framed, Writer

#: JSON-RPC error codes.
PARSE_ERROR = -32700
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002


class _Loader(threading.Thread):
    """Imports pygls and builds the server while the main thread answers ``initialize``."""

    def __init__(self) -> None:
        super().__init__(name="dimlint-imports", daemon=True)
        self.server: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        import logging
        import os

        logging.basicConfig(level=os.environ.get("DIMLINT_LOG_LEVEL", "WARNING"))
        try:
            from dimlint.commands.server.app import build

            self.server = build()
        except BaseException as error:  # reported by the main thread
            self.error = error


def decode(body: bytes) -> dict[str, Any] | str:
    """The message, or why it is not one."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError) as error:
        return f"not JSON: {error}"
    if not isinstance(message, dict):
        return "a message must be a JSON object"
    return message


def serve() -> int:
    """Speak LSP on stdin/stdout until the client says exit; the exit code per the spec."""
    import os

    loader = _Loader()  # started once initialize is answered: nothing competes with that
    stdin = sys.stdin.fileno()
    reader = Framed(lambda size: os.read(stdin, size))
    writer = Writer(sys.stdout.buffer)
    while True:
        body = reader.read()
        if body is None:
            return 1  # the client went away before initializing
        if not body:
            continue
        message = decode(body)
        if isinstance(message, str):
            writer.error(None, PARSE_ERROR, message)
            continue
        method, ident = message.get("method"), message.get("id")
        if method == "initialize" and "id" in message:
            params = message.get("params")
            if not isinstance(params, dict):
                writer.error(ident, INVALID_PARAMS, "initialize needs InitializeParams")
                continue
            result = {
                "capabilities": capabilities(params),
                "serverInfo": {"name": "dimlint", "version": __version__},
            }
            writer.send({"id": ident, "result": result})
            loader.start()
            break
        if method == "exit":
            return 1  # exit before initialize: the imports never started
        if "id" in message and isinstance(method, str):
            writer.error(ident, SERVER_NOT_INITIALIZED, "the server is not initialized yet")
    loader.join()
    if loader.error is not None:
        raise loader.error
    from dimlint.commands.server.app import run

    return run(loader.server, reader, writer, message)
