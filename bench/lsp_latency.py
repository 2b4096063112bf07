"""Latency of ``dimlint server``: time from ``didChange`` to the ``publishDiagnostics`` for it.

A raw JSON-RPC client (no editor, no pytest-lsp) starts ``python -m dimlint server``, opens a
document, then sends whole-document changes one at a time, each waiting for the diagnostics of
its version. Two documents:

* a typical ``config.json`` (examples/qwen2-7b, hidden size edited to 3584 ± a few, so each
  change has findings with fixes to compute);
* a generated 2,000-line Python model file (a dataclass config, module constants, a few dozen
  ``nn.Module`` classes with ``nn.Linear``/``nn.MultiheadAttention`` calls, helper functions),
  one constant edited per change.

Each is measured with the server's default debounce (what a user sees while typing) and with the
debounce off (``debounce-ms: 0``: the lint itself plus the protocol round trip). Wall-clock
times; the machine's load shows up in them.

Two more measurements:

* a **typing session**: ``--keys`` changes sent ``--interval`` ms apart without waiting for
  diagnostics (as an editor sends keystrokes), then the time from the last key to the
  diagnostics of the last version, and how many diagnostics were published on the way;
* **``initialize``**: from starting the process to the ``initialize`` response.

Usage: python bench/lsp_latency.py [--changes 20] [--keys 10] [--interval 250]
Writes bench/results-lsp.md and prints the same table.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "examples" / "qwen2-7b" / "config.json"


def python_model(lines: int = 2000) -> str:
    """A Python model file of about ``lines`` lines with one dataclass config among the code."""
    head = [
        '"""A generated model file for the language server benchmark."""',
        "from dataclasses import dataclass",
        "",
        "import torch",
        "from torch import nn",
        "",
        "HIDDEN = 4096",
        "HEADS = 32",
        "",
        "",
        "@dataclass",
        "class ModelConfig:",
        "    vocab_size: int = 32000",
        "    hidden_size: int = HIDDEN",
        "    num_attention_heads: int = HEADS",
        "    num_key_value_heads: int = 8",
        "    intermediate_size: int = 11008",
        "    num_hidden_layers: int = 32",
        "    max_position_embeddings: int = 4096",
        "",
    ]
    body: list[str] = []
    index = 0
    while len(head) + len(body) < lines:
        body += [
            "",
            "",
            f"class Block{index}(nn.Module):",
            f'    """Block {index}: attention and MLP."""',
            "",
            "    def __init__(self) -> None:",
            "        super().__init__()",
            "        self.attn = nn.MultiheadAttention(HIDDEN, HEADS, batch_first=True)",
            "        self.up = nn.Linear(HIDDEN, 4 * HIDDEN)",
            "        self.down = nn.Linear(4 * HIDDEN, HIDDEN)",
            "        self.norm = nn.LayerNorm(HIDDEN)",
            "",
            "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
            "        y = self.norm(x)",
            "        y, _ = self.attn(y, y, y, need_weights=False)",
            "        x = x + y",
            "        return x + self.down(torch.relu(self.up(self.norm(x))))",
            "",
            "",
            f"def helper_{index}(values: list[int]) -> int:",
            f'    """Sum of squares plus {index}."""',
            "    total = 0",
            "    for value in values:",
            "        total += value * value",
            f"    return total + {index}",
        ]
        index += 1
    return "\n".join((head + body)[:lines]) + "\n"


class Client:
    """Just enough of an LSP client: framed messages over the server's stdin/stdout."""

    def __init__(self, debounce_ms: int | None) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dimlint", "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.inbox: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.backlog: list[tuple[float, dict[str, Any]]] = []
        threading.Thread(target=self._read, daemon=True).start()
        options = {"dimlint": {} if debounce_ms is None else {"debounce-ms": debounce_ms}}
        self.request(
            1,
            "initialize",
            {
                "processId": None,
                "rootUri": None,
                "capabilities": {},
                "initializationOptions": options,
            },
        )
        arrived, _ = self.wait(lambda m: m.get("id") == 1)
        self.initialize_ms = (arrived - self.started) * 1000
        self.notify("initialized", {})

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.inbox.put((time.perf_counter(), json.loads(stream.read(length))))

    def send(self, message: dict[str, Any]) -> float:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return time.perf_counter()

    def request(self, ident: int, method: str, params: Any) -> float:
        return self.send({"id": ident, "method": method, "params": params})

    def notify(self, method: str, params: Any) -> float:
        return self.send({"method": method, "params": params})

    def wait(self, wanted: Any, timeout: float = 120.0) -> tuple[float, dict[str, Any]]:
        """The first message ``wanted`` accepts; the others stay for a later wait (another
        document's diagnostics may arrive first, now that a Python lint is quick)."""
        for index, (arrived, message) in enumerate(self.backlog):
            if wanted(message):
                del self.backlog[index]
                return arrived, message
        deadline = time.perf_counter() + timeout
        while True:
            arrived, message = self.inbox.get(timeout=max(0.1, deadline - time.perf_counter()))
            if wanted(message):
                return arrived, message
            self.backlog.append((arrived, message))

    def published(self, uri: str, version: int) -> tuple[float, dict[str, Any]]:
        def match(message: dict[str, Any]) -> bool:
            params = message.get("params") or {}
            return (
                message.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == uri
                and params.get("version") == version
            )

        return self.wait(match)

    def close(self) -> None:
        self.request(99, "shutdown", None)
        self.wait(lambda m: m.get("id") == 99)
        self.notify("exit", None)
        self.process.wait(timeout=30)


