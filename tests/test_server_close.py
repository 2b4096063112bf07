"""Closing a document clears its diagnostics (issue 25: a mutant the suite let through).

An editor keeps the last diagnostics a server published for a file until it publishes others;
after ``didClose`` the server must publish an empty list, or the Problems panel keeps findings
for a file nobody has open (and that may since have been fixed on disk).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 30.0
CONFIG = (
    '{"model_type": "llama", "hidden_size": 4100, "num_attention_heads": 32,\n'
    ' "num_key_value_heads": 8, "num_hidden_layers": 2, "vocab_size": 32000,\n'
    ' "intermediate_size": 11008}\n'
)


class RecordingClient(LanguageClient):
    """pytest-lsp's client, keeping every publishDiagnostics in order."""

    published: list[types.PublishDiagnosticsParams]


def _record(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.published.append(params)


def _accept(client: RecordingClient, params: types.RegistrationParams) -> None:
    del client, params


def make_client() -> RecordingClient:
    from pygls.protocol import default_converter

    client = RecordingClient(converter_factory=default_converter)
    client.published = []
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record
    features[types.CLIENT_REGISTER_CAPABILITY] = _accept
    register_lsp_features(client, features)
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "dimlint", "server"],
        server_env={**os.environ, "PYTHONPATH": str(ROOT)},
        client_factory=make_client,
    )
)
async def client(lsp_client: RecordingClient) -> Any:
    capabilities = client_capabilities("visual-studio-code")
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=capabilities, initialization_options={"dimlint": {}})
    )
    yield
    await lsp_client.shutdown_session()


async def _next_publish(
    client: RecordingClient, uri: str, after: int
) -> types.PublishDiagnosticsParams:
    """The first publishDiagnostics for ``uri`` among those received after the first ``after``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        for params in client.published[after:]:
            if params.uri == uri:
                return params
        await asyncio.sleep(0.02)
    raise AssertionError(f"nothing published for {uri} after message {after}")


@pytest.mark.asyncio
async def test_closing_a_document_publishes_no_diagnostics(
    client: RecordingClient, tmp_path: Path
) -> None:
    path = tmp_path / "config.json"
    path.write_text(CONFIG, encoding="utf-8")
    uri = path.as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="json", version=1, text=CONFIG)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    opened = await _next_publish(client, uri, 0)
    assert "DL101" in {d.code for d in opened.diagnostics}  # hidden 4100: not 32 heads' multiple
    seen = len(client.published)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    closed = await _next_publish(client, uri, seen)
    assert list(closed.diagnostics) == []
