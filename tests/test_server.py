"""``dimlint server`` driven as an editor drives it (pytest-lsp starts the real server process).

Every expected range is computed here from ``dimlint check --output-format json`` on the same
text written to disk, converted to LSP's 0-based UTF-16 positions with Python's codecs; expected
costs in hovers are hand derivations written in the test.
"""

from __future__ import annotations

import asyncio
import io
import json
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

from dimlint.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0

BROKEN = """{
  "model_type": "llama",
  "_name_😀": "a key with a character outside the BMP", "hidden_size": 4100,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "intermediate_size": 11008,
  "num_hidden_layers": 32,
  "vocab_size": 32000,
  "vocab_size": 32000,
  "torch_dtype": "bfloat16"
}
"""

DATACLASS = """from dataclasses import dataclass


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 770
    dropout: float = 0.0
"""


class RecordingClient(LanguageClient):
    """pytest-lsp's client, also keeping every publishDiagnostics (with its version) and every
    ``$/logTrace`` line with the time it arrived."""

    published: list[types.PublishDiagnosticsParams]
    arrived: list[float]
    traced: list[tuple[float, str]]


def _record(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)
    client.arrived.append(asyncio.get_running_loop().time())


def _trace(client: RecordingClient, params: types.LogTraceParams) -> None:
    client.traced.append((asyncio.get_running_loop().time(), params.message))


def _accept(client: RecordingClient, params: types.RegistrationParams) -> None:
    """Accept the server's file watchers (the editor would then send didChangeWatchedFiles)."""
    del client, params


def make_client() -> RecordingClient:
    from pygls.protocol import default_converter

    client = RecordingClient(converter_factory=default_converter)
    client.published = []
    client.arrived = []
    client.traced = []
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record
    features[types.LOG_TRACE] = _trace
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


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "dimlint", "server"],
        server_env={**os.environ, "PYTHONPATH": str(ROOT)},
        client_factory=make_client,
    )
)
async def traced(lsp_client: RecordingClient) -> Any:
    """A client that turns the debounce off and asks for the server's trace (one line per lint
    started, dropped or published)."""
    capabilities = client_capabilities("visual-studio-code")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            initialization_options={"dimlint": {"debounce-ms": 0}},
            trace=types.TraceValue.Verbose,
        )
    )
    yield
    await lsp_client.shutdown_session()


# -- helpers -----------------------------------------------------------------------------------


def _uri(path: Path) -> str:
    return path.as_uri()


