"""Training-YAML dialects by the values they produce (issue 25: mutants the suite let through).

Each case is a YAML file whose dialect changes a number — OLMo's fused gated MLP width halved,
gpt-neox's gated ``intermediate-size`` taken at 2/3 and halved, the parallel sizes each framework
spells its own way — and each test asserts that number as the finding's message states it. The
expected widths are computed here from the frameworks' formulas, never read from dimlint.
"""

from __future__ import annotations

import re

import pytest

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def _messages(name: str, text: str) -> dict[str, list[str]]:
    """Findings by code: their messages."""
    found: dict[str, list[str]] = {}
    for diagnostic in lint_bytes(name, text.encode(), Selection()).diagnostics:
        found.setdefault(diagnostic.code, []).append(diagnostic.message)
    return found


def _width_named(messages: dict[str, list[str]], key: str) -> set[int]:
    """The widths the DL201/DL403 findings judge for ``key``: ``"<key> <width> is not …"``, or
    for a gated MLP the branch width the message derives from the stated value
    (``"<key> <stated> (…: <width> per branch) is not …"``)."""
    pattern = re.compile(rf"^{re.escape(key)} (\S+)(?: \(.*?(\d+) per branch\))? is not")
    return {
        int(match.group(2) or match.group(1))
        for code in ("DL201", "DL403")
        for message in messages.get(code, [])
        if (match := pattern.match(message))
    }


# --- OLMo: mlp_hidden_size is both branches of a gated MLP --------------------------------------

OLMO = """\
model:
  d_model: 4096
  n_heads: 32
  n_layers: 32
  mlp_hidden_size: {width}
  activation_type: {activation}
  vocab_size: 50304
tensor_model_parallel_size: 2
"""


