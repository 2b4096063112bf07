"""The Python front end: parsing, static values, what counts as a config, and what stays silent."""

from __future__ import annotations

import codecs
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import lint_text

from dimlint.diagnostics import Diagnostic
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

REPO = Path(__file__).resolve().parent.parent


def lint(text: str, select: tuple[str, ...] | None = None) -> list[Diagnostic]:
    return lint_text(text, path="model.py", select=select)


def found(text: str, select: tuple[str, ...] | None = None) -> list[tuple[str, int, int]]:
    """(code, line, column) of each finding."""
    return [
        (d.code, d.span.start_pos.line, d.span.start_pos.column)
        for d in lint(text, select)
        if d.span is not None
    ]


# --- input ---------------------------------------------------------------------------------------


def test_syntax_error_is_dl001_where_python_places_it() -> None:
    text = "hidden_size = 4096\n\ndef broken(:\n    pass\n"
    (diagnostic,) = lint(text)
    assert diagnostic.code == "DL001"
    assert diagnostic.span is not None
    # libcst's native parser stops at the next token ("pass", 4:1); the finding sits where
    # CPython places it — the ':' at line 3, column 12 — with libcst's expectation in words.
    assert (diagnostic.span.start_pos.line, diagnostic.span.start_pos.column) == (3, 12)
    assert text.splitlines()[2][11] == ":"
    assert diagnostic.message == "invalid Python: invalid syntax (expected one of ), *, **, NAME)"


def test_unclosed_bracket_is_dl001() -> None:
    (diagnostic,) = lint("config = dict(n_embd=768, n_head=12\n")
    assert diagnostic.code == "DL001"


def test_syntax_error_in_a_file_without_config_keys_costs_nothing() -> None:
    """The pre-filter decides first: a file that cannot hold a config is not parsed at all."""
    assert lint("def broken(:\n") == []


def test_invalid_utf8_is_dl001_with_its_position() -> None:
    data = b"n_embd = 768\nname = '\xff'\n"
    result = lint_bytes("model.py", data, Selection())
    (diagnostic,) = result.diagnostics
    assert diagnostic.code == "DL001"
    assert diagnostic.span is not None
    assert (diagnostic.span.start_pos.line, diagnostic.span.start_pos.column) == (2, 9)


def test_a_declared_encoding_is_read_but_never_rewritten() -> None:
    text = "# -*- coding: latin-1 -*-\nname = 'é'\ncfg = dict(n_embd=1000, n_head=16)\n"
    result = lint_bytes("model.py", text.encode("latin-1"), Selection())
    assert [d.code for d in result.diagnostics] == ["DL101", "DL201"]
    assert result.document is None  # nothing to fix through


def test_a_utf8_bom_is_kept_by_fixes() -> None:
    from dimlint.fix.apply import fix_file

    data = codecs.BOM_UTF8 + b"cfg = dict(n_embd=1024, n_head=24, n_layer=2)\n"
    selection = Selection()
    first = lint_bytes("model.py", data, selection)
    assert [d.code for d in first.diagnostics] == ["DL101"]
    outcome = fix_file(data, first, lambda new: lint_bytes("model.py", new, selection), unsafe=True)
    assert outcome.fixed is not None
    assert outcome.fixed.startswith(codecs.BOM_UTF8)
    assert outcome.fixed.count(codecs.BOM_UTF8) == 1
    assert outcome.fixed != data


def test_a_python_file_without_config_keys_does_not_import_libcst(tmp_path: Path) -> None:
    plain = tmp_path / "util.py"
    plain.write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    model = tmp_path / "model.py"
    model.write_text("cfg = dict(n_embd=768, n_head=12)\n", encoding="utf-8")
    probe = (
        "import io, json, sys\nfrom dimlint.cli import main\n"
        "code = main(['check', '--no-config', *sys.argv[1:]], io.StringIO(), io.StringIO())\n"
        "print(json.dumps({'code': code, 'libcst': 'libcst' in sys.modules}))\n"
    )

    def loaded(path: Path) -> dict[str, object]:
        output = subprocess.run(
            [sys.executable, "-c", probe, str(path)],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        ).stdout
        result: dict[str, object] = json.loads(output)
        return result

    assert loaded(plain) == {"code": 0, "libcst": False}
    assert loaded(model) == {"code": 0, "libcst": True}