async def published(client: RecordingClient, uri: str, version: int) -> list[types.Diagnostic]:
    """The diagnostics published for ``version`` of ``uri`` (waiting for them)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        for params in reversed(client.published):
            if params.uri == uri and params.version == version:
                return list(params.diagnostics)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri} version {version}")


def open_document(client: RecordingClient, path: Path, text: str, language: str) -> str:
    uri = _uri(path)
    item = types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    return uri


def change(client: RecordingClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def check_json(path: Path, text: str, *extra: str) -> list[dict[str, Any]]:
    """What ``dimlint check --output-format json`` reports on ``text`` written at ``path``."""
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    main(["check", str(path), "--output-format", "json", *extra], out, io.StringIO())
    found: list[dict[str, Any]] = json.loads(out.getvalue())
    return found


def utf16(text: str, line: int, column: int) -> types.Position:
    """dimlint's 1-based line and code-point column → LSP, by Python's UTF-16 codec."""
    line_text = text.split("\n")[line - 1].removesuffix("\r")
    # LSP: a character past the end of the line means the end of the line
    units = len(line_text[: column - 1].encode("utf-16-le")) // 2
    return types.Position(line=line - 1, character=units)


def expected(text: str, findings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    severity = {"error": 1, "warning": 2, "info": 3}
    return sorted(
        (
            f["code"],
            severity[f["severity"]],
            f["message"],
            f["url"],
            utf16(text, f["line"], f["column"]),
            utf16(text, f["end_line"], f["end_column"]),
        )
        for f in findings
    )


def actual(diagnostics: list[types.Diagnostic]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            d.code,
            int(d.severity) if d.severity else None,
            d.message,
            d.code_description.href if d.code_description else None,
            d.range.start,
            d.range.end,
        )
        for d in diagnostics
    )


def _offset(text: str, position: types.Position) -> int:
    lines = text.split("\n")
    before = sum(len(line) + 1 for line in lines[: position.line])
    line, units, index = lines[position.line], 0, 0
    while units < position.character:
        units += len(line[index].encode("utf-16-le")) // 2
        index += 1
    return before + index


def apply(text: str, edit: types.WorkspaceEdit | None) -> str:
    """Apply a workspace edit to ``text`` as an editor would (edits from last to first)."""
    assert edit is not None
    assert edit.document_changes
    edits: list[types.TextEdit] = []
    for change_ in edit.document_changes:
        assert isinstance(change_, types.TextDocumentEdit)
        edits += [e for e in change_.edits if isinstance(e, types.TextEdit)]
    spans = [(_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _for(action: types.CodeAction, code: str) -> bool:
    """A fix of the finding ``code`` (alone, or merged with others making the same edit), not
    an action suppressing it."""
    suppressing = action.title.startswith(("Ignore ", "Disable "))
    return code in [d.code for d in action.diagnostics or []] and not suppressing


async def actions_at(
    client: RecordingClient, uri: str, diagnostic: types.Diagnostic, only: list[str] | None = None
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic], only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def hover(client: RecordingClient, uri: str, text: str, word: str) -> str:
    offset = text.index(word) + 1
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    character = len(text.split("\n")[line][:column].encode("utf-16-le")) // 2
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


# -- config.json -------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_config_diagnostics_fixes_and_half_typed_json(
    client: RecordingClient, tmp_path: Path
) -> None:
    path = tmp_path / "model" / "config.json"
    path.parent.mkdir()
    uri = open_document(client, path, BROKEN, "json")
    first = await published(client, uri, 1)
    reference = check_json(path, BROKEN)
    assert {f["code"] for f in reference} >= {"DL002", "DL101"}
    assert actual(first) == expected(BROKEN, reference)

    # the safe fix of the duplicate key: preferred, and applying it removes the finding
    duplicate = next(d for d in first if d.code == "DL002")
    [fix] = [a for a in await actions_at(client, uri, duplicate) if _for(a, "DL002")]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred
    fixed = apply(BROKEN, fix.edit)
    change(client, uri, 2, fixed)
    second = await published(client, uri, 2)
    assert "DL002" not in {d.code for d in second}
    assert actual(second) == expected(fixed, check_json(path, fixed))

    # an unsafe fix is offered, titled as the shape change it is, and not preferred
    heads = next(d for d in second if d.code == "DL101")
    unsafe = [a for a in await actions_at(client, uri, heads) if _for(a, "DL101")]
    assert unsafe
    assert unsafe[0].title.startswith("Change shapes:")
    assert not unsafe[0].is_preferred
    reshaped = apply(fixed, unsafe[0].edit)
    assert '"hidden_size": 4096' in reshaped
    change(client, uri, 3, reshaped)
    assert "DL101" not in {d.code for d in await published(client, uri, 3)}

    # mid-edit: the value half typed, the object not closed → DL001 at the place, then back
    cut = reshaped.index('"num_attention_heads": 32') + len('"num_attention_heads": 3')
    half = reshaped[:cut]
    change(client, uri, 4, half)
    broken = await published(client, uri, 4)
    assert [d.code for d in broken] == ["DL001"]
    assert actual(broken) == expected(half, check_json(path, half))
    change(client, uri, 5, reshaped)
    assert actual(await published(client, uri, 5)) == expected(reshaped, check_json(path, reshaped))


@pytest.mark.asyncio
async def test_fix_all_safe_and_display_only_fixes(client: RecordingClient, tmp_path: Path) -> None:
    twice = BROKEN.replace('"torch_dtype"', '"num_hidden_layers": 32,\n  "torch_dtype"')
    path = tmp_path / "config.json"
    uri = open_document(client, path, twice, "json")
    diagnostics = await published(client, uri, 1)
    duplicates = [d for d in diagnostics if d.code == "DL002"]
    assert len(duplicates) == 2
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0), end=duplicates[0].range.end
            ),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
        )
    )
    [fix_all] = [a for a in result or [] if isinstance(a, types.CodeAction)]
    assert fix_all.kind == "source.fixAll.dimlint"
    fixed = apply(twice, fix_all.edit)
    reference = check_json(path, twice, "--fix")
    assert fixed == path.read_text(encoding="utf-8")  # what `check --fix` writes
    assert not any(f["fix"] and f["fix"]["applicability"] == "safe" for f in reference)

    # weights beside the config: shape fixes become display-only, never offered as edits
    header = json.dumps({"__metadata__": {}}).encode()
    (tmp_path / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    change(client, uri, 2, BROKEN)
    beside = await published(client, uri, 2)
    heads = next(d for d in beside if d.code == "DL101")
    assert isinstance(heads.data, dict)
    assert "not applied" in heads.data["fix"]
    titles = [a.title for a in await actions_at(client, uri, heads)]
    assert not any(title.startswith("Change shapes") for title in titles)


@pytest.mark.asyncio
async def test_hover_costs_from_the_memory_model(client: RecordingClient, tmp_path: Path) -> None:
    text = BROKEN.replace("4100", "4096").replace('  "vocab_size": 32000,\n', "", 1)
    uri = open_document(client, tmp_path / "config.json", text, "json")
    await published(client, uri, 1)
    # vocab: embedding + untied LM head = 2 × 32000 × 4096 = 262,144,000; 8,192 per row
    shown = await hover(client, uri, text, '"vocab_size"')
    assert "**vocab_size** = 32000" in shown
    assert "multiple of 64" in shown
    assert "parameters: 262M" in shown
    assert "8.19K per unit" in shown
    # KV cache per token, bf16: 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B;
    # mem's context without max_position_embeddings is 2048 tokens: 256 MiB, 32 MiB per KV head
    shown = await hover(client, uri, text, "8,\n")  # on the value of num_key_value_heads
    assert "**num_key_value_heads** = 8" in shown
    assert "✓ divides num_attention_heads 32" in shown
    assert "KV cache at 2,048 tokens × 1, bf16" in shown
    assert "KV cache: 256 MiB (100.0% of 256 MiB), 32 MiB per unit" in shown
    assert "KV cache per token: 128 KiB" in shown
    shown = await hover(client, uri, text, '"hidden_size"')
    assert "✓ divisible by num_attention_heads 32 (head dim = 4096/32)" in shown


@pytest.mark.asyncio
async def test_settings_files_and_editor_settings(client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    uri = open_document(client, path, BROKEN, "json")
    assert "DL201" in {d.code for d in await published(client, uri, 1)}
    before = len(client.published)

    (tmp_path / "pyproject.toml").write_text('[tool.dimlint]\nignore = ["DL201"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(
                    uri=_uri(tmp_path / "pyproject.toml"), type=types.FileChangeType.Created
                )
            ]
        )
    )
    codes = await _next_codes(client, uri, before)
    assert "DL201" not in codes
    assert "DL101" in codes

    before = len(client.published)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"dimlint": {"targets": ["vllm:tp=3"]}})
    )
    codes = await _next_codes(client, uri, before)
    assert "DL401" in codes  # 32 heads over tp=3
    assert "DL201" not in codes  # the file's ignore still holds

    # a client that sends no settings is asked for its "dimlint" section (VS Code does this)
    before = len(client.published)
    client.set_configuration({"targets": ["vllm:tp=4"], "select": ["DL1"]}, section="dimlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    codes = await _next_codes(client, uri, before)
    assert codes == {"DL101"}  # select replaced the file's set; 32 heads split over tp=4


async def _next_codes(client: RecordingClient, uri: str, after: int) -> set[str]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        for params in client.published[after:]:
            if params.uri == uri:
                return {str(d.code) for d in params.diagnostics}
        await asyncio.sleep(0.02)
    raise AssertionError("no diagnostics after the settings changed")


@pytest.mark.asyncio
async def test_latest_version_wins(client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    uri = open_document(client, path, BROKEN, "json")
    await published(client, uri, 1)
    for version in range(2, 8):  # a burst of keystrokes, each a different hidden size
        change(client, uri, version, BROKEN.replace("4100", str(4100 + version)))
    last = await published(client, uri, 7)
    versions = [p.version for p in client.published if p.uri == uri and p.version is not None]
    assert versions == sorted(versions)
    assert versions[-1] == 7
    final = BROKEN.replace("4100", "4107")
    assert actual(last) == expected(final, check_json(path, final))


@pytest.mark.asyncio
async def test_a_slow_file_does_not_hold_up_a_config(
    client: RecordingClient, tmp_path: Path
) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from lsp_latency import python_model  # the benchmark's 2,000-line model file

    slow = open_document(client, tmp_path / "model.py", python_model(), "python")
    fast = open_document(client, tmp_path / "config.json", BROKEN, "json")
    await published(client, fast, 1)
    assert not any(p.uri == slow for p in client.published)  # still linting the long file
    await published(client, slow, 1)


@pytest.mark.asyncio
async def test_a_typing_session_cannot_pile_up(traced: RecordingClient, tmp_path: Path) -> None:
    """Keys at short intervals in a 2,000-line Python file and a config at once, debounce off:
    one lint of the Python file at a time, the latest version after the lint in flight, and
    configs never wait for it."""
    sys.path.insert(0, str(ROOT / "bench"))
    from lsp_latency import python_model

    model = python_model()
    slow = open_document(traced, tmp_path / "model.py", model, "python")
    fast = open_document(traced, tmp_path / "config.json", BROKEN, "json")
    await published(traced, slow, 1)
    await published(traced, fast, 1)
    before = len(traced.traced)
    keys = 20
    loop = asyncio.get_running_loop()
    first_key = loop.time()
    for version in range(2, keys + 2):
        change(traced, slow, version, model.replace("HIDDEN = 4096", f"HIDDEN = {4096 + version}"))
        change(traced, fast, version, BROKEN.replace("4100", str(4100 + version)))
        await asyncio.sleep(0.02)
    last_key = loop.time()
    last = keys + 1
    await published(traced, slow, last)
    final = BROKEN.replace("4100", str(4100 + last))
    assert actual(await published(traced, fast, last)) == expected(
        final, check_json(tmp_path / "config.json", final)
    )

    def lines(uri: str) -> list[tuple[float, str]]:
        return [(t, m.replace(f" {uri} ", " ")) for t, m in traced.traced[before:] if uri in m]

    python = lines(slow)
    # one lint in flight: each start is followed by its end before the next start
    events = [m.split()[1] for _, m in python]
    assert events[0::2] == ["started"] * len(events[0::2])
    assert all(event in ("dropped", "published") for event in events[1::2])
    assert python[-1][1] == f"lint published version {last}"
    started = events.count("started")
    ended_while_typing = sum(
        1 for t, m in python if t <= last_key and m.split()[1] in ("dropped", "published")
    )
    # each lint after the first starts when the one before it ended (or after the last key)
    assert started <= ended_while_typing + 2
    # the last diagnostics came at most two lints after the last key
    durations = [b[0] - a[0] for a, b in zip(python[0::2], python[1::2], strict=True)]
    # one lint at a time: no more lints than fit end to end in the typing, plus the last two
    # (one per key, 21, before the scheduler; a 2 s lint of this file allowed 4)
    assert started <= (last_key - first_key) / min(durations) + 2, python
    published_versions = [p.version for p in traced.published if p.uri == slow]
    assert published_versions[0] == 1
    assert published_versions[-1] == last
    assert published_versions == sorted(set(published_versions))
    assert len(published_versions) <= started + 1  # a superseded lint publishes nothing
    arrived = next(
        t
        for t, p in zip(traced.arrived, traced.published, strict=True)
        if p.uri == slow and p.version == last
    )
    assert arrived - last_key <= 2 * max(durations) + 1.0
    # the config was linted and published while the Python file was being linted
    config = [m for _, m in lines(fast)]
    assert f"lint published version {last}" in config
    order = [m for _, m in traced.traced[before:]]
    assert order.index(f"lint published {fast} version {last}") < order.index(
        f"lint published {slow} version {last}"
    )


# -- every file kind check reads, and silence where check is silent ------------------------------

TRAINING_YAML = """# a Megatron-style training config
model:
  hidden_size: 4100
  num_layers: 24
  num_attention_heads: 32
  ffn_hidden_size: 11008