def measure(
    texts: list[str],
    name: str,
    language: str,
    changes: int,
    debounce: int | None,
    busy: list[str] | None = None,
) -> list[float]:
    """Milliseconds from each didChange to its diagnostics.

    With ``busy``, a 2,000-line Python file is open too and changed just before each change of
    the measured document, so that its (slow) lint runs at the same time.
    """
    client = Client(debounce)
    uri = (ROOT / "bench" / "_lsp" / name).as_uri()
    item = {"uri": uri, "languageId": language, "version": 1, "text": texts[0]}
    client.notify("textDocument/didOpen", {"textDocument": item})
    client.published(uri, 1)
    other = (ROOT / "bench" / "_lsp" / "busy.py").as_uri()
    if busy is not None:
        item = {"uri": other, "languageId": "python", "version": 1, "text": busy[0]}
        client.notify("textDocument/didOpen", {"textDocument": item})
        client.published(other, 1)
    times = []
    for version in range(2, changes + 2):
        if busy is not None:
            change = {"uri": other, "version": version}
            text = busy[version % len(busy)]
            client.notify(
                "textDocument/didChange",
                {"textDocument": change, "contentChanges": [{"text": text}]},
            )
            time.sleep(0.15)  # past the debounce: the busy file's lint has started
        text = texts[version % len(texts)]
        sent = client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
        arrived, _ = client.published(uri, version)
        times.append((arrived - sent) * 1000)
        if busy is not None:
            client.published(other, version)
    client.close()
    return times


def typing_session(
    texts: list[str], name: str, language: str, keys: int, interval: float, debounce: int | None
) -> tuple[float, int]:
    """Milliseconds from the last of ``keys`` changes (sent ``interval`` s apart, not waiting)
    to the diagnostics of its version, and how many diagnostics were published meanwhile."""
    client = Client(debounce)
    uri = (ROOT / "bench" / "_lsp" / name).as_uri()
    item = {"uri": uri, "languageId": language, "version": 1, "text": texts[0]}
    client.notify("textDocument/didOpen", {"textDocument": item})
    client.published(uri, 1)
    last = 1
    sent = 0.0
    for version in range(2, keys + 2):
        text = texts[version % len(texts)]
        sent = client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
        last = version
        time.sleep(interval)
    published = 0

    def final(message: dict[str, Any]) -> bool:
        nonlocal published
        params = message.get("params") or {}
        if message.get("method") == "textDocument/publishDiagnostics" and params.get("uri") == uri:
            published += 1
            return params.get("version") == last
        return False

    arrived, _ = client.wait(final)
    client.close()
    return (arrived - sent) * 1000, published


