"""Styles batch 10 of issue 20's training repositories showed unread (``tests/data/
training_repos_more/BATCH10.md``), each read for its general reason:

* mmcv/mmpretrain config dicts in the ViT family's names (``text_backbone=dict(
  type='CLIPTransformer', width=512, layers=12, heads=8)``): ``width`` / ``heads`` /
  ``layers`` are no key of their own, and such dicts never reached the config reader;
* attribute dicts set key by key (easydict's ``EasyDict``, ml_collections' ``ConfigDict``:
  ``cfg = EasyDict(); cfg.dim = 5120; cfg.num_heads = 40``);
* a class that is not provably a ``torch.nn.Module`` (Wan2.1's ``WanModel(ModelMixin,
  ConfigMixin)``) whose ``__init__`` defaults state a model is read only where the file's
  own code requires its width divisible by its heads (``assert dim % num_heads == 0``).
"""

from __future__ import annotations

import pytest

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.python_front import lint_python
from dimlint.lint.selection import Selection
from dimlint.sources.python.asserted import divisibility_asserted


def _found(path: str, text: str) -> set[tuple[str, int, str]]:
    result = lint_bytes(path, text.encode(), Selection())
    return {
        (d.code, d.span.start_pos.line, d.severity.name.lower())
        for d in result.diagnostics
        if d.span is not None
    }


def _configs(path: str, text: str) -> int:
    return lint_bytes(path, text.encode(), Selection()).read[0]


MMCV_CLIP = """\
_base_ = '../_base_/default_runtime.py'

model = dict(
    type='CLIPZeroShot',
    text_backbone=dict(
        type='CLIPTransformer',
        width=WIDTH,
        layers=12,
        heads=8,
        attn_mask=True,
    ),
    vocab_size=49408,
)
"""


def test_an_mmcv_dict_in_the_vit_familys_names_is_read() -> None:
    path = "configs/clip/clip_zeroshot.py"
    assert _configs(path, MMCV_CLIP.replace("WIDTH", "512")) == 1
    assert not _found(path, MMCV_CLIP.replace("WIDTH", "512"))
    # a width the heads do not divide is refused by nn.MultiheadAttention(width, heads)
    assert ("DL101", 7, "error") in _found(path, MMCV_CLIP.replace("WIDTH", "513"))
    # without any other config key, the file is not left to the pre-filter
    alone = "backbone = dict(width=513, layers=12, heads=8)\n"
    assert ("DL101", 1, "error") in _found(path, alone)
    # a dict literal in the same names
    literal = "backbone = {'width': 513, 'layers': 12, 'heads': 8}\n"
    assert ("DL101", 1, "error") in _found(path, literal)


def test_dl101_on_a_dict_of_no_known_framework_names_none() -> None:
    """No framework, no transformers model type, no ``hidden_size``: the message says what
    attention code in general does, not what transformers or Megatron would (neither reads an
    mmcv dict); a section in transformers' names keeps their wording."""
    path = "configs/clip/clip_zeroshot.py"
    found = lint_bytes(path, MMCV_CLIP.replace("WIDTH", "513").encode(), Selection())
    message = next(d.message for d in found.diagnostics if d.code == "DL101")
    assert "the width cannot be split into heads: nn.MultiheadAttention" in message
    assert "transformers" not in message
    assert "Megatron" not in message
    assert "heads 64 wide, an attention 512 wide instead of 513" in message
    named = b"config = dict(hidden_size=513, num_attention_heads=8, num_hidden_layers=2)\n"
    plain = lint_bytes("c.py", named, Selection()).diagnostics
    messages = [d.message for d in plain if d.code == "DL101"]
    assert messages
    assert "cannot be split" not in messages[0]


def test_the_libcst_reading_agrees() -> None:
    text = MMCV_CLIP.replace("WIDTH", "513").encode()
    fast = lint_python("configs/a.py", text, Selection()).diagnostics
    slow = lint_python("configs/a.py", text, Selection(), fast=False).diagnostics
    assert [(d.code, d.span) for d in fast] == [(d.code, d.span) for d in slow]
    assert any(d.code == "DL101" for d in fast)


