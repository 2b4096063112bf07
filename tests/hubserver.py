"""A local stand-in for the Hugging Face Hub, for tests that use ``huggingface_hub`` for real.

It serves repository snapshots the way the Hub does, as far as ``huggingface_hub`` and dimlint
use it: the model info endpoint (``/api/models/{repo}[/revision/{rev}]``: ``sha``, ``siblings``),
and ``/{repo}/resolve/{rev}/{file}`` for ``HEAD`` and ``GET`` with the headers the client reads
(``X-Repo-Commit``, ``ETag``/``X-Linked-Etag``, ``X-Linked-Size``, ``Content-Length``) and HTTP
range requests (``206`` with ``Content-Range``). Errors carry the Hub's ``X-Error-Code``
(``RepoNotFound``, ``RevisionNotFound``, ``EntryNotFound``, ``GatedRepo``), which is how the
client tells them apart. It counts the body bytes it sends per file, so a test can prove that
no tensor data was read.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.checkpoint_builders import build, edit_config

#: The commit every repository of the stand-in Hub is at.
SHA = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class Repo:
    """One model repository at one commit."""

    files: dict[str, bytes]
    sha: str = SHA
    branches: tuple[str, ...] = ("main",)
    #: A token that unlocks it (gated/private repos answer 401 without it).
    token: str | None = None
    #: Files whose GET the server answers by closing the connection.
    drop: frozenset[str] = frozenset()
    #: Answer range requests with the whole file (200), as some mirrors and proxies do.
    ignore_range: bool = False
    #: Sizes the model info claims instead of the real ones (a hostile or broken repository).
    claimed_sizes: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_folder(cls, folder: Path, **options: object) -> Repo:
        files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
        return cls(files, **options)  # type: ignore[arg-type]


@dataclass
class FakeHub:
    repos: dict[str, Repo] = field(default_factory=dict)
    #: Body bytes sent, by (repo, file).
    served: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Every request, as (method, path, Range header).
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    url: str = ""


_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)$")
_INFO = re.compile(r"^/api/models/(?P<repo>[^/]+/[^/]+)(?:/revision/(?P<rev>[^/]+))?$")


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def do_HEAD(self) -> None:
            self._serve(head=True)

        def do_GET(self) -> None:
            self._serve(head=False)

        def _error(self, status: int, code: str, head: bool) -> None:
            body = json.dumps({"error": code}).encode()
            self.send_response(status)
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _repo(self, name: str, rev: str | None, head: bool) -> Repo | None:
            repo = hub.repos.get(name)
            if repo is None:
                self._error(404, "RepoNotFound", head)
                return None
            if rev is not None and unquote(rev) not in (repo.sha, *repo.branches):
                self._error(404, "RevisionNotFound", head)
                return None
            return repo

        def _serve(self, head: bool) -> None:
            path = self.path.split("?", 1)[0]
            hub.requests.append((self.command, path, self.headers.get("Range")))
            info = _INFO.match(path)
            if info:
                repo = self._repo(info["repo"], info["rev"], head)
                if repo is not None:
                    payload = {
                        "id": info["repo"],
                        "modelId": info["repo"],
                        "sha": repo.sha,
                        "private": False,
                        "gated": "manual" if repo.token else False,
                        "siblings": [
                            {"rfilename": name, "size": repo.claimed_sizes.get(name, len(data))}
                            for name, data in repo.files.items()
                        ],
                    }
                    self._send(200, json.dumps(payload).encode(), head, {})
                return
            match = _RESOLVE.match(path)
            if not match:
                self._error(404, "NotFound", head)
                return
            repo = self._repo(match["repo"], match["rev"], head)
            if repo is None:
                return
            if repo.token and self.headers.get("Authorization") != f"Bearer {repo.token}":
                self._error(401, "GatedRepo", head)
                return
            name = unquote(match["file"])
            if name not in repo.files:
                self._error(404, "EntryNotFound", head)
                return
            if name in repo.drop and not head:
                self.close_connection = True
                self.connection.shutdown(2)  # the connection drops before any answer
                return
            data = repo.files[name]
            etag = hashlib.sha256(data).hexdigest()
            headers = {
                "X-Repo-Commit": repo.sha,
                "ETag": f'"{etag}"',
                "X-Linked-Etag": f'"{etag}"',
                "X-Linked-Size": str(len(data)),
                "Accept-Ranges": "bytes",
            }
            ranged = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range") or "")
            if ranged and not repo.ignore_range:
                start = int(ranged[1])
                end = min(int(ranged[2]) if ranged[2] else len(data) - 1, len(data) - 1)
                headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
                body = data[start : end + 1]
                self._send(206, body, head, headers)
            else:
                body = data
                self._send(200, body, head, headers)
            if not head:
                hub.served[match["repo"], name] += len(body)

        def _send(self, status: int, body: bytes, head: bool, headers: dict[str, str]) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

    return Handler


@contextmanager
def serve(hub: FakeHub) -> Iterator[FakeHub]:
    """Run the server on a free local port for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sharded llama saved by transformers whose config says 4 KV heads (the weights: 2)."""
    pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("hub") / "llama"
    build("llama", folder, sharded=True)
    edit_config(folder, num_key_value_heads=4)
    (folder / "tokenizer_config.json").write_text(json.dumps({"added_tokens_decoder": {}}))
    return folder


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llama: Path) -> Iterator[FakeHub]:
    fake = FakeHub(
        {
            "org/llama": Repo.from_folder(llama),
            "org/gated": Repo.from_folder(llama, token="hf_secret"),
            "org/noconfig": Repo({"README.md": b"# no config"}),
            "org/norange": Repo.from_folder(llama, ignore_range=True),
            "org/huge": Repo.from_folder(llama, claimed_sizes={"config.json": 40 * 2**30}),
            "org/dropping": Repo.from_folder(
                llama, drop=frozenset(p.name for p in llama.glob("*.safetensors"))
            ),
        }
    )
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("HF_HOME", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "cache"))  # never ~/.cache
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    with serve(fake):
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake
