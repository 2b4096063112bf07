"""dimlint over the config-bearing files of 16 training repositories (``../shared/corpus/repos``).

* ``dimlint check <repo>`` exits 0 on every unmodified repository: no error-level finding, and
  every warning is in :data:`TRUE_WARNINGS`, each with the reason it is a real defect (or, for
  the few listed as known false ones, why a per-file reader cannot see the truth);
* defects planted into real YAML configs of every dialect in the corpus, and into configs written
  here from the documented keys of Megatron-LM, NeMo, torchtune and axolotl (absent from the
  corpus), are found at the planted line. Expected lines come from the offset of the planted
  text, never from dimlint's reader.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from dimlint.cli import main
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection
from tests.conftest import SHARED, shared_path

REPOS = SHARED / "corpus" / "repos"
REPO_NAMES = (
    sorted(p.name for p in REPOS.iterdir() if p.is_dir())
    if REPOS.is_dir()
    else ["<shared corpus absent>"]
)

#: Warnings on the unmodified repositories, as (path prefix, code) → why each is true.
TRUE_WARNINGS: dict[tuple[str, str], str] = {
    ("EleutherAI__gpt-neox/configs/mistral/7B.yml", "DL201"): (
        "a real defect: gpt-neox scales a gated intermediate_size by 2/3 and halves it"
        " (megatron/model/transformer.py ParallelMLP), so 14336 with swiglu gives a 9557-wide"
        " fused projection and 4778-wide branches — not Mistral-7B's 14336 (gpt-neox's llama"
        " configs state 3 × the branch width for this reason)"
    ),
    ("EleutherAI__gpt-neox/tests/config/test_setup.yml", "DL104"): (
        "toy test model: hidden 8 / 4 heads = head dim 2, which FlashAttention pads to 8"
    ),
    ("huggingface__nanotron/examples/", "DL104"): (
        "nanotron's tiny example models: hidden 16 / 4 heads = head dim 4 (padded by FA2)"
    ),
    ("huggingface__nanotron/examples/", "DL202"): (
        "vocab 50257/50277 with make_vocab_size_divisible_by 1: nanotron does not pad, the"
        " LM head runs misaligned"
    ),
    ("allenai__OLMo/test_fixtures/train_tiny", "DL202"): (
        "OLMo test fixtures state vocab_size 50257 without embedding_size: OLMo then uses"
        " 50257 rows (olmo/model.py: embedding_size or vocab_size)"
    ),
    ("allenai__OLMo/conftest.py", "DL202"): (
        "the same fixture config in Python (no embedding_size): 50257 rows"
    ),
    ("karpathy__llm.c/train_gpt2.py", "DL202"): (
        "the PyTorch reference model builds nn.Embedding(50257, …): llm.c pads only the"
        " exported checkpoint for its C code (pad_vocab), the PyTorch model runs misaligned"
    ),
    ("KellerJordan__modded-nanogpt/records/track_1_short/2024-10-", "DL202"): (
        "the October 2024 records build the embedding from vocab_size 50257 unpadded (the"
        " rounding next_multiple_of_n came later); the speedrun padded it to 50304 since"
    ),
    ("Lightning-AI__litgpt/litgpt/config.py", "DL104"): (
        "a released model's head dim 100 (Falcon-180B style 14848/148): FA2 pads it to 104"
    ),
    ("Lightning-AI__litgpt/tests/", "DL104"): (
        "toy test models with head dims 1–16: real kernel misalignment, intended for speed of tests"
    ),
    ("Lightning-AI__litgpt/tests/", "DL201"): (
        "toy test models with widths 2–86: really misaligned"
    ),
    ("Lightning-AI__litgpt/tests/", "DL202"): (
        "KNOWN FALSE where the toy config is litgpt's Config: it pads vocab_size to"
        " padding_multiple 512 in litgpt/config.py, which a per-file reader of the test does not"
        " see; true where padded_vocab_size itself is stated misaligned (10000, 8)"
    ),
    ("Lightning-AI__litgpt/tests/", "DL301"): ("toy test model with an FFN outside real ratios"),
    ("Lightning-AI__litgpt/tests/", "DL004"): (
        "a real typo: the HF Olmo2Config built to compare against is given"
        " max_positional_embeddings, which transformers keeps as an unknown attribute, so the"
        " reference model runs with the default max_position_embeddings"
    ),
    ("allenai__OLMo/tests/", "DL104"): (
        "test models of d_model 1024 with 2 heads: head dim 512, which FlashAttention refuses"
        " (the tests run on CPU)"
    ),
    ("pytorch__torchtitan/tests/", "DL104"): (
        "a toy attention of dim 8 with head_dim 4: padded by FlashAttention-2"
    ),
}


def _allowed(path: str, code: str) -> bool:
    relative = Path(path).resolve().relative_to(REPOS.resolve()).as_posix()
    return any(relative.startswith(prefix) and code == c for prefix, c in TRUE_WARNINGS)


@pytest.mark.parametrize("name", REPO_NAMES)
def test_repository_passes_with_only_true_warnings(name: str) -> None:
    folder = shared_path("corpus", "repos", name)
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(folder), "--output-format", "json", "--no-config"], out, err)
    findings = json.loads(out.getvalue())
    errors = [f for f in findings if f["severity"] == "error"]
    assert not errors, errors
    assert code == 0
    unexplained = [
        f"{f['file']}:{f['line']} {f['code']} {f['message'][:80]}"
        for f in findings
        if f["severity"] == "warning" and not _allowed(f["file"], f["code"])
    ]
    assert not unexplained, unexplained


def test_true_warning_states_the_width_gpt_neox_builds() -> None:
    """TRUE_WARNINGS is keyed by file and code; the value of its first entry is checked here:
    gpt-neox builds ``int(intermediate_size × 2/3) // 2``-wide branches from a gated size."""
    path = shared_path("corpus", "repos", "EleutherAI__gpt-neox", "configs", "mistral", "7B.yml")
    text = path.read_text(encoding="utf-8")
    size = re.search(r"(?m)^\s*\"?intermediate[_-]size\"?\s*:\s*(\d+)", text)
    assert size is not None
    branch = int(int(size.group(1)) * 2 / 3) // 2
    found = lint_bytes(str(path), text.encode(), Selection()).diagnostics
    widths = {  # "intermediate-size 14336 (gpt-neox's gated MLP: 4778 per branch) is not …"
        int(m.group(2) or m.group(1))
        for d in found
        if d.code == "DL201"
        if (m := re.match(r"\S+ (\S+)(?: \(.*?(\d+) per branch\))? is not", d.message))
    }
    assert widths == {branch}


