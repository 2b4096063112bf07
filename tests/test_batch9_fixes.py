"""Causes found on batch 9 of issue 20's training repositories (``tests/data/
training_repos_more/BATCH9.md``), each fixed for its general reason:

* a width the module multiplies by its heads is each head's (timm's ConViT:
  ``embed_dim *= num_heads``), so no divisibility is asked of it;
* a test's config that writes a width and leaves the heads to the class default builds parts
  that need no heads (TensorRT-LLM's ``LlamaMLP(LlamaConfig(hidden_size=8, …))``);
* Trax's model constructors are CamelCase functions whose defaults are the model;
* big_vision's encoder-decoder ViTs state ``enc_depth`` / ``dec_depth`` beside ``width``;
* a Megatron fork's own pipeline split (``--pipeline-model-parallel-blocks``) and a checkpoint
  converter's layouts (``--target-pipeline-model-parallel-size``) are not upstream's even split.
"""

from __future__ import annotations

import pytest

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def _codes(path: str, text: str) -> set[tuple[str, int]]:
    found = lint_bytes(path, text.encode(), Selection()).diagnostics
    return {(d.code, d.span.start_pos.line) for d in found if d.span is not None}


def _read(path: str, text: str) -> tuple[int, int]:
    return lint_bytes(path, text.encode(), Selection()).read


CONVIT = """\
import torch.nn as nn

class ConVit(nn.Module):
    def __init__(self, embed_dim=48, num_heads=12, depth=12):
        super().__init__()
        embed_dim *= num_heads
        self.embed_dim = embed_dim

def convit_small(**kwargs):
    model_args = dict(local_up_to_layer=10, embed_dim=48, num_heads=9, depth=12)
    return ConVit(**model_args)
"""


def test_a_width_the_module_scales_by_its_heads_is_a_heads_width() -> None:
    assert not {code for code, _ in _codes("timm/models/convit.py", CONVIT)} & {"DL101", "DL104"}
    # without the scaling, 48 over 9 heads is refused again
    plain = CONVIT.replace("        embed_dim *= num_heads\n", "")
    line = plain[: plain.index("model_args =")].count("\n") + 1
    assert ("DL101", line) in _codes("timm/models/convit.py", plain)


MLP_TEST = """\
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP

def test_gated_mlp():
    config = LlamaConfig(hidden_size=8, intermediate_size=20, hidden_act="silu")
    return LlamaMLP(config)
"""


@pytest.mark.parametrize(
    ("path", "flagged"),
    [
        ("tests/test_layer.py", False),  # a test: the heads are the class default
        ("models/build.py", True),  # model code: transformers' default heads, 32, refuse 8
    ],
)
def test_a_tests_width_over_default_heads(path: str, flagged: bool) -> None:
    assert (("DL101", 5) in _codes(path, MLP_TEST)) is flagged
    # heads written in the test: judged as written
    written = MLP_TEST.replace("hidden_size=8,", "hidden_size=8, num_attention_heads=3,")
    assert ("DL101", 5) in _codes(path, written)


TRAX = """\
from trax import layers as tl

def ReformerLM(vocab_size, d_model=512, d_ff=2048, d_attention_key=64, n_layers=6,
               n_heads=8, dropout=0.1):
    return tl.Serial()

def SkippingTransformerLM(vocab_size, d_model=516, d_ff=2048, n_layers=6, n_heads=8):
    return tl.Serial()

def BERT(d_model=768, vocab_size=30522, n_heads=12, d_ff=3072, n_layers=12, head=None):
    return tl.Serial()

def helper(x, d_model=516, n_heads=8):
    return x
"""


def test_trax_model_functions_are_read_from_their_defaults() -> None:
    found = _codes("trax/models/research/skipping.py", TRAX)
    assert ("DL101", 7) in found  # 516 over 8 heads, where written
    assert not [line for code, line in found if code == "DL101" and line != 7]
    # the Reformer states each head's width (d_attention_key): no divisibility; the helper is
    # snake_case, not a model; BERT is read and divides
    assert _read("trax/models/research/skipping.py", TRAX)[0] == 3


BIG_VISION = """\
VQVAE_MODELS = {
    'base': dict(enc_depth=6, dec_depth=12, num_heads=12, mlp_dim=3072, width=833),
}
"""


def test_an_encoder_decoder_vits_depths_make_width_its_width() -> None:
    assert ("DL101", 2) in _codes("configs/proj/uvim/train.py", BIG_VISION)


FORK = """\
torchrun pretrain_yuan.py \\
    --pipeline-model-parallel-size 16 \\
    --pipeline-model-parallel-method {method} \\
    --pipeline-model-parallel-blocks 2,2,2,2,2,3,3,3,3,3,3,3,3,3,3,2 \\
    --num-layers 42 \\
    --hidden-size 8192 \\
    --num-attention-heads 64
"""


@pytest.mark.parametrize(("method", "refused"), [("block", False), ("uniform", True)])
def test_a_forks_own_pipeline_split(method: str, refused: bool) -> None:
    found = {code for code, _ in _codes("examples/pretrain.sh", FORK.format(method=method))}
    assert ("DL405" in found) is refused


CONVERTER = """\
python tools/merge_tp_partitions.py \\
    --tensor-model-parallel-size 2 \\
    --target-tensor-model-parallel-size 1 \\
    --pipeline-model-parallel-size 4 \\
    --num-layers 42 \\
    --hidden-size 8192 \\
    --num-attention-heads 64
"""


def test_a_checkpoint_converters_layouts_are_not_judged_as_a_run() -> None:
    assert "DL405" not in {code for code, _ in _codes("examples/merge.sh", CONVERTER)}
    run = CONVERTER.replace("    --target-tensor-model-parallel-size 1 \\\n", "")
    assert "DL405" in {code for code, _ in _codes("examples/train.sh", run)}


T2T = """\
from tensor2tensor.utils import registry

@registry.register_hparams
def transformer_big():
    hparams = transformer_base()
    hparams.hidden_size = 1030
    hparams.filter_size = 4096
    hparams.num_heads = 16
    return hparams

def not_registered():
    hparams = transformer_base()
    hparams.hidden_size = 1030
    hparams.num_heads = 16
    return hparams
"""


def test_a_registered_hyperparameter_set_is_a_config() -> None:
    """tensor2tensor's ``@registry.register_hparams`` functions: the object they set attribute
    by attribute is the set (its multihead attention raises when the heads do not divide the
    key depth, ``hidden_size`` by default); the same lines in a function not registered are
    an object dimlint does not know."""
    found = _codes("tensor2tensor/models/transformer.py", T2T)
    assert ("DL101", 6) in found
    assert not [line for code, line in found if code == "DL101" and line != 6]
    rebound = T2T.replace(
        "    return hparams\n", "    hparams = update(hparams)\n    return hparams\n", 1
    )
    assert "DL101" not in {code for code, _ in _codes("t2t/models/ut.py", rebound)}