def test_node_offsets_agree_with_the_source() -> None:
    """The counting code generation locates nodes and comments exactly (CRLF, tabs, unicode)."""
    import libcst as cst

    from dimlint.sources.python import file as pyfile
    from dimlint.sources.python import scan as pyscan

    text = (
        "# café ☕ config\r\nHIDDEN = (4096)  # noqa: DL201\r\n"
        "class C:\r\n\tn_embd: int = 768\r\n\tname = 'naïve'\r\n"
        "cfg = dict(n_embd=HIDDEN, n_head=-1, rope={'factor': 8.0})\r\n"
    )
    module = pyfile.parse(text)
    assert isinstance(module, cst.Module)
    scan = pyscan.scan(module)
    nodes: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name | cst.Integer | cst.Float | cst.SimpleString | cst.Dict):
            nodes.append(node)
        stack.extend(node.children)
    located = pyfile.locate(module, nodes)
    for node in nodes:
        offsets = located.of(node)
        assert offsets is not None
        bare = node.with_changes(lpar=(), rpar=()) if getattr(node, "lpar", ()) else node
        assert text[offsets[0] : offsets[1]] == cst.Module([]).code_for_node(bare)
    assert [c[2] for c in located.comments] == ["# café ☕ config", "# noqa: DL201"]
    assert all(text[start:end] == comment for start, end, comment in located.comments)
    assert len(scan.sites) == 2


# --- static values -------------------------------------------------------------------------------


def test_arithmetic_on_module_constants() -> None:
    text = (
        "BASE = 512\nHIDDEN = 2 * BASE + 8\nHEADS = HIDDEN // 64\n"
        "cfg = dict(hidden_size=HIDDEN, num_attention_heads=HEADS, num_hidden_layers=2)\n"
    )
    # 1032 / 16 = 64.5: the finding points at the use of HIDDEN in the config.
    assert found(text) == [("DL101", 4, 24), ("DL201", 4, 24)]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 << 12", 4096),
        ("2 ** 12", 4096),
        ("int(4096 * 1.5)", 6144),
        ("(8 * 512) // 2", 2048),
        ("4096 / 2", 2048.0),
        ("1 | 4096", None),
        ("4096 @ 2", None),
        ("1 << 100", None),
        ("4096 // 0", None),
        ("[1] * 3 + [2]", [1, 1, 1, 2]),
        ("('a', 'b')", ["a", "b"]),
        ("-1", -1),
        ("True + 1", None),
        ("dict(a=1, **other)", None),
        ("{'a': 1, **other}", None),
        ("f'{1}'", None),
    ],
)
def test_static_evaluation(expression: str, expected: object) -> None:
    import libcst as cst

    from dimlint.sources.python.scan import scan
    from dimlint.sources.python.values import UNKNOWN, Evaluator

    module = cst.parse_module(f"x = {expression}\n")
    statement = module.body[0]
    assert isinstance(statement, cst.SimpleStatementLine)
    assign = statement.body[0]
    assert isinstance(assign, cst.Assign)
    value = Evaluator(scan(module)).evaluate(assign.value, ()).value
    assert value == (UNKNOWN if expected is None else expected)
    assert type(value) is (type(UNKNOWN) if expected is None else type(expected))


def test_computed_values_get_no_fix_but_literals_do() -> None:
    text = "BASE = 512\ncfg = dict(hidden_size=2 * BASE + 8, num_attention_heads=16, n_layer=2)\n"
    (dl101, _) = lint(text)
    assert dl101.code == "DL101"
    assert dl101.fix is not None
    # The search repairs through the literal head count, not the formula.
    (edit,) = dl101.fix.edits
    assert text[edit.span.start : edit.span.end] == "16"