# --- planted defects -------------------------------------------------------------------------

#: A hidden-size key of any dialect, written as a plain integer in the file.
_HIDDEN = re.compile(
    r"(?m)^(?P<lead>\s*\"?(?:hidden[_-]size|d_model|dim|embed_dim)\"?\s*:\s*)(?P<value>\d+)"
)
_HEADS = re.compile(
    r"(?m)^\s*\"?(?:num[_-]attention[_-]heads|n_heads|num_heads)\"?\s*:\s*(?P<value>\d+)"
)


_RECURRENT = re.compile(r"mamba|rwkv|fastRNN")


def _planted_yaml_cases() -> list[tuple[str, str, int, str]]:
    """(name, planted text, expected line, code) for every corpus YAML whose model states a
    hidden size and a head count as literals: the hidden size is set to one the heads do not
    divide (DL101 at the hidden size's line; DL201 for recurrent models)."""
    if not REPOS.is_dir():
        return []
    cases = []
    for path in sorted(REPOS.rglob("*.y*ml")):
        text = path.read_text(encoding="utf-8")
        hidden, heads = _HIDDEN.search(text), _HEADS.search(text)
        if hidden is None or heads is None or int(heads["value"]) < 2:
            continue
        count = int(heads["value"])
        new = int(hidden["value"]) + 64 + 1  # not divisible by any head count ≥ 2 here
        while new % count == 0:
            new += 1
        planted = text[: hidden.start("value")] + str(new) + text[hidden.end("value") :]
        line = text.count("\n", 0, hidden.start("value")) + 1
        name = str(path.relative_to(REPOS))
        # Recurrent models (mamba, RWKV, hawk, minGRU, minLSTM) split an inner width into
        # "heads", not the model width: there the odd width is a misalignment (DL201).
        code = "DL201" if _RECURRENT.search(name) else "DL101"
        cases.append((name, planted, line, code))
    return cases


