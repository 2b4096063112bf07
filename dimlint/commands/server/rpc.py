"""pygls' protocol, made to answer every request and to follow the lifecycle of the spec.

What pygls 2 does not do on its own, and this subclass does:

* a request whose params do not fit its type (a hover at position ``-1``, a line given as a
  string) is answered with ``InvalidParams``, instead of no answer at all;
* after ``shutdown``, requests are answered with ``InvalidRequest`` (pygls drops them, and the
  client waits forever) and notifications other than ``exit`` are ignored;
* ``exit`` ends the server with code 0 after ``shutdown`` and 1 without (:attr:`exit_code`);
* ``didChange`` for a document that was never opened is logged and ignored (pygls raises a
  ``KeyError`` the editor shows as "Error in server");
* the ``initialize`` request, answered early by :mod:`.bootstrap`, can be replayed without a
  second answer.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Generator
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import RPCRequest

logger = logging.getLogger("dimlint.server")
_SILENT = object()


class DimlintProtocol(LanguageServerProtocol):
    """The language server protocol with the conformance fixes above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.silent_id: Any = _SILENT
        self.exit_code: int | None = None

    # -- receiving ------------------------------------------------------------------------------

    def deliver(self, body: bytes | dict[str, Any]) -> None:
        """Handle one message body; what cannot be handled is answered with an error."""
        if isinstance(body, bytes):
            try:
                raw = json.loads(body)
            except (ValueError, RecursionError) as error:
                self._reply_error(None, types.ErrorCodes.ParseError, f"not JSON: {error}")
                return
        else:
            raw = body
        if not isinstance(raw, dict) or raw.get("jsonrpc") != "2.0":
            ident = raw.get("id") if isinstance(raw, dict) else None
            self._reply_error(ident, types.ErrorCodes.InvalidRequest, "not a JSON-RPC 2.0 message")
            return
        try:
            message = self.structure_message(raw)
        except JsonRpcException as error:
            method = raw.get("method")
            if "id" in raw and method is not None:
                detail = error.__cause__ or error
                self._reply_error(
                    raw["id"],
                    types.ErrorCodes.InvalidParams,
                    f"invalid params for {method}: {_first_line(detail)}",
                )
            else:
                logger.warning(
                    "ignored a message that does not fit its type: %s", raw.get("method")
                )
            return
        self.handle_message(message)

    def handle_message(self, message: Any) -> None:
        if self._shutdown and getattr(message, "method", "") != types.EXIT:
            if isinstance(message, RPCRequest):
                self._reply_error(
                    message.id, types.ErrorCodes.InvalidRequest, "the server is shutting down"
                )
            return
        super().handle_message(message)

    def _reply_error(self, ident: Any, code: int, text: str) -> None:
        self._send_data(
            {"jsonrpc": "2.0", "id": ident, "error": {"code": int(code), "message": text}}
        )

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if msg_id is not None and msg_id == self.silent_id:
            self.silent_id = _SILENT  # the early answer of bootstrap stands
            return
        super()._send_response(msg_id, result, error)

    # -- lifecycle ------------------------------------------------------------------------------

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        """Ends the message loop: 0 after ``shutdown``, 1 without (the spec)."""
        if (user_handler := self.fm.features.get(types.EXIT)) is not None:
            yield user_handler, args, None
        self.exit_code = 0 if self._shutdown else 1
        raise SystemExit(self.exit_code)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Apply the changes to an open document; a document never opened is ignored."""
        uri = params.text_document.uri
        if unquote(uri) not in self.workspace.text_documents:
            logger.info("ignored didChange for %s: it was never opened", uri)
            return
        yield from super().lsp_text_document__did_change(params)


def _first_line(error: BaseException) -> str:
    """What is wrong, from the innermost of cattrs' nested validation errors."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