def test_function_parameters_and_reassigned_locals_are_not_constants() -> None:
    text = (
        "HIDDEN = 1000\n"
        "def build(HIDDEN=64):\n"
        "    return dict(hidden_size=HIDDEN, num_attention_heads=16, num_hidden_layers=2)\n"
        "def local(wide):\n"
        "    heads = 7\n"
        "    if wide:\n"
        "        heads = 16\n"
        "    return dict(hidden_size=1024, num_attention_heads=heads, num_hidden_layers=2)\n"
        "cfgs = [dict(hidden_size=h, num_attention_heads=16, n_layer=2) for h in (1000, 999)]\n"
    )
    assert lint(text) == []


def test_locals_assigned_once_are_resolved() -> None:
    """torchtitan's style: sizes as locals of a function, assembled in the returned config;
    the finding points at the literal the one config reads (the user edits it there), and
    the fix edits it."""
    text = (
        "def _1b():\n"
        "    dim = 2048\n"
        "    n_heads = 32\n"
        "    n_kv_heads = 6\n"
        "    return Model.Config(dim=dim, n_layers=16,\n"
        "                        n_heads=n_heads, n_kv_heads=n_kv_heads)\n"
    )
    assert found(text, select=("DL102",)) == [("DL102", 4, 18)]


def test_a_literal_one_place_reads_holds_the_finding_a_shared_one_does_not() -> None:
    """fairseq's test style (``embed_dim = 773`` … ``MultiheadAttention(embed_dim=embed_dim,
    …)``): a local or constant only one config or layer reads is where the finding sits; one
    several layers read stays correct for the others, so the finding sits on the use that
    breaks (and the fix still edits the literal)."""
    text = (
        "import torch.nn as nn\n"
        "D_MODEL = 1000\n"
        "def test_pruning_heads():\n"
        "    embed_dim = 773\n"
        "    num_heads = 12\n"
        "    dummy = torch.randn(32, 2, embed_dim)\n"
        "    mha = nn.MultiheadAttention(embed_dim=embed_dim, num_heads=num_heads)\n"
        "class Block(nn.Module):\n"
        "    def __init__(self):\n"
        "        self.a = nn.MultiheadAttention(D_MODEL, 8)\n"
        "        self.b = nn.MultiheadAttention(D_MODEL, 6)\n"
    )
    assert found(text, select=("DL101",)) == [("DL101", 4, 17), ("DL101", 11, 40)]


def test_reassigned_and_global_names_are_not_constants() -> None:
    text = (
        "HIDDEN = 1000\nHIDDEN = 1024\nHEADS = 16\n"
        "def grow():\n    global HEADS\n    HEADS = 17\n"
        "a = dict(hidden_size=HIDDEN, num_attention_heads=16, num_hidden_layers=2)\n"
        "b = dict(hidden_size=1024, num_attention_heads=HEADS, num_hidden_layers=2)\n"
    )
    assert lint(text) == []


def test_class_body_names_resolve_in_the_class() -> None:
    text = (
        "from dataclasses import dataclass\n"
        "@dataclass\nclass Cfg:\n    n_embd: int = 1000\n    n_head: int = 16\n"
        "    n_inner: int = 4 * n_embd\n    n_layer: int = 2\n"
    )
    assert found(text, select=("DL101",)) == [("DL101", 4, 19)]


def test_cyclic_constants_are_unknown() -> None:
    assert lint("A = B\nB = A\ncfg = dict(n_embd=A, n_head=16, n_layer=2)\n") == []


def test_none_and_negative_sizes_mean_set_later_not_invalid() -> None:
    text = (
        "from dataclasses import dataclass\nfrom typing import Optional\n"
        "@dataclass\nclass ModelArgs:\n    dim: int = 4096\n    n_layers: int = 32\n"
        "    n_heads: int = 32\n    n_kv_heads: Optional[int] = None\n    vocab_size: int = -1\n"
        "    multiple_of: int = 256\n    ffn_dim_multiplier: Optional[float] = None\n"
    )
    assert lint(text) == []