def _found_at(name: str, text: str, line: int, code: str) -> bool:
    result = lint_bytes(name, text.encode(), Selection())
    return any(d.code == code and d.span is not None and d.span.start_pos.line == line
               for d in result.diagnostics)  # fmt: skip


def test_planted_yaml_defects_found_at_their_line() -> None:
    shared_path("corpus", "repos")
    cases = _planted_yaml_cases()
    dialects = {name.split("/")[0] for name, *_ in cases}
    assert {
        "EleutherAI__gpt-neox",
        "allenai__OLMo",
        "huggingface__nanotron",
        "facebookresearch__lingua",
    } <= dialects
    missed = [name for name, text, line, code in cases if not _found_at(name, text, line, code)]
    recall = 1 - len(missed) / len(cases)
    assert recall >= 0.95, (recall, len(cases), missed)


# Configs written from the documented keys of frameworks the corpus lacks. Megatron-LM's
# TransformerConfig / ModelParallelConfig (megatron/core/transformer/transformer_config.py,
# model_parallel_config.py) and NeMo's megatron_gpt_config.yaml use the same names:
# num_layers, hidden_size, ffn_hidden_size, num_attention_heads, num_query_groups, kv_channels,
# make_vocab_size_divisible_by, tensor_model_parallel_size, pipeline_model_parallel_size.
NEMO = """\
trainer:
  devices: 8
model:
  micro_batch_size: 1
  tensor_model_parallel_size: {tp}
  pipeline_model_parallel_size: 1
  encoder_seq_length: 4096
  num_layers: 32
  hidden_size: 4096
  ffn_hidden_size: 11008
  num_attention_heads: {heads}
  num_query_groups: {groups}
  kv_channels: null
  activation: fast-swiglu
  make_vocab_size_divisible_by: 128
"""
MEGATRON = """\
language_model:
  num_layers: 24
  hidden_size: 768
  ffn_hidden_size: 3072
  num_attention_heads: {heads}
  kv_channels: 64
model_parallel:
  tensor_model_parallel_size: {tp}
  pipeline_model_parallel_size: {pp}
"""
# torchtune: a model component with the builder's keyword arguments (torchtune.models.llama3).
TORCHTUNE = """\
model:
  _component_: torchtune.models.llama3.llama3
  vocab_size: 128256
  num_layers: 16
  num_heads: 32
  num_kv_heads: {kv}
  embed_dim: 2048
  max_seq_len: 8192
  intermediate_dim: 8192
tensor_parallel_dim: 1
"""
# axolotl: a base model and HF config keys that override it.
AXOLOTL = """\
base_model: meta-llama/Llama-3.2-1B
model_type: AutoModelForCausalLM
sequence_len: 4096
overrides_of_model_config:
  hidden_size: {hidden}
  num_attention_heads: 32
  num_key_value_heads: 8
"""


def _line_of(text: str, needle: str) -> int:
    return text.count("\n", 0, text.index(needle)) + 1