def initialize_times(runs: int) -> list[float]:
    """Milliseconds from starting the server process to its ``initialize`` response."""
    times = []
    for _ in range(runs):
        client = Client(None)
        times.append(client.initialize_ms)
        client.close()
    return times


def lint_alone(texts: list[str], name: str, changes: int) -> list[float]:
    """Milliseconds of the lint itself, in this process (what ``check`` spends per file)."""
    sys.path.insert(0, str(ROOT))
    from dimlint.commands.server.config import ServerSettings
    from dimlint.commands.server.linting import lint_text

    path = str(ROOT / "bench" / "_lsp" / name)
    selection = ServerSettings().resolve(path).selection
    lint_text(path, texts[0], selection)  # imports
    times = []
    for version in range(2, changes + 2):
        start = time.perf_counter()
        lint_text(path, texts[version % len(texts)], selection)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--keys", type=int, default=10, help="keystrokes of a typing session")
    parser.add_argument("--interval", type=float, default=250, help="ms between keystrokes")
    parser.add_argument("--only-sessions", action="store_true", help="skip the per-change rows")
    args = parser.parse_args()
    config = CONFIG.read_text(encoding="utf-8")
    assert '"hidden_size": 3584' in config
    configs = [
        config.replace('"hidden_size": 3584', f'"hidden_size": {3584 + d}') for d in (0, 4, 8)
    ]
    model = python_model()
    models = [model.replace("HIDDEN = 4096", f"HIDDEN = {4096 + d}") for d in (0, 4, 8)]
    rows = []
    cases = (
        ("config.json (qwen2-7b)", configs, "config.json", "json"),
        (f"Python, {model.count(chr(10))} lines", models, "model.py", "python"),
    )
    for label, texts, name, language in cases if not args.only_sessions else ():
        times = lint_alone(texts, name, args.changes)
        rows.append(
            (label, "lint alone, in process", min(times), statistics.median(times), max(times))
        )
        for debounce, what in ((None, "server, default debounce"), (0, "server, no debounce")):
            times = measure(texts, name, language, args.changes, debounce)
            rows.append((label, what, min(times), statistics.median(times), max(times)))
    if not args.only_sessions:
        times = measure(configs, "config.json", "json", args.changes, 0, busy=models)
        what = "server, no debounce, 2,000-line file linting meanwhile"
        rows.append((cases[0][0], what, min(times), statistics.median(times), max(times)))
    sessions = []
    for label, texts, name, language in cases:
        for debounce in (None, 0):
            after, count = typing_session(
                texts, name, language, args.keys, args.interval / 1000, debounce
            )
            setting = "default debounce" if debounce is None else "no debounce"
            sessions.append(f"| {label} | {setting} | {after:.0f} | {count} |")
    times = initialize_times(5)
    header = (
        "| document | setting | min ms | median ms | max ms |\n| --- | --- | ---: | ---: | ---: |"
    )
    lines = [header] + [
        f"| {label} | {what} | {low:.0f} | {mid:.0f} | {high:.0f} |"
        for label, what, low, mid, high in rows
    ]
    table = "\n".join(lines) + "\n"
    note = (
        f"didChange → publishDiagnostics, {args.changes} changes each, one server per row"
        f" ({os.cpu_count()} CPUs, shared; `python bench/lsp_latency.py`).\n\n"
    )
    table += (
        f"\nTyping session: {args.keys} keys {args.interval:.0f} ms apart, not waiting;"
        " time from the last key to its diagnostics, and diagnostics published meanwhile.\n\n"
        "| document | setting | last key → diagnostics ms | published |\n"
        "| --- | --- | ---: | ---: |\n" + "\n".join(sessions) + "\n"
    )
    table += (
        f"\n`initialize` answered {min(times):.0f} ms (min), {statistics.median(times):.0f} ms"
        f" (median), {max(times):.0f} ms (max) after the process started (5 runs).\n"
    )
    (ROOT / "bench" / "results-lsp.md").write_text("# Language server latency\n\n" + note + table)
    print(note + table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