def test_tuples_are_lists_and_strings_are_not_sizes() -> None:
    text = (
        "class SwinConfig:\n"
        "    model_type = 'swin'\n"
        "    attribute_map = {\n"
        "        'num_attention_heads': 'num_heads', 'num_hidden_layers': 'num_layers'\n"
        "    }\n"
        "    embed_dim: int = 96\n"
        "    depths: tuple = (2, 2, 6, 2)\n"
        "    num_heads: tuple = (3, 6, 12, 24)\n"
    )
    assert lint(text, select=("DL003", "DL101", "DL102")) == []


# --- candidates ----------------------------------------------------------------------------------


def test_values_that_are_not_statically_known_are_silent() -> None:
    text = (
        "import torch.nn as nn\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.attn = nn.MultiheadAttention(config.n_embd, config.n_head)\n"
        "        self.proj = nn.Linear(config.n_embd, 4 * config.n_embd + 1)\n"
        "        self.cfg = dict(n_embd=config.n_embd, n_head=7, n_layer=config.n_layer)\n"
    )
    assert lint(text) == []


def test_other_libraries_nn_modules_are_not_torch() -> None:
    text = (
        "import flax.linen as nn\n"
        "layer = nn.MultiheadAttention(1000, 16)\n"
        "head = nn.Linear(768, 50257)\n"
    )
    assert lint(text) == []


def test_a_subclass_in_the_file_inherits_and_reports_what_it_adds() -> None:
    text = (
        "from dataclasses import dataclass\n"
        "@dataclass\nclass Base:\n    n_embd: int = 768\n    n_head: int = 12\n"
        "    n_layer: int = 12\n    vocab_size: int = 50257\n"
        "@dataclass\nclass Wide(Base):\n    n_head: int = 10\n"
    )
    # Base's DL202 is reported once (on Base); Wide adds DL101, pointed at its own n_head.
    assert found(text, select=("DL101", "DL202")) == [("DL202", 7, 23), ("DL101", 10, 19)]


def test_positional_arguments_of_a_dataclass_override() -> None:
    text = (
        "from dataclasses import dataclass\n"
        "@dataclass\nclass Cfg:\n"
        "    n_embd: int = 768\n    n_head: int = 12\n    n_layer: int = 12\n"
        "bad = Cfg(1000, 16)\n"
    )
    assert found(text, select=("DL101",)) == [("DL101", 7, 11)]


def test_a_model_built_over_spread_kwargs_is_read_in_its_written_sizes() -> None:
    """timm-style factories (MAE's ``vit_base_patch16(**kwargs)``): the sizes written beside a
    ``**kwargs`` spread hold, since Python refuses a keyword given twice. A class with defaults of
    its own (transformers', one of this file) is not read that way: the spread could override
    them."""
    factory = (
        "def vit_base(**kwargs):\n"
        "    return VisionTransformer(patch_size=16, embed_dim={w}, depth=12, num_heads=12,"
        " mlp_ratio=4, **kwargs)\n"
    )
    assert found(factory.format(w=833), select=("DL101",)) == [("DL101", 2, 55)]
    assert found(factory.format(w=768), select=("DL101",)) == []
    spread_over_defaults = (
        "from transformers import LlamaConfig\n"
        "def make(**kw):\n    return LlamaConfig(hidden_size=4100, **kw)\n"
    )
    assert found(spread_over_defaults, select=("DL101",)) == []
    # a method the spread passes through may mean anything by its parameters (OLMo-core's
    # ladder: ``hidden_size`` is the MLP width beside ``d_model``)
    method = "x = cls.v1(d_model=640, hidden_size=640 * 8, n_layers=10, n_heads=6, **kwargs)\n"
    assert found(method, select=("DL101",)) == []


