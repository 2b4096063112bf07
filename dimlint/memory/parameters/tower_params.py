"""Vision and audio encoders nested in multimodal configs (SigLIP, CLIP/GIT, SAM-style
ViTDet, Whisper's encoder) and the projectors that join them to the language model."""

from __future__ import annotations

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.param_tally import Tally


def _vit_layers(cfg: Cfg, ffn: int) -> int:
    """Pre-LN ViT layers: LayerNorm, attention with biases, LayerNorm, GELU MLP with biases."""
    hidden = cfg.hidden
    per_layer = 2 * blocks.norm("ln", hidden)
    per_layer += blocks.attention(hidden, 1, 1, hidden, qkv_bias=True, o_bias=True)
    per_layer += blocks.mlp(hidden, ffn, False, True)
    return per_layer * cfg.layers


def _patches(cfg: Cfg) -> tuple[int, int]:
    """(pixels per patch × channels, number of patches)."""
    patch = cfg.int("patch_size", 16)
    image = cfg.int("image_size", 224)
    return patch * patch * cfg.int("num_channels", 3), (image // patch) ** 2


def count_siglip_vision(cfg: Cfg) -> Tally:
    """SigLIP vision tower: patch conv, learned positions, ViT layers, post-LN and (by
    default) the multi-head attention pooling head."""
    tally = Tally()
    hidden, ffn = cfg.hidden, cfg.ffn
    pixels, patches = _patches(cfg)
    tally.add(blocks.linear(pixels, hidden, True) + patches * hidden)
    tally.add(_vit_layers(cfg, ffn) + blocks.norm("ln", hidden))
    if cfg.flag("vision_use_head", True):
        head = hidden + blocks.attention(hidden, 1, 1, hidden, qkv_bias=True, o_bias=True)
        tally.add(head + blocks.norm("ln", hidden) + blocks.mlp(hidden, ffn, False, True))
    return tally


def count_clip_vision(cfg: Cfg) -> Tally:
    """CLIP-style vision tower (also GIT's): class token, bias-free patch conv, positions for
    patches + class token, pre- and post-LayerNorm around ViT layers."""
    tally = Tally()
    hidden = cfg.hidden
    pixels, patches = _patches(cfg)
    tally.add(hidden + pixels * hidden + (patches + 1) * hidden)
    tally.add(2 * blocks.norm("ln", hidden) + _vit_layers(cfg, cfg.ffn))
    return tally


def count_vitdet_vision(cfg: Cfg) -> Tally:
    """GOT-OCR2's SAM-style ViTDet encoder: absolute positions, windowed layers with relative
    position tables (global layers' tables span the whole image), and a conv neck."""
    tally = Tally()
    hidden, heads = cfg.hidden, cfg.heads
    head_dim = hidden // heads if heads else hidden
    pixels, patches = _patches(cfg)
    grid = cfg.int("image_size", 1024) // cfg.int("patch_size", 16)
    tally.add(blocks.linear(pixels, hidden, True))
    if cfg.flag("use_abs_pos", True):
        tally.add(patches * hidden)
    mlp_dim = cfg.int("mlp_dim") or 4 * hidden
    per_layer = 2 * blocks.norm("ln", hidden) + blocks.linear(
        hidden, 3 * hidden, cfg.flag("qkv_bias", True)
    )
    per_layer += blocks.linear(hidden, hidden, True) + blocks.mlp(hidden, mlp_dim, False, True)
    tally.add(per_layer * cfg.layers)
    if cfg.flag("use_rel_pos", True):
        stated = cfg.list("global_attn_indexes") or [2, 5, 8, 11]
        global_layers = {i for i in stated if isinstance(i, int) and 0 <= i < cfg.layers}
        window = cfg.int("window_size", 14) or grid  # 0: every layer attends globally
        windowed = max(0, cfg.layers - len(global_layers))
        tally.add(2 * (2 * grid - 1) * head_dim * len(global_layers))
        tally.add(2 * (2 * window - 1) * head_dim * windowed)
    channels = cfg.int("output_channels", 256)
    tally.add(hidden * channels + channels * channels * 9 + 2 * blocks.norm("ln", channels))
    return tally


def count_whisper_encoder(cfg: Cfg) -> Tally:
    """Whisper's audio encoder: two convolutions over mel bins, positions, pre-LN layers (the
    key projection has no bias), a final LayerNorm."""
    tally = Tally()
    hidden = cfg.hidden
    mel = cfg.int("num_mel_bins", 80)
    tally.add(blocks.linear(mel * 3, hidden, True) + blocks.linear(hidden * 3, hidden, True))
    tally.add(cfg.int("max_source_positions", 1500) * hidden)
    tally.add(_vit_layers(cfg, cfg.ffn) - hidden * cfg.layers + blocks.norm("ln", hidden))
    return tally


def got_ocr2_projector(text_hidden: int, vision_channels: int = 256) -> int:
    """Two stride-2 3×3 convolutions up to the text width, then a linear projection."""
    middle = 2 * vision_channels
    return (
        vision_channels * middle * 9
        + middle * text_hidden * 9
        + blocks.linear(text_hidden, text_hidden, True)
    )