@pytest.mark.parametrize(
    ("template", "good", "bad", "needle", "code"),
    [
        (NEMO, {"tp": 8, "heads": 32, "groups": 8}, {"tp": 8, "heads": 32, "groups": 6},
         "num_query_groups: 6", "DL102"),
        (NEMO, {"tp": 8, "heads": 32, "groups": 8}, {"tp": 8, "heads": 12, "groups": 4},
         "num_attention_heads: 12", "DL401"),
        (MEGATRON, {"heads": 12, "tp": 4, "pp": 2}, {"heads": 12, "tp": 8, "pp": 2},
         "num_attention_heads: 12", "DL401"),
        (MEGATRON, {"heads": 12, "tp": 4, "pp": 2}, {"heads": 12, "tp": 4, "pp": 5},
         "num_layers: 24", "DL405"),
        (TORCHTUNE, {"kv": 8}, {"kv": 5}, "num_kv_heads: 5", "DL102"),
        (AXOLOTL, {"hidden": 2048}, {"hidden": 2050}, "hidden_size: 2050", "DL101"),
    ],
)  # fmt: skip
def test_documented_dialects(
    template: str, good: dict[str, int], bad: dict[str, int], needle: str, code: str
) -> None:
    clean = lint_bytes("cfg.yaml", template.format(**good).encode(), Selection())
    assert [d for d in clean.diagnostics if d.severity.label != "info"] == []
    planted = template.format(**bad)
    result = lint_bytes("cfg.yaml", planted.encode(), Selection())
    line = _line_of(planted, needle)
    assert any(
        d.code == code and d.span is not None and d.span.start_pos.line == line
        for d in result.diagnostics
    ), [(d.code, d.span.start_pos if d.span else None) for d in result.diagnostics]


def test_yaml_fix_is_byte_minimal() -> None:
    """The unsafe DL101 fix of a YAML hidden size replaces exactly its digits."""
    text = "# comment kept\nmodel:\n  d_model: 4100   # wide\n  n_heads: 32\n  n_layers: 2\n"
    result = lint_bytes("olmo.yaml", text.encode(), Selection())
    fixes = [d.fix for d in result.diagnostics if d.code == "DL101" and d.fix is not None]
    assert fixes, result.diagnostics
    (edit,) = fixes[0].edits
    assert text[edit.span.start : edit.span.end] == "4100"
    assert (edit.span.start_pos.line, edit.span.start_pos.column) == (3, 12)


def test_padding_elsewhere_silences_vocab() -> None:
    olmo = "model:\n  d_model: 4096\n  n_heads: 32\n  n_layers: 2\n  vocab_size: 50280\n"
    unpadded = lint_bytes("o.yaml", olmo.encode(), Selection())
    assert any(d.code == "DL202" for d in unpadded.diagnostics)
    padded = lint_bytes("o.yaml", (olmo + "  embedding_size: 50304\n").encode(), Selection())
    assert not any(d.code == "DL202" for d in padded.diagnostics)
    code = (
        "from dataclasses import dataclass\n"
        "@dataclass\nclass GPTConfig:\n    vocab_size: int = 50257\n    n_layer: int = 12\n"
        "    n_head: int = 12\n    n_embd: int = 768\n"
        "class GPT:\n    def __init__(self, config):\n"
        "        self.vocab_size = next_multiple_of_n(config.vocab_size, n=128)\n"
    )
    assert not any(
        d.code == "DL202" for d in lint_bytes("m.py", code.encode(), Selection()).diagnostics
    )


def test_recurrent_heads_are_not_attention() -> None:
    hawk = 'model_type: "hawk"\nmodel:\n  dim: 2048\n  n_layers: 25\n  n_heads: 22\n'
    result = lint_bytes("hawk.yaml", hawk.encode(), Selection())
    assert not [d for d in result.diagnostics if d.code in ("DL101", "DL104")]