def test_the_vit_familys_width_is_read_in_module_fields_and_calls() -> None:
    """A flax module's fields (gemma's SigLIP encoder, LiT's ``TextTransformer``: batch 5) and
    CLIP's ``Transformer(width=, layers=, heads=)``: ``width`` beside heads and a depth is the
    model width."""
    fields = (
        "import flax.linen as nn\n\n\nclass Encoder(nn.Module):\n"
        "    width: int = {w}\n    depth: int = 27\n    mlp_dim: int = 4304\n"
        "    num_heads: int = 16\n"
    )
    assert found(fields.format(w=1152), select=("DL101",)) == []
    assert found(fields.format(w=1153), select=("DL101",)) == [("DL101", 5, 18)]
    call = "model = Transformer(width={w}, layers=12, heads=8)\n"
    assert found(call.format(w=512), select=("DL101",)) == []
    assert found(call.format(w=513), select=("DL101",)) == [("DL101", 1, 27)]


def test_other_spellings_of_heads_and_head_width() -> None:
    """Held-out batch 6: lerobot's FastWAM dict states ``attn_head_dim`` (its DiT's attention is
    heads × that wide: once a false DL101); lightseq's ``get_config(hidden_size=, nhead=)``
    uses torch's ``nhead``."""
    fastwam = (
        "def default_action_dit_config():\n"
        '    return {"hidden_dim": 1024, "ffn_dim": 4096, "num_heads": 24,'
        ' "attn_head_dim": 128, "num_layers": 30}\n'
    )
    assert found(fastwam, select=("DL101",)) == []
    lightseq = "config = Layer.get_config(hidden_size={w}, intermediate_size=4096, nhead=16)\n"
    assert found(lightseq.format(w=1024), select=("DL101",)) == []
    assert found(lightseq.format(w=1025), select=("DL101",)) == [("DL101", 1, 39)]


def test_transformers_calls_report_only_what_they_add() -> None:
    """glm4_moe's own default (4096 / 96 heads) is transformers' defect, not this call's."""
    assert (
        lint("from transformers import Glm4MoeConfig\nc = Glm4MoeConfig(vocab_size=151552)\n") == []
    )
    text = "from transformers import Glm4MoeConfig\nc = Glm4MoeConfig(num_attention_heads=80)\n"
    assert found(text, select=("DL101",)) == [("DL101", 2, 39)]


def test_a_dict_finding_on_the_whole_config_points_at_its_brace() -> None:
    text = (
        "cfg = {\n    'model_type': 'llama',\n    'hidden_size': 4096,\n"
        "    'num_attention_heads': 32,\n    'rope_scaling': {'factor': 8.0},\n}\n"
    )
    assert found(text, select=("DL604",)) == [("DL604", 5, 5)]


def test_a_rope_factor_without_a_type_is_transformers_concern_only() -> None:
    """gpt-fast's ``transformer_configs`` (held-out batch 4): its own ``apply_rope_scaling``
    reads the factors, transformers never sees the dict, so no rope_type is missing; the same
    dict handed to a transformers class is refused by it."""
    rope = "rope_scaling=dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0)"
    table = f"configs = {{'8b': dict(n_layer=32, n_head=32, dim=4096, {rope})}}\n"
    assert found(table, select=("DL604",)) == []
    call = f"from transformers import LlamaConfig\nc = LlamaConfig(hidden_size=4096, {rope})\n"
    assert [code for code, _, _ in found(call, select=("DL604",))] == ["DL604"]


def test_dict_key_renames_keep_the_quote_style() -> None:
    text = "cfg = {'model_type': 'llama', 'hidden_size': 4096, 'num_attention_head': 32}\n"
    (diagnostic,) = lint(text, select=("DL004",))
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    assert edit.content == "'num_attention_heads'"


def test_a_shared_constant_is_not_fixed_when_another_config_would_break() -> None:
    text = (
        "HIDDEN = 1024\nHEADS = 24\n"
        "a = dict(hidden_size=HIDDEN, num_attention_heads=HEADS, num_hidden_layers=2)\n"
        "b = dict(n_embd=HIDDEN // 2, n_head=HEADS // 3, n_layer=2)\n"
    )
    (diagnostic,) = lint(text)
    assert diagnostic.code == "DL101"
    # The chosen repair, HEADS 24 → 16 (free in parameters), would leave b with 512 / 5 heads
    # (DL101): the shared constant is not rewritten.
    assert diagnostic.fix is None


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",
        "from torch import nn\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        return x.softmax(dim=-1)\n",
        "settings = dict(hidden_size=None, num_attention_heads=None)\n",
    ],
)
def test_files_without_configs_yield_nothing(source: str) -> None:
    result = lint_bytes("model.py", source.encode(), Selection())
    assert result.diagnostics == []
    assert result.skipped


