"""``dimlint server`` against the letter of the protocol: a raw JSON-RPC client over stdio.

Malformed and hostile messages are written byte for byte (pytest-lsp's client cannot send
them); every request must be answered, the server must survive, and ``exit`` must give the exit
code the specification asks for. Expected findings come from ``dimlint check`` on the same text.
"""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from dimlint.cli import main
from dimlint.commands.server.framing import Framed

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0
CONFIG = """{
  "model_type": "llama",
  "hidden_size": 4100,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "intermediate_size": 11008,
  "num_hidden_layers": 32,
  "vocab_size": 32000
}
"""


class Raw:
    """A client that writes exactly the bytes it is given and collects every message."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dimlint", "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        reader = Framed(stream.read1)
        while (body := reader.read()) is not None:
            self.inbox.put(json.loads(body))

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def wait(self, wanted: Any) -> dict[str, Any]:
        while True:
            message = self.inbox.get(timeout=TIMEOUT)
            self.seen.append(message)
            if wanted(message):
                return message

    def answer(self, ident: Any) -> dict[str, Any]:
        return self.wait(lambda m: m.get("id") == ident and "method" not in m)

    def request(self, ident: int, method: str, params: Any) -> dict[str, Any]:
        self.send({"id": ident, "method": method, "params": params})
        return self.answer(ident)

    def initialize(self, capabilities: dict[str, Any], root: Path | None = None) -> None:
        params = {
            "processId": None,
            "rootUri": root.as_uri() if root else None,
            "capabilities": capabilities,
        }
        answer = self.request(1, "initialize", params)
        assert "capabilities" in answer["result"]
        self.send({"method": "initialized", "params": {}})

    def exit_code(self) -> int:
        self.send({"method": "exit"})
        return self.process.wait(timeout=TIMEOUT)


@pytest.fixture
def raw() -> Any:
    client = Raw()
    yield client
    if client.process.poll() is None:
        client.process.kill()
        client.process.wait()


def _hover(uri: str, line: Any, character: Any) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def _open(raw: Raw, uri: str, language: str, text: str) -> None:
    item = {"uri": uri, "languageId": language, "version": 1, "text": text}
    raw.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})


def _check(path: Path, text: str) -> list[tuple[str, int, int, str]]:
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    main(["check", str(path), "--output-format", "json"], out, io.StringIO())
    return sorted(
        (f["code"], f["line"] - 1, f["column"] - 1, f["message"])
        for f in json.loads(out.getvalue())
    )


def _items(diagnostics: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    return sorted(
        (d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"], d["message"])
        for d in diagnostics
    )


def test_hostile_input_is_answered_and_survived(raw: Raw, tmp_path: Path) -> None:
    raw.initialize({})
    # a length no server can allocate: refused, and the stream picked up at the next header
    raw.write(b"Content-Length: 99999999999999\r\n\r\n{}")
    # a body that is not JSON: a parse error with a null id
    raw.write(b"Content-Length: 9\r\n\r\n{not json")
    assert raw.wait(lambda m: "error" in m)["error"]["code"] == -32700
    uri = (tmp_path / "config.json").as_uri()
    _open(raw, uri, "json", CONFIG)
    for ident, (line, character) in enumerate([(-1, 0), ("x", 0), (0, -5)], start=10):
        error = raw.request(ident, "textDocument/hover", _hover(uri, line, character))["error"]
        assert error["code"] == -32602  # InvalidParams
        assert error["message"].startswith("invalid params for textDocument/hover")
    # a change to a document never opened: ignored quietly
    raw.send(
        {
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": (tmp_path / "never.json").as_uri(), "version": 2},
                "contentChanges": [{"text": "{}"}],
            },
        }
    )
    # a URI naming a path with a NUL byte: not linted, no error
    bad = (tmp_path / "a").as_uri() + "%00b/config.json"
    _open(raw, bad, "json", CONFIG)
    assert raw.request(20, "textDocument/hover", _hover(bad, 2, 5))["result"] is None
    # and the server still works
    shown = raw.request(21, "textDocument/hover", _hover(uri, 2, 5))["result"]
    assert "hidden_size" in shown["contents"]["value"]
    assert not [m for m in raw.seen if m.get("method") == "window/showMessage"]
    assert raw.request(22, "shutdown", None)["result"] is None
    after = raw.request(23, "textDocument/hover", _hover(uri, 2, 5))
    assert after["error"]["code"] == -32600  # InvalidRequest after shutdown
    assert raw.exit_code() == 0


def test_exit_without_shutdown_is_an_error(raw: Raw) -> None:
    raw.initialize({})
    assert raw.exit_code() == 1


def test_requests_before_initialize(raw: Raw) -> None:
    answer = raw.request(5, "textDocument/hover", _hover("file:///x.json", 0, 0))
    assert answer["error"]["code"] == -32002  # ServerNotInitialized
    raw.initialize({})
    assert raw.request(6, "shutdown", None)["result"] is None
    assert raw.exit_code() == 0


def test_untitled_buffers_pull_diagnostics_with_workspace_settings(
    raw: Raw, tmp_path: Path
) -> None:
    (tmp_path / "dimlint.toml").write_text('ignore = ["DL201"]\n')
    raw.initialize({"textDocument": {"diagnostic": {"dynamicRegistration": False}}}, tmp_path)
    uri = "untitled:Untitled-1"
    _open(raw, uri, "json", CONFIG)
    report = raw.request(
        30, "textDocument/diagnostic", {"textDocument": {"uri": uri}, "identifier": "dimlint"}
    )["result"]
    assert report["kind"] == "full"
    expected = _check(tmp_path / "same.json", CONFIG)  # the workspace settings apply
    assert {code for code, *_ in expected} == {"DL101"}
    assert _items(report["items"]) == expected
    again = raw.request(
        31,
        "textDocument/diagnostic",
        {"textDocument": {"uri": uri}, "previousResultId": report["resultId"]},
    )["result"]
    assert again["kind"] == "unchanged"
    # the client pulls: nothing is pushed
    assert not [m for m in raw.seen if m.get("method") == "textDocument/publishDiagnostics"]
    assert raw.request(32, "shutdown", None)["result"] is None
    assert raw.exit_code() == 0


def test_framing_refuses_a_huge_length_and_resynchronizes() -> None:
    body = b'{"jsonrpc":"2.0","method":"initialized","params":{}}'
    stream = io.BytesIO(
        b"Content-Length: 99999999999999\r\n\r\n{}"
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )
    reader = Framed(stream.read)
    assert reader.read() == b""
    assert reader.read() == body
    assert reader.refused == 1
    assert reader.read() is None


def test_early_capabilities_are_what_pygls_computes() -> None:
    from lsprotocol import types
    from pygls.capabilities import ServerCapabilitiesBuilder

    from dimlint.commands.server.app import build
    from dimlint.commands.server.capabilities import capabilities

    server = build()
    features = server.protocol.fm
    clients: list[dict[str, Any]] = [
        {},
        {"general": {"positionEncodings": ["utf-32", "utf-16"]}},
        {"general": {"positionEncodings": ["utf-8"]}, "textDocument": {"diagnostic": {}}},
    ]
    for client in clients:
        converter = server.protocol._converter
        parsed = converter.structure(client, types.ClientCapabilities)
        built = ServerCapabilitiesBuilder(
            parsed,
            set({**features.features, **features.builtin_features}),
            features.feature_options,
            list(features.commands),
            server._text_document_sync_kind,
            None,
            ServerCapabilitiesBuilder.choose_position_encoding(parsed),
        ).build()
        assert _meaningful(converter.unstructure(built)) == _meaningful(
            capabilities({"capabilities": client})
        )


def _meaningful(value: Any) -> Any:
    """The capabilities without ``false``/``null`` members (absent means the same)."""
    if isinstance(value, dict):
        return {k: _meaningful(v) for k, v in value.items() if v not in (False, None)}
    return value


def test_initialize_is_answered_without_the_heavy_imports() -> None:
    """What runs before the initialize answer imports neither pygls nor lsprotocol (seconds of
    imports on a loaded machine): the answer cannot wait for them."""
    code = (
        "import sys, dimlint.cli, dimlint.commands.server, dimlint.commands.server.bootstrap\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol',"
        " 'cattrs', 'logging') or m == 'dimlint.commands.server.app')\n"
        "print(heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert done.stdout.strip() == "[]"
