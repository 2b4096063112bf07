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