def test_walk_skips_jsonc_but_named_file_keeps_dl001(tmp_path: Path) -> None:
    (tmp_path / ".devcontainer").mkdir()
    jsonc = tmp_path / ".devcontainer" / "devcontainer.json"
    jsonc.write_text('// comment\n{"name": "dev"}\n')
    broken = tmp_path / "model" / "config.json"
    broken.parent.mkdir()
    broken.write_text('{"hidden_size": 4096,,}\n')
    unreadable = tmp_path / "tooling.json"
    unreadable.write_text('{"name": "dev",, // not JSON even without its comment\n}\n')
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(tmp_path), "--output-format", "json", "--verbose"], out, err)
    codes = [(Path(f["file"]).name, f["code"]) for f in json.loads(out.getvalue())]
    assert codes == [("config.json", "DL001")]
    assert code == 1
    assert "devcontainer.json: not a model config" in err.getvalue()
    assert "tooling.json: not valid JSON" in err.getvalue()
    out = io.StringIO()
    assert main(["check", str(unreadable), "--output-format", "json"], out, io.StringIO()) == 1
    assert [f["code"] for f in json.loads(out.getvalue())] == ["DL001"]
    # JSON with comments is its owner's dialect, read as such even when named
    assert main(["check", str(jsonc), "--output-format", "json"], io.StringIO(), err) == 0


# --- planted defects in Python as the repositories write it -----------------------------------


def _hits(
    path: Path, text: str, line: int, codes: tuple[str, ...], local: str | None = None
) -> bool:
    """A finding of ``codes`` at ``line``, or one whose fix edits ``line``, or (for a function
    local such as ``local``) one on a use of a local name in the lines after it, in the config
    the function returns (a local several configs read: the finding points at its use), or one
    on the literal of another local of the function (the rule's anchor, the width ``dim``
    beside the planted heads: a local one config reads holds the finding at its literal)."""
    result = lint_bytes(str(path), text.encode(), Selection())
    lines = text.splitlines()
    for d in result.diagnostics:
        if d.code not in codes or d.span is None:
            continue
        if d.span.start_pos.line == line:
            return True
        used = local is not None and text[d.span.start : d.span.end].isidentifier()
        if used and 0 < d.span.start_pos.line - line < 80:
            return True
        beside = _LOCAL_LITERAL.fullmatch(lines[d.span.start_pos.line - 1])
        if local is not None and beside and abs(d.span.start_pos.line - line) < 20:
            return True
        edits = d.fix.edits if d.fix is not None else ()
        if any(e.span.start_pos.line == line for e in edits):
            return True
    return False


def _replace(text: str, match: re.Match[str], group: str, new: str) -> tuple[str, int]:
    start, end = match.span(group)
    return text[:start] + new + text[end:], text.count("\n", 0, start) + 1


_LOCAL_LITERAL = re.compile(r" {4,}[A-Za-z_]\w* = \d+")
_LOCAL_HEADS = re.compile(r"(?m)^ {4,}n_heads = (?P<value>\d+)$")
_LOCAL_KV = re.compile(r"(?m)^ {4,}n_kv_heads = (?P<value>\d+)$")