@pytest.mark.parametrize(
    "text",
    [
        "resize = dict(width=513, height=256, heads=8, layers=12)\n",  # an image's width
        "tower = dict(width=513, heads=8)\n",  # no depth: not the ViT family's three
    ],
)
def test_a_width_that_is_no_models_is_not_read(text: str) -> None:
    assert _configs("configs/pipeline.py", text) == 0


WAN_STYLE = """\
from easydict import EasyDict

from .shared_config import shared_cfg

t2v = EasyDict(__name__='Config: T2V')
t2v.update(shared_cfg)

t2v.checkpoint = 'model.pth'
t2v.patch_size = (1, 2, 2)
t2v.dim = WIDTH
t2v.ffn_dim = 13824
t2v.num_heads = 40
t2v.num_layers = 40
"""


def test_an_easydict_set_attribute_by_attribute_is_a_config() -> None:
    path = "pkg/configs/t2v.py"
    assert _configs(path, WAN_STYLE.replace("WIDTH", "5120")) == 1
    assert not _found(path, WAN_STYLE.replace("WIDTH", "5120"))
    assert ("DL101", 10, "error") in _found(path, WAN_STYLE.replace("WIDTH", "5121"))
    # under another local name, and with a size given to the constructor
    aliased = (
        "from easydict import EasyDict as edict\n\n"
        "cfg = edict(dim=5121)\ncfg.num_heads = 40\ncfg.num_layers = 40\n"
    )
    assert "DL101" in {code for code, _, _ in _found(path, aliased)}


ML_COLLECTIONS = """\
import ml_collections


def get_config():
    config = ml_collections.ConfigDict()
    config.hidden_size = WIDTH
    config.num_heads = 12
    config.num_layers = 12
    return config
"""


def test_an_ml_collections_config_dict_is_a_config() -> None:
    path = "configs/base.py"
    assert not _found(path, ML_COLLECTIONS.replace("WIDTH", "768"))
    assert ("DL101", 6, "error") in _found(path, ML_COLLECTIONS.replace("WIDTH", "770"))


NESTED = """\
import ml_collections as mlc


def get_config(arg=None):
  config = mlc.ConfigDict()
  config.model_name = 'proj.uvim.vit'
  config.model = MODEL
  config.model.patch_size = (16, 16)
  config.model.width = WIDTH
  config.model.enc_depth = 6
  config.model.dec_depth = 12
  config.model.mlp_dim = 3072
  config.model.num_heads = 12
  return config
"""


@pytest.mark.parametrize("model", ["mlc.ConfigDict()", "dict()", "{}"])
def test_a_nested_config_dict_set_attribute_by_attribute(model: str) -> None:
    text = NESTED.replace("MODEL", model)
    path = "configs/proj/vqvae.py"
    assert _configs(path, text.replace("WIDTH", "768")) == 1
    assert not _found(path, text.replace("WIDTH", "768"))
    assert ("DL101", 9, "error") in _found(path, text.replace("WIDTH", "770"))
    # the libcst reading agrees
    odd = text.replace("WIDTH", "770").encode()
    fast = lint_python(path, odd, Selection()).diagnostics
    slow = lint_python(path, odd, Selection(), fast=False).diagnostics
    assert [(d.code, d.span) for d in fast] == [(d.code, d.span) for d in slow]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("config.model = MODEL", "config.model = load_model_config()"),  # contents unknown
        ("config.model = MODEL", "config.model = dict(base)"),  # a copy of something else
        ("config.model_name = 'proj.uvim.vit'", "config.model = base"),  # set twice
        ("config = mlc.ConfigDict()", "config = bvcc.parse_arg(arg)"),  # parent unknown
    ],
)
def test_a_nested_path_not_known_to_be_a_fresh_attribute_dict_is_not_read(
    old: str, new: str
) -> None:
    text = NESTED.replace(old, new).replace("MODEL", "mlc.ConfigDict()").replace("WIDTH", "770")
    assert _configs("configs/proj/vqvae.py", text) == 0


@pytest.mark.parametrize(
    "build",
    [
        "from types import SimpleNamespace\n\ncfg = SimpleNamespace()\n",  # an attribute bag
        "from mylib import Settings\n\ncfg = Settings()\n",  # a class nobody here knows
        "import easydict\n\ncfg = load()\n",  # bound by a call of unknown result
    ],
)
def test_an_object_that_is_no_known_attribute_dict_is_not_read(build: str) -> None:
    text = build + "cfg.dim = 5121\ncfg.num_heads = 40\ncfg.num_layers = 40\n"
    assert _configs("configs/x.py", text) == 0