@pytest.mark.parametrize("activation", ["swiglu", "SwiGLU", "geglu"])
def test_olmo_gated_width_is_half_the_fused_projection(activation: str) -> None:
    fused = 22018  # OLMo-7B's 22016, moved so its half (11009) is odd and every check names it
    found = _messages("olmo.yaml", OLMO.format(width=fused, activation=activation))
    assert _width_named(found, "mlp_hidden_size") == {fused // 2}


def test_olmo_ungated_width_is_the_stated_width() -> None:
    found = _messages("olmo.yaml", OLMO.format(width=11009, activation="gelu"))
    assert _width_named(found, "mlp_hidden_size") == {11009}


def test_olmo_gated_width_from_the_ratio_is_halved_too() -> None:
    text = OLMO.replace("mlp_hidden_size: {width}", "mlp_ratio: {width}")
    d_model, ratio = 4096, 5.375  # 22016, whose half is 11008: aligned, so no width finding
    assert (
        _width_named(
            _messages("olmo.yaml", text.format(width=ratio, activation="swiglu")), "mlp_ratio"
        )
        == set()
    )
    ratio = 22018 / d_model  # the fused width 22018, half 11009
    found = _messages("olmo.yaml", text.format(width=ratio, activation="swiglu"))
    assert _width_named(found, "mlp_ratio") == {int(ratio * d_model) // 2}


# --- gpt-neox: hyphenated keys, a gated intermediate-size, pipe-parallel-size -----------------

NEOX = """\
hidden-size: 5120
num-attention-heads: 40
num-layers: 40
intermediate-size: {size}
activation: {activation}
model-parallel-size: 2
"""


def _neox_branch(size: int) -> int:
    """gpt-neox's ParallelMLP: the fused up+gate output is int(size × 2/3), each branch half."""
    return int(size * 2 / 3) // 2


def test_neox_hyphen_keys_mark_the_dialect_and_its_gated_width() -> None:
    size = 30003  # branch 10001: odd, so DL201 and DL403 both state it
    found = _messages("neox.yml", NEOX.format(size=size, activation="swiglu"))
    assert _width_named(found, "intermediate-size") == {_neox_branch(size)}


def test_neox_gated_width_rounds_up_to_mlp_multiple_of() -> None:
    size = 30003
    text = NEOX.format(size=size, activation="swiglu") + "mlp_multiple_of: 3\n"
    branch = -(-_neox_branch(size) // 3) * 3  # 10002
    assert _width_named(_messages("neox.yml", text), "intermediate-size") == {branch}


def test_a_gated_intermediate_size_outside_neox_is_the_branch_width() -> None:
    text = NEOX.format(size=10001, activation="swiglu").replace("-", "_")  # Megatron's spelling
    assert _width_named(_messages("m.yml", text), "intermediate_size") == {10001}


def test_megatron_ffn_hidden_size_beside_a_hyphenated_key_is_the_branch_width() -> None:
    """FlagScale's ``model:`` sections hold Megatron arguments, a few spelled with hyphens:
    ``ffn_hidden_size`` is not gpt-neox's key, so it stays the per-branch width (found on held-out
    batch 3: 8960 read as a 2986-wide gpt-neox branch, a false DL403 over tp 4)."""
    text = (
        "model:\n  num_layers: 4\n  hidden_size: 1536\n  num_attention_heads: 12\n"
        "  ffn_hidden_size: {size}\n  swiglu: true\n  untie-embeddings-and-output-weights: false\n"
        "system:\n  tensor_model_parallel_size: 4\n"
    )
    assert _messages("flagscale.yaml", text.format(size=8960)) == {}
    found = _messages("flagscale.yaml", text.format(size=8962))  # 2240.5 per rank
    assert _width_named(found, "ffn_hidden_size") == {8962}


@pytest.mark.parametrize("key", ["pipe-parallel-size", "pipe_parallel_size"])
def test_neox_pipe_parallel_size_is_a_pipeline_target(key: str) -> None:
    text = NEOX.format(size=27648, activation="gelu") + f"{key}: 3\n"
    found = _messages("neox.yml", text)
    assert [m.split(":")[0] for m in found.get("DL405", [])] == [
        "num-layers 40 is not divisible by pp 3"
    ]
    assert all(f"{key}: 3 (/{key})" in m for m in found["DL405"])


# --- nanotron: parallelism.tp / parallelism.pp --------------------------------------------------

NANOTRON = """\
parallelism:
  dp: 2
  tp: 8
  pp: 3
model:
  model_config:
    hidden_size: 768
    num_attention_heads: 12
    num_hidden_layers: 40
    intermediate_size: 3072
"""


def test_nanotron_parallelism_section_sets_tp_and_pp() -> None:
    found = _messages("nanotron.yaml", NANOTRON)
    assert [m.split(":")[0] for m in found.get("DL401", [])] == [
        "num_attention_heads 12 is not divisible by tp 8"
    ]
    assert [m.split(":")[0] for m in found.get("DL405", [])] == [
        "num_hidden_layers 40 is not divisible by pp 3"
    ]


def test_tp_outside_a_parallelism_section_is_not_a_parallel_size() -> None:
    text = NANOTRON.replace("parallelism:", "logging:")
    found = _messages("nanotron.yaml", text)
    assert "DL401" not in found
    assert "DL405" not in found


SAFARI = """\
model:
  _name_: dna_embedding
  d_model: 130
  n_layer: 2
  attn_layer_idx: {layers}
  attn_cfg:
    num_heads: 8
"""


@pytest.mark.parametrize(("layers", "judged"), [("[0, 1]", True), ("[]", False)])
def test_safari_attention_heads_count_only_where_layers_are_attention(
    layers: str, judged: bool
) -> None:
    """safari / hyena-dna: ``attn_cfg.num_heads`` are the heads of the listed flash-attn layers
    (MHA asserts they divide d_model); with no layer listed, the heads are not used."""
    result = lint_bytes("exp.yaml", SAFARI.format(layers=layers).encode(), Selection())
    found = [(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span]
    assert (("DL101", 3) in found) is judged


# --- FlagScale: the stage split stated beside the parallel sizes, not beside the model --------

FLAGSCALE = """\
system:
  tensor_model_parallel_size: 1
  pipeline_model_parallel_size: {pp}
{split}
model:
  num_layers: {layers}
  hidden_size: 2048
  num_attention_heads: 16
"""


@pytest.mark.parametrize(
    ("pp", "layers", "split", "refused"),
    [
        (2, 27, "", True),
        # DeepSeek-V3-lite in FlagScale: 13 layers on the first stage, 14 on the last
        (2, 27, "  decoder_first_pipeline_num_layers: 13", False),
        (2, 27, "  num_layers_in_last_pipeline_stage: 14", False),
        # FlagScale's heterogeneous training: each stage's layers by hand
        (3, 8, "  hetero:\n    hetero_pipeline_layer_split: [2, 4, 2]", False),
        (3, 8, "  logging:\n    log_interval: 1", True),
    ],
)
def test_a_stage_split_stated_in_another_section_allows_an_uneven_split(
    pp: int, layers: int, split: str, refused: bool
) -> None:
    text = FLAGSCALE.format(pp=pp, layers=layers, split=split)
    found = _messages("flagscale.yaml", text)
    assert ("DL405" in found) is refused, found


# --- TencentPretrain: heads_num, layers_num, feedforward_size, local_kv_heads_num ------------

TENCENT = """\
{{
  "emb_size": {width},
  "feedforward_size": 11008,
  "hidden_size": {width},
  "hidden_act": "silu",
  "heads_num": 32,{kv}
  "layers_num": 32,
  "encoder": "transformer",
  "feed_forward": "gated"
}}
"""


def _lines(name: str, text: str) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for d in lint_bytes(name, text.encode(), Selection()).diagnostics:
        found.setdefault(d.code, set()).add(d.span.start_pos.line if d.span else 0)
    return found


def test_tencentpretrain_json_is_read_with_its_names() -> None:
    """TencentPretrain's model JSON (held-out batch 3: 62 files skipped as "not a model
    config"): ``local_kv_heads_num`` must divide ``heads_num`` (``MultiHeadedAttention``'s
    assert), found where it is written."""
    name = "models/llama/7b_config.json"
    result = lint_bytes(name, TENCENT.format(width=4096, kv="").encode(), Selection())
    assert result.read == (1, 0)
    assert not result.diagnostics
    found = _lines(name, TENCENT.format(width=4096, kv='\n  "local_kv_heads_num": 5,'))
    assert found.get("DL102") == {7}


def test_tencentpretrain_rounds_the_head_width_down() -> None:
    """``hidden_size // heads_num``: a width the heads do not divide runs with a narrower
    attention, so it is no DL101 error."""
    text = TENCENT.format(width=4100, kv="")
    assert lint_bytes("models/x/b_config.json", text.encode(), Selection()).read == (1, 0)
    assert "DL101" not in _lines("models/x/b_config.json", text)
    # the same sizes under the common names are judged as transformers builds them
    common = text.replace("heads_num", "num_attention_heads").replace("layers_num", "num_layers")
    assert "DL101" in _lines("models/x/b_config.json", common)


@pytest.mark.parametrize(
    ("extra", "found"),
    [
        ("", True),
        # ALBERT's factorization: a Linear(emb_size, hidden_size) joins them
        (',\n  "factorized_embedding_parameterization": true', False),
        # a recurrent encoder takes emb_size as its input width
        (',\n  "encoder_kind": "x"', True),
    ],
)
def test_tencentpretrain_embedding_width_must_be_the_hidden_width(extra: str, found: bool) -> None:
    """A planted ``emb_size`` (held-out batch 3: the 58 transformer configs' first width key):
    TencentPretrain feeds the embedding to the first layer as it is, so it must be
    ``hidden_size`` wide unless factorized; found on ``emb_size``'s line."""
    text = TENCENT.format(width=4096, kv="").replace('"emb_size": 4096', '"emb_size": 4161')
    text = text.replace('"gated"\n}', f'"gated"{extra}\n}}')
    assert (_lines("models/llama/7b_config.json", text).get("DL607") == {2}) is found
    lstm = text.replace('"encoder": "transformer"', '"encoder": "lstm"')
    assert "DL607" not in _lines("models/rnn/lstm_config.json", lstm)


OPENNMT = """save_model: run/model
encoder_type: transformer_lm
decoder_type: transformer_lm
dec_layers: 32
heads: 32
heads_kv: {kv}
hidden_size: {width}
word_vec_size: {width}
transformer_ff: 11008
pos_ffn_activation_fn: 'silu'
batch_size: 896
"""


def test_opennmt_yaml_is_read_with_its_names() -> None:
    """OpenNMT-py's training YAML (held-out batch 4: 12 files skipped as having no model
    section): ``heads`` must divide ``hidden_size`` (``MultiHeadedAttention`` asserts it) and
    ``heads_kv`` the heads; ``silu`` is its gated MLP (no DL301 on Llama-7B's 11008)."""
    name = "templates/llama7B-finetune.yaml"
    result = lint_bytes(name, OPENNMT.format(width=4096, kv=32).encode(), Selection())
    assert result.read == (1, 0)
    assert not result.diagnostics
    found = _lines(name, OPENNMT.format(width=4161, kv=32))
    assert found.get("DL101") == {7}
    assert _lines(name, OPENNMT.format(width=4096, kv=5)).get("DL102") == {6}
    # ``heads`` beside a width but none of OpenNMT's layer or FFN options is not its dialect
    assert "DL101" not in _lines("x.yaml", "model:\n  hidden_size: 512\n  heads: 7\n")
    assert "DL101" in _lines("x.yaml", "model:\n  hidden_size: 512\n  heads: 7\n  layers: 6\n")


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        # open_clip's JSON model configs: ``text_cfg: {width, heads, layers}``
        (
            "clip.json",
            '{"embed_dim": 512,\n "text_cfg": {"width": {w}, "heads": 8, "layers": 12}}',
            2,
        ),
        # a YAML section in the same names (big_vision's ``width``/``depth``/``num_heads``)
        ("vit.yaml", "model:\n  variant: B/16\n  width: {w}\n  depth: 12\n  num_heads: 8\n", 3),
    ],
)  # fmt: skip
def test_the_vit_familys_width_is_the_model_width(name: str, text: str, line: int) -> None:
    """The ViT family's names (batch 5: gemma's SigLIP and LiT's text tower; CLIP, open_clip,
    big_vision): ``width`` beside a head count and a depth is the attention's width, which
    flax's and torch's multi-head attention refuse to split unevenly."""
    result = lint_bytes(name, text.replace("{w}", "512").encode(), Selection())
    assert result.read == (1, 0)
    assert not result.diagnostics
    assert _lines(name, text.replace("{w}", "513")).get("DL101") == {line}
    # an image's width (beside its height), or a width without a depth, is not a model's
    image = "render:\n  width: 513\n  height: 512\n  num_heads: 8\n  depth: 2\n"
    assert "DL101" not in _lines("img.yaml", image)
    assert "DL101" not in _lines("w.yaml", "model:\n  width: 513\n  num_heads: 8\n")


ESPNET = """encoder: ConformerEncoder
encoder_conf:
    output_size: {width}
    attention_heads: 4
    linear_units: 2048
    num_blocks: 12
decoder_conf:
    attention_heads: 4
    linear_units: 2048
    num_blocks: 6
"""


def test_espnet_encoder_conf_is_read_with_its_names() -> None:
    """FunASR's and ESPnet's ``encoder_conf`` (held-out batch 6: 29 FunASR recipes unread):
    ``output_size`` is the encoder's width, which ``MultiHeadedAttention`` asserts its
    ``attention_heads`` divide."""
    name = "conf/conformer_12e_6d_2048_256.yaml"
    result = lint_bytes(name, ESPNET.format(width=256).encode(), Selection())
    assert result.read == (1, 0)
    assert not result.diagnostics
    assert _lines(name, ESPNET.format(width=258)).get("DL101") == {3}


def test_model_sections_in_lists_and_deep_trees_are_read() -> None:
    """Cerebras' Model Zoo (held-out batch 6): image encoders in a list of mappings, and a
    model five mappings down (``dpr.trainer.init.model.encoder``)."""
    listed = (
        "trainer:\n  init:\n    model:\n      image_model_list:\n        image_models:\n"
        "        - image_encoder:\n            hidden_size: {w}\n            num_heads: 16\n"
        "            num_hidden_layers: 24\n"
    )
    deep = (
        "dpr:\n  trainer:\n    init:\n      model:\n        encoder:\n"
        "          hidden_size: {w}\n          num_heads: 12\n          num_hidden_layers: 12\n"
    )
    for text, line in ((listed, 7), (deep, 6)):
        result = lint_bytes("params.yaml", text.format(w=768).encode(), Selection())
        assert result.read == (1, 0)
        assert not result.diagnostics
        assert _lines("params.yaml", text.format(w=769)).get("DL101") == {line}


def test_peft_adapter_configs_are_not_model_configs() -> None:
    """PEFT's ``adapter_config.json`` (held-out batch 6: 7 false DL005): the base model's
    sizes, no config.json rules; prefix tuning splits ``token_dim`` into the heads."""
    adapter = (
        '{{"peft_type": "{kind}", "num_attention_heads": 24, "num_layers": 28,\n'
        ' "token_dim": {w}, "num_virtual_tokens": 200}}\n'
    )
    name = "experiments/prefix/adapter_config.json"
    for kind in ("PREFIX_TUNING", "PROMPT_TUNING"):
        result = lint_bytes(name, adapter.format(kind=kind, w=3072).encode(), Selection())
        assert not result.diagnostics
    assert _lines(name, adapter.format(kind="PREFIX_TUNING", w=3073)).get("DL101") == {2}
    assert "DL101" not in _lines(name, adapter.format(kind="PROMPT_TUNING", w=3073))


SWIN = """MODEL:
  TYPE: swin
  NAME: swin_tiny_patch4_window7_224
  SWIN:
    EMBED_DIM: {width}
    DEPTHS: [ 2, 2, 6, 2 ]
    NUM_HEADS: [ 3, 6, 12, 24 ]
    WINDOW_SIZE: 7
"""


def test_swin_yacs_first_stage_is_read() -> None:
    """Swin's yacs YAML (held-out batch 6: 46 configs unread): the first stage is ``EMBED_DIM``
    wide with ``NUM_HEADS[0]`` heads, which its window attention reshapes the width into."""
    name = "configs/swin/swin_tiny_patch4_window7_224.yaml"
    result = lint_bytes(name, SWIN.format(width=96).encode(), Selection())
    assert result.read == (1, 0)
    assert not result.diagnostics
    messages = _messages(name, SWIN.format(width=97))
    assert [m.split(" (")[0] for m in messages["DL101"]] == [
        "EMBED_DIM 97 is not divisible by NUM_HEADS[0] 3"
    ]
    assert _lines(name, SWIN.format(width=97)).get("DL101") == {5}


FRAMEWORK_JSON = """{{
    "model_type": "{kind}",
    "sample_rate": 44100,
    "model": {{
        "pretransform": {{"type": "autoencoder", "config": {{"latent_dim": 64}}}},
        "diffusion": {{
            "type": "dit",
            "config": {{
                "io_channels": 64,
                "embed_dim": {width},
                "depth": 24,
                "num_heads": 24
            }}
        }}
    }},
    "training": {{"learning_rate": 1e-4}}
}}
"""


def test_a_frameworks_model_type_names_its_factory_not_a_transformers_class() -> None:
    """stable-audio-tools' model JSON (batch 7: 10 false DL005, a DiT unread): a
    ``model_type`` transformers lacks, nothing sized at the top and sections beside it is the
    framework's factory; no class defaults are owed and the nested transformer is read."""
    name = "configs/model_configs/txt2audio/model.json"
    clean = lint_bytes(
        name, FRAMEWORK_JSON.format(kind="diffusion_cond", width=1536).encode(), Selection()
    )
    assert not clean.diagnostics
    assert clean.read[0] == 1
    assert _lines(name, FRAMEWORK_JSON.format(kind="diffusion_cond", width=1601)).get("DL101") == {
        10
    }
    # a transformers model type keeps transformers' reading: the top level is the config
    assert "DL101" not in _lines(name, FRAMEWORK_JSON.format(kind="llama", width=1601))


UNIFORMERV2 = """MODEL:
  NUM_CLASSES: 400
UNIFORMERV2:
  BACKBONE: 'uniformerv2_b16'
  N_LAYERS: 4
  N_DIM: {width}
  N_HEAD: 12
  MLP_FACTOR: 4.0
"""


def test_uniformerv2_yacs_names_are_read() -> None:
    """UniFormerV2's yacs YAML (held-out batch 8: 49 files unread): ``N_DIM`` is the width of
    its global blocks, ``nn.MultiheadAttention(n_dim, n_head)``, which refuses heads that do
    not divide it."""
    name = "exp/k400/k400_b16_f8x224/config.yaml"
    clean = lint_bytes(name, UNIFORMERV2.format(width=768).encode(), Selection())
    assert not clean.diagnostics
    assert clean.read[0] == 1
    assert _lines(name, UNIFORMERV2.format(width=833)).get("DL101") == {6}
    # without N_HEAD beside it, N_DIM is nobody's width
    alone = UNIFORMERV2.format(width=833).replace("  N_HEAD: 12\n", "")
    assert "DL101" not in _lines(name, alone)


CHINESE_CLIP = """{{
    "vocab_size": 47020,
    "text_hidden_act": "gelu",
    "text_hidden_size": {width},
    "text_intermediate_size": 4096,
    "text_num_attention_heads": 16,
    "text_num_hidden_layers": 24
}}
"""


@pytest.mark.parametrize("name", ["model_configs/RoBERTa-wwm-ext-large.json", "text.yaml"])
def test_models_under_name_prefixes_are_read_where_written(name: str) -> None:
    """Chinese-CLIP's tower JSON (held-out batch 8, HunyuanDiT's IP-Adapter: skipped as no
    model): the text tower's keys carry its name, ``text_``; stripped, they are a BERT's."""
    clean = lint_bytes(name, CHINESE_CLIP.format(width=1024).encode(), Selection())
    assert clean.read[0] == 1
    assert not clean.diagnostics
    assert _lines(name, CHINESE_CLIP.format(width=1089)).get("DL101") == {4}