def test_hidden_dim_is_the_width_beside_heads_and_no_other_width() -> None:
    """bd3lms' ``PretrainedConfig`` subclass (and levanter's ``LlamaConfig(hidden_dim=…)``)
    name the model width ``hidden_dim``: read so, and named so; beside a ``dim`` (Mistral's
    ``ModelArgs``) ``hidden_dim`` is the FFN and the width is ``dim``."""
    bd3lm = (
        "import transformers\n"
        "class BD3LMConfig(transformers.PretrainedConfig):\n"
        '    model_type = "bd3lm"\n'
        "    def __init__(self, vocab_size: int = 50304, hidden_dim: int = 833,\n"
        "                 n_blocks: int = 12, n_heads: int = 12, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
    )
    (error,) = [d for d in lint(bd3lm) if d.code == "DL101"]
    assert error.span is not None
    line = bd3lm.splitlines()[3]
    assert (error.span.start_pos.line, error.span.start_pos.column) == (4, line.index("833") + 1)
    assert error.message.startswith("hidden_dim 833 is not divisible by n_heads 12")
    levanter = "from levanter.models.llama import LlamaConfig\n"
    levanter += "c = LlamaConfig(hidden_dim=4100, num_heads=32, num_layers=2)\n"
    assert ("DL101", 2, 28) in found(levanter)
    mistral = "m = ModelArgs(dim=4096, hidden_dim=14337, n_heads=32, n_layers=2)\n"
    assert not [d for d in lint(mistral) if d.code == "DL101"]


def test_evl_n_dim_beside_n_head_is_the_width() -> None:
    """UniFormerV2/EVL's keywords in lower case (``n_layers=4, n_dim=768, n_head=12``)."""
    text = "model = TransformerDecoder(n_layers=4, n_dim={w}, n_head=12, mlp_factor=4.0)\n"
    assert not lint_bytes("evl.py", text.format(w=768).encode(), Selection()).diagnostics
    found = lint_bytes("evl.py", text.format(w=833).encode(), Selection()).diagnostics
    assert "DL101" in {d.code for d in found}


NANOVLM = """\
from dataclasses import dataclass


@dataclass
class VLMConfig:
    vit_hidden_dim: int = {vit}
    vit_inter_dim: int = 4 * vit_hidden_dim
    vit_n_heads: int = 12
    vit_n_blocks: int = 12
    lm_hidden_dim: int = {lm}
    lm_inter_dim: int = 2560
    lm_n_heads: int = 15
    lm_n_kv_heads: int = 5
    lm_n_blocks: int = 32
"""