MIXIN_MODEL = """\
import torch.nn as nn
from diffusers.configuration_utils import ConfigMixin, register_to_config
from diffusers.models.modeling_utils import ModelMixin


class VideoModel(ModelMixin, ConfigMixin):

    @register_to_config
    def __init__(self,
                 in_dim=16,
                 dim=WIDTH,
                 ffn_dim=8192,
                 num_heads=16,
                 num_layers=32,
                 eps=1e-6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, num_heads) for _ in range(num_layers)])
        REQUIREMENT
"""


@pytest.mark.parametrize(
    "requirement",
    [
        "assert (dim % num_heads) == 0 and (dim // num_heads) % 2 == 0",
        "assert dim % num_heads == 0, 'heads must divide the width'",
        "if dim % num_heads != 0:\n            raise ValueError('heads must divide the width')",
        "self.attn = nn.MultiheadAttention(dim, num_heads)",
    ],
)
def test_defaults_of_a_model_class_whose_code_requires_the_divisibility(requirement: str) -> None:
    text = MIXIN_MODEL.replace("REQUIREMENT", requirement)
    path = "pkg/modules/model.py"
    assert not _found(path, text.replace("WIDTH", "2048"))
    assert ("DL101", 11, "error") in _found(path, text.replace("WIDTH", "2049"))


def test_a_required_divisibility_is_said_refused() -> None:
    """The message says what the file's code does, for a torch module's defaults too."""
    for base in ("ModelMixin, ConfigMixin", "nn.Module"):
        text = MIXIN_MODEL.replace("ModelMixin, ConfigMixin):", f"{base}):")
        text = text.replace("REQUIREMENT", "assert dim % num_heads == 0").replace("WIDTH", "2049")
        found = lint_bytes("pkg/model.py", text.encode(), Selection()).diagnostics
        (message,) = [d.message for d in found if d.code == "DL101"]
        assert "the module's own code requires the divisibility" in message
        assert "the model is refused" in message


@pytest.mark.parametrize(
    "requirement",
    [
        "pass",  # nothing in the file asks it: the class's base may do anything
        "assert in_dim % num_heads == 0",  # another pair of names
        "assert dim % 2 == 0",  # no head count
    ],
)
def test_defaults_of_a_class_of_unknown_base_are_not_read_otherwise(requirement: str) -> None:
    text = MIXIN_MODEL.replace("REQUIREMENT", requirement).replace("WIDTH", "2049")
    assert "DL101" not in {code for code, _, _ in _found("pkg/modules/model.py", text)}


def test_a_second_width_beside_the_asserted_pair_leaves_the_class_unread() -> None:
    text = MIXIN_MODEL.replace("REQUIREMENT", "assert dim % num_heads == 0")
    text = text.replace("in_dim=16,", "hidden_size=1024,").replace("WIDTH", "2049")
    assert "DL101" not in {code for code, _, _ in _found("pkg/modules/model.py", text)}


def test_a_config_class_is_read_once_as_a_config() -> None:
    text = MIXIN_MODEL.replace("class VideoModel", "class VideoArgs")
    text = text.replace("REQUIREMENT", "assert dim % num_heads == 0").replace("WIDTH", "2049")
    found = lint_bytes("pkg/modules/model.py", text.encode(), Selection()).diagnostics
    messages = [d.message for d in found if d.code == "DL101"]
    # ``…Args`` classes are configs (their ``__init__`` read by the config reader), not models
    assert len(messages) == 1
    assert "the module's own attention code" not in messages[0]


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("assert self.hidden_size % self.n_heads == 0", {("hidden_size", "n_heads")}),
        ("if (width % heads):\n    raise ValueError", {("width", "heads")}),
        ("x = dim % num_heads == 0", set()),  # computed, not required
        ("if dim % heads == 0:\n    raise X", set()),  # raises on the divisible case
        ("nn.MultiheadAttention(embed_dim, num_heads, dropout=0.1)", {("embed_dim", "num_heads")}),
    ],
)
def test_what_counts_as_required(text: str, pairs: set[tuple[str, str]]) -> None:
    assert divisibility_asserted(text) == pairs
