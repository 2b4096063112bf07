"""Fixes after batch 13's untouched measurement (tests/data/training_repos_more/BATCH13.md)."""

from __future__ import annotations

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

# MambaVision's semantic_segmentation/configs/_base_/models/upernet_beit.py (mmseg)
MMSEG = """norm_cfg = dict(type='SyncBN', requires_grad=True)
model = dict(
    type='EncoderDecoder',
    backbone=dict(
        type='BEiT',
        img_size=(640, 640),
        patch_size=16,
        embed_dims={width},
        num_layers=12,
        num_heads=12,
        mlp_ratio=4,
    ),
    neck=dict(type='Feature2Pyramid', embed_dim=768, rescales=[4, 2, 1, 0.5]),
)
"""


def _found(path: str, text: str) -> list[tuple[str, int]]:
    result = lint_bytes(path, text.encode(), Selection())
    return [(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span is not None]


def test_openmmlab_embed_dims_beside_its_heads_is_the_attention_width() -> None:
    assert _found("upernet_beit.py", MMSEG.format(width=768)) == []
    assert ("DL101", 8) in _found("upernet_beit.py", MMSEG.format(width=769))


def test_per_stage_head_lists_leave_embed_dims_alone() -> None:
    """MiT (SegFormer in mmseg): a stage is embed_dims × its heads wide, no single width."""
    mit = "backbone = dict(type='MixVisionTransformer', embed_dims=33, num_heads=[1, 2, 5, 8])\n"
    assert _found("mit.py", mit) == []


def test_openmmlab_embed_dims_in_yaml() -> None:
    text = "model:\n  backbone:\n    embed_dims: 769\n    num_heads: 12\n    num_layers: 12\n"
    assert ("DL101", 3) in _found("config.yaml", text)