def test_models_side_by_side_under_name_prefixes_are_each_read() -> None:
    """nanoVLM's ``VLMConfig`` (held-out batch 8: skipped unparsed): the vision tower and the
    language model side by side, ``vit_*`` and ``lm_*``; each asserts its heads divide its
    ``hidden_dim``. Each prefix is its own model, found where its width is written."""

    def lines(vit: int, lm: int) -> set[tuple[str, int]]:
        text = NANOVLM.format(vit=vit, lm=lm)
        result = lint_bytes("models/config.py", text.encode(), Selection())
        return {(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span}

    clean = lint_bytes("models/config.py", NANOVLM.format(vit=768, lm=960).encode(), Selection())
    assert clean.read[0] == 1
    assert not [d for d in clean.diagnostics if d.severity.label == "error"]
    assert ("DL101", 6) in lines(833, 960)
    assert ("DL101", 10) in lines(768, 1025)
    assert not {code for code, _ in lines(768, 960)} & {"DL101", "DL102"}


def test_prefixed_keys_beside_a_model_of_its_own_are_its_parts() -> None:
    """A config stating its own width and heads keeps its prefixed keys as its parts: no other
    model is read out of them (their semantics are the class's)."""
    text = (
        "cfg = dict(hidden_size=1024, num_attention_heads=16, num_hidden_layers=24,\n"
        "           vision_hidden_size=833, vision_num_heads=12)\n"
    )
    result = lint_bytes("cfg.py", text.encode(), Selection())
    assert "DL101" not in {d.code for d in result.diagnostics}


@pytest.mark.parametrize(
    ("ffn", "warned"), [("int(1792 * 8.571428571428571)", False), ("15360", True)]
)
def test_an_ffn_width_computed_in_code_is_no_typo(ffn: str, warned: bool) -> None:
    """SwissArmyTransformer's EVA-CLIP-8B conversion (held-out batch 8: a false DL301) writes
    its MLP as a ratio of the width; DL301 asks whether a written number is a typo, which a
    computed one cannot be. The same width written as a literal is still judged."""
    text = (
        "args = Namespace(hidden_size=1792, num_attention_heads=16, num_layers=32,\n"
        f"                 inner_hidden_size={ffn})\n"
    )
    result = lint_bytes("transform_param.py", text.encode(), Selection())
    assert ("DL301" in {d.code for d in result.diagnostics}) is warned


def test_a_trailing_comma_tuple_is_named_as_python_writes_it() -> None:
    """InternVideo's xtuner config (held-out batch 8, a true DL003): ``q_lora_rank: int =
    None,`` in a class body is the tuple ``(None,)``; the message names the trailing comma."""
    text = (
        "class MLAConfig(TransformerConfig):\n"
        "    hidden_size: int = 4096\n"
        "    num_attention_heads: int = 32\n"
        "    num_hidden_layers: int = 36\n"
        "    kv_lora_rank: int = 512\n"
        "    q_lora_rank: int = None,\n"
    )
    result = lint_bytes("qwen3.py", text.encode(), Selection())
    (found,) = [d for d in result.diagnostics if d.code == "DL003"]
    assert "one-element tuple (None,): a trailing comma" in found.message
    assert found.span is not None
    assert found.span.start_pos.line == 6


SACRED = """\
from sacred import Experiment

ex = Experiment("CoTrain")


@ex.config
def config():
    exp_name = "cotrain"
    vocab_size = 30522
    hidden_size = {width}
    num_heads = 12
    num_layers = 12


def helper():
    hidden_size = 1025
    num_heads = 12
    return hidden_size, num_heads
"""


@pytest.mark.parametrize("fast", [True, False])
def test_sacred_config_functions_are_read(fast: bool) -> None:
    """InternVideo's CoTrain (held-out batch 8: skipped): sacred's ``@ex.config`` function's
    local variables are the run's configuration. Locals of other functions are not."""
    from dimlint.lint.python_front import lint_python

    def errors(width: int) -> set[tuple[str, int]]:
        text = SACRED.format(width=width)
        result = lint_python("CoTrain/config.py", text.encode(), Selection(), fast=fast)
        assert result.read[0] == 1
        return {(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span}

    assert not {code for code, _ in errors(768)} & {"DL101", "DL201"}
    assert ("DL101", 10) in errors(833)


def test_a_vit_width_beside_evls_n_dim_stays_the_backbones() -> None:
    """InternVideo's EVL builds ``VisionTransformer(width=768, layers=12, heads=12, …,
    n_dim=n_dim, n_head=n_head)``: the ViT backbone's names are its model; ``n_dim`` is the
    global decoder's, a second model, and takes nothing from them."""
    text = (
        "model = VisionTransformer(input_resolution=224, patch_size=32, width={w},\n"
        "    layers=12, heads=12, output_dim=512, n_layers=n_layers, n_dim=n_dim, n_head=n_head)\n"
    )
    assert not lint_bytes("evl.py", text.format(w=768).encode(), Selection()).diagnostics
    found = lint_bytes("evl.py", text.format(w=833).encode(), Selection()).diagnostics
    assert ("DL101", 1) in {(d.code, d.span.start_pos.line) for d in found if d.span}