tensor_model_parallel_size: 8
"""


@pytest.mark.asyncio
async def test_yaml_training_config(client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "train.yaml"
    uri = open_document(client, path, TRAINING_YAML, "yaml")
    first = await published(client, uri, 1)
    reference = check_json(path, TRAINING_YAML)
    assert "DL101" in {f["code"] for f in reference}
    assert actual(first) == expected(TRAINING_YAML, reference)
    heads = next(d for d in first if d.code == "DL101")
    offered = await actions_at(client, uri, heads)
    fixes = [a for a in offered if _for(a, "DL101")]
    assert fixes
    # a noqa comment for DL101 on the line, which check honours in YAML as in Python
    [noqa] = [a for a in offered if a.title.startswith("Disable DL101")]
    silenced = apply(TRAINING_YAML, noqa.edit)
    assert "  hidden_size: 4100  # noqa: DL101\n" in silenced
    codes = {f["code"] for f in check_json(path, silenced)}
    assert "DL101" not in codes
    assert codes
    fixed = apply(TRAINING_YAML, fixes[0].edit)
    change(client, uri, 2, fixed)
    assert actual(await published(client, uri, 2)) == expected(fixed, check_json(path, fixed))


@pytest.mark.asyncio
async def test_files_check_passes_over_stay_silent(client: RecordingClient, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the workspace is a repository: its .gitignore applies
    (tmp_path / ".gitignore").write_text("generated/\n")
    jsonc = '{\n  // editor settings\n  "editor.tabSize": 2,\n}\n'
    silent = {
        ".vscode/settings.json": jsonc,
        ".devcontainer/devcontainer.json": jsonc,
        "tsconfig.json": '{"compilerOptions": {"strict": true,}}',
        "package.json": '{"name": "x", "version": "1.0.0",, }',
        "data/records.json": '[{"id": 1}, {"id": 2',
        "node_modules/pkg/config.json": BROKEN,
        "generated/config.json": BROKEN,
    }
    uris = []
    for name, text in silent.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        uris.append(open_document(client, path, text, "json"))
    # what check . reports on the same tree: nothing from these files
    for name, text in silent.items():
        (tmp_path / name).write_text(text)
    out = io.StringIO()
    main(["check", str(tmp_path), "--output-format", "json"], out, io.StringIO())
    assert json.loads(out.getvalue()) == []
    for uri in uris:
        assert await published(client, uri, 1) == []
    # and no hover either: a config under node_modules is not one of the workspace's
    line = BROKEN.split("\n").index(next(x for x in BROKEN.split("\n") if "num_attention" in x))
    shown = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(
                uri=_uri(tmp_path / "node_modules/pkg/config.json")
            ),
            position=types.Position(line=line, character=4),
        )
    )
    assert shown is None


@pytest.mark.asyncio
async def test_a_document_that_stops_parsing_keeps_its_findings(
    client: RecordingClient, tmp_path: Path
) -> None:
    path = tmp_path / "config.json"
    uri = open_document(client, path, BROKEN, "json")
    good = await published(client, uri, 1)
    assert {d.code for d in good} >= {"DL101", "DL002"}
    cut = BROKEN[: BROKEN.index('"num_hidden_layers"')]  # typing: the rest not there yet
    change(client, uri, 2, cut)
    shown = await published(client, uri, 2)
    parse = [d for d in shown if d.code == "DL001"]
    assert actual(parse) == expected(cut, check_json(path, cut))
    kept = [d for d in shown if d.code != "DL001"]
    assert sorted(d.code for d in kept) == sorted(d.code for d in good)
    assert all(d.message.endswith("[stale: from the last version that parsed]") for d in kept)
    change(client, uri, 3, BROKEN)
    assert actual(await published(client, uri, 3)) == expected(BROKEN, check_json(path, BROKEN))


# -- Python ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_python_dataclass_config(client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    uri = open_document(client, path, DATACLASS, "python")
    first = await published(client, uri, 1)
    reference = check_json(path, DATACLASS)
    assert {f["code"] for f in reference} == {"DL101", "DL201"}
    assert actual(first) == expected(DATACLASS, reference)

    heads = next(d for d in first if d.code == "DL101")
    [fix] = [a for a in await actions_at(client, uri, heads) if _for(a, "DL101")]
    assert fix.title.startswith("Change shapes:")
    fixed = apply(DATACLASS, fix.edit)
    assert "n_embd: int = 768" in fixed
    change(client, uri, 2, fixed)
    assert await published(client, uri, 2) == []

    half = fixed.replace("n_head: int = 12", "n_head: int = (12")
    change(client, uri, 3, half)
    broken = await published(client, uri, 3)
    assert [d.code for d in broken] == ["DL001"]
    assert actual(broken) == expected(half, check_json(path, half))

    noqa = DATACLASS.replace("n_embd: int = 770", "n_embd: int = 770  # noqa: DL101")
    change(client, uri, 4, noqa)
    assert [d.code for d in await published(client, uri, 4)] == ["DL201"]

    shown = await hover(client, uri, noqa, "n_head")
    assert "**n_head** = 12" in shown
    assert "✗ divides n_embd 770" in shown
    # untied embedding and head: 2 × 50304 × 770 = 77,468,160 (no model type: an estimate)
    shown = await hover(client, uri, noqa, "vocab_size")
    assert "parameters (estimate: a model type counted approximately): 77.5M (" in shown
    assert "1.54K per unit" in shown


@pytest.mark.asyncio
async def test_merged_quick_fixes_and_suppression_actions(
    client: RecordingClient, tmp_path: Path
) -> None:
    # DL101 and DL201 both round hidden_size to 4096: one action naming both codes
    path = tmp_path / "config.json"
    text = BROKEN.replace('  "vocab_size": 32000,\n', "", 1)
    uri = open_document(client, path, text, "json")
    found = await published(client, uri, 1)
    heads = next(d for d in found if d.code == "DL101")
    actions = await actions_at(client, uri, heads)
    edits = [a for a in actions if a.edit is not None and a.edit.document_changes]
    shapes = [a for a in edits if a.title.startswith("Change shapes")]
    assert len(shapes) == 1, [a.title for a in actions]
    assert {d.code for d in shapes[0].diagnostics or []} == {"DL101", "DL201"}
    assert "DL101, DL201" in shapes[0].title
    # JSON: ignore in this file, through the settings check reads (pyproject.toml here)
    (tmp_path / "pyproject.toml").write_text('[tool.dimlint]\nignore = ["DL3"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(
                    uri=_uri(tmp_path / "pyproject.toml"), type=types.FileChangeType.Changed
                )
            ]
        )
    )
    offered = await actions_at(client, uri, heads)
    [ignore] = [a for a in offered if a.title.startswith("Ignore DL101")]
    assert ignore.title == "Ignore DL101 in this file (per-file-ignores in pyproject.toml)"
    assert ignore.edit is not None
    [settings_change] = ignore.edit.document_changes or []
    assert isinstance(settings_change, types.TextDocumentEdit)
    assert settings_change.text_document.uri == _uri(tmp_path / "pyproject.toml")
    [whole] = settings_change.edits
    assert isinstance(whole, types.TextEdit)
    (tmp_path / "pyproject.toml").write_text(whole.new_text)
    assert "DL101" not in {f["code"] for f in check_json(path, text)}
    assert "DL201" in {f["code"] for f in check_json(path, text)}

    # Python: a noqa comment for the code on the finding's line, which check then honours
    model = tmp_path / "model.py"
    source = open_document(client, model, DATACLASS, "python")
    first = await published(client, source, 1)
    width = next(d for d in first if d.code == "DL201")
    offered = await actions_at(client, source, width)
    assert {a.title for a in offered if "noqa" in a.title} == {
        "Disable DL101 for this line (# noqa: DL101)",
        "Disable DL201 for this line (# noqa: DL201)",
    }
    [noqa] = [a for a in offered if a.title.startswith("Disable DL201")]
    assert noqa.title == "Disable DL201 for this line (# noqa: DL201)"
    silenced = apply(DATACLASS, noqa.edit)
    assert "n_embd: int = 770  # noqa: DL201\n" in silenced
    assert [f["code"] for f in check_json(model, silenced)] == ["DL101"]
    change(client, source, 2, silenced)
    assert [d.code for d in await published(client, source, 2)] == ["DL101"]
    heads = next(d for d in await published(client, source, 2) if d.code == "DL101")
    [more] = [a for a in await actions_at(client, source, heads) if "noqa" in a.title]
    assert more.title.startswith("Disable DL101")
    both = apply(silenced, more.edit)
    assert "n_embd: int = 770  # noqa: DL201, DL101\n" in both
    assert check_json(model, both) == []


def test_server_without_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pygls" else real(name, *a)
    )
    err = io.StringIO()
    assert main(["server"], io.StringIO(), err) == 2
    assert err.getvalue().count("\n") == 1
    assert "pip install 'dimlint[lsp]'" in err.getvalue()