def _function_local_cases() -> list[tuple[Path, str, int, tuple[str, ...], str]]:
    """torchtitan's model registries: sizes as function locals. The head count is set to 31,
    which divides neither a power-of-two width nor any KV head count > 1 (DL101/DL102); the KV
    head count to one that does not divide the heads (DL102). Latent-attention (MLA) models are
    left out: their head count constrains nothing."""
    cases = []
    for path in sorted((REPOS / "pytorch__torchtitan" / "torchtitan" / "models").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        mla = "kv_lora_rank" in text  # latent attention: any head count is valid geometry
        for match in [] if mla else _LOCAL_HEADS.finditer(text):
            planted, line = _replace(text, match, "value", "31")
            cases.append((path, planted, line, ("DL101", "DL102"), "n_heads"))
        for match in [] if mla else _LOCAL_KV.finditer(text):
            planted, line = _replace(text, match, "value", "7")
            cases.append((path, planted, line, ("DL102",), "n_kv_heads"))
    return cases


def test_planted_function_local_defects() -> None:
    shared_path("corpus", "repos", "pytorch__torchtitan")
    cases = _function_local_cases()
    assert len(cases) >= 10
    missed = [
        (p.name, line)
        for p, text, line, codes, local in cases
        if not _hits(p, text, line, codes, local)
    ]
    assert 1 - len(missed) / len(cases) >= 0.95, (len(cases), missed)


_MODULE_EMBD = re.compile(r"(?m)^n_embd = (?P<value>\d+)")


def test_planted_nanogpt_config_file() -> None:
    """nanoGPT's config files are module-level assignments executed by configurator.py."""
    path = shared_path(
        "corpus", "repos", "karpathy__nanoGPT", "config", "train_shakespeare_char.py"
    )
    text = path.read_text(encoding="utf-8")
    clean = lint_bytes(str(path), text.encode(), Selection())
    assert clean.diagnostics == []
    assert clean.read == (1, 0)
    match = _MODULE_EMBD.search(text)
    assert match is not None
    for width in (385, 391, 401, 500):  # none divisible by n_head = 6
        planted, line = _replace(text, match, "value", str(width))
        assert _hits(path, planted, line, ("DL101",)), width


_FROM_NAME = re.compile(r"Config\.from_name\(\s*\"[^\"]+\"(?P<args>[^)]*)\)")
_HEADS_KW = re.compile(r"\bn_head=(?P<value>\d+)")
_GROUPS_KW = re.compile(r"\bn_query_groups=(?P<value>\d+)")


def test_planted_from_name_overrides() -> None:
    """litgpt's ``Config.from_name(name, **overrides)``: the overrides merge over the named
    entry of litgpt/config.py. A KV-group count that does not divide the heads is planted (the
    call's own ``n_query_groups`` replaced, or one added after ``n_head``)."""
    tests = shared_path("corpus", "repos", "Lightning-AI__litgpt", "tests")
    cases = []
    for path in sorted(tests.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for call in _FROM_NAME.finditer(text):
            offset = call.start("args")
            heads = _HEADS_KW.search(call["args"])
            if heads is None or int(heads["value"]) < 3:
                continue
            count = int(heads["value"])
            groups = next(g for g in range(count - 1, 1, -1) if count % g)
            stated = _GROUPS_KW.search(call["args"])
            if stated is not None:
                start, end = offset + stated.start("value"), offset + stated.end("value")
                planted = text[:start] + str(groups) + text[end:]
            else:
                start = offset + heads.end("value")
                planted = text[:start] + f", n_query_groups={groups}" + text[start:]
            line = text.count("\n", 0, start) + 1
            cases.append((path, planted, line))
    assert len(cases) >= 5
    missed = [(p.name, ln) for p, text, ln in cases if not _hits(p, text, ln, ("DL102",))]
    assert 1 - len(missed) / len(cases) >= 0.95, (len(cases), missed)


def test_from_name_keeps_the_base_head_size() -> None:
    """gemma-2-9b's entry states head_size 256: shrinking n_embd in a test keeps it (no DL104
    from 32 / 16 = 2)."""
    path = shared_path("corpus", "repos", "Lightning-AI__litgpt", "tests", "test_model.py")
    text = 'from litgpt import Config\nc = Config.from_name("gemma-2-9b", n_head=16, n_embd=32)\n'
    result = lint_bytes(str(path), text.encode(), Selection())
    assert not [d for d in result.diagnostics if d.code == "DL104"]


def test_planted_torch_layers() -> None:
    """A ``torch.nn.MultiheadAttention`` whose width the heads do not divide, appended to each
    model file of the corpus that imports ``torch.nn``."""
    shared_path("corpus", "repos")
    cases = []
    for path in sorted(REPOS.rglob("model*.py")):
        text = path.read_text(encoding="utf-8")
        if "from torch import nn" in text or "import torch.nn as nn" in text:
            planted = text.rstrip("\n") + "\n_planted = nn.MultiheadAttention(770, 12)\n"
            cases.append((path, planted, planted.count("\n")))
    assert len(cases) >= 5
    missed = [(p.name, ln) for p, text, ln in cases if not _hits(p, text, ln, ("DL101",))]
    assert 1 - len(missed) / len(cases) >= 0.95, (len(cases), missed)
