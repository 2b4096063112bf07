"""The released-shapes table ``suggest`` ships is what the shared corpus gives today."""

from __future__ import annotations

import json

from conftest import shared_path

from dimlint.fix.suggest.reference import TABLE, aspect_range, nearest, released
from dimlint.tools.generate_released_shapes import build, model_name


def test_table_is_fresh() -> None:
    corpus = shared_path("corpus")
    shipped = json.loads(TABLE.read_text(encoding="utf-8"))
    assert build(corpus) == shipped, "rerun python -m dimlint.tools.generate_released_shapes"


def test_table_holds_the_domain_models() -> None:
    shapes = {(m.hidden, m.layers, m.heads, m.kv_heads, m.ffn) for m in released()}
    # DOMAIN.md: Llama-3-8B, Llama-3.1-405B, Qwen2.5-0.5B, Gemma-2-27B
    for shape in [
        (4096, 32, 32, 8, 14336),
        (16384, 126, 128, 8, 53248),
        (896, 24, 14, 2, 4864),
        (4608, 46, 32, 16, 36864),
    ]:
        assert shape in shapes


def test_ranges_and_names() -> None:
    low, median, high = aspect_range(70_000_000_000, moe=False)
    assert low <= 8192 / 80 <= high  # Llama-3-70B sits inside the range it helps define
    assert low <= median <= high
    assert nearest(8_000_000_000, moe=False)[0].params > 7e9
    assert model_name("a/b/Llama-3.2-3B-Instruct/config.json") == "Llama-3.2-3B-Instruct"
    assert model_name("x/hf_model_configs.py#llama31_8b_config_L619") == "llama31_8b"
    assert model_name("models/Qwen2_5_VL/config/config.json") == "Qwen2_5_VL"


def test_nearest_quotes_only_describable_releases() -> None:
    """Issue 23: "nearest released models" never shows "ffn 0" (Falcon states no MLP width)
    or a row named only by an architecture (``llava``) or a size (``6.21B``)."""
    import re

    from dimlint.config.architectures import model_type_names

    types = set(model_type_names())
    for params in (5e8, 1.5e9, 7e9, 8e9, 70e9, 405e9):
        for model in nearest(int(params), moe=False):
            assert model.ffn > 0
            assert model.name.lower().replace("-", "_") not in types
            assert not re.fullmatch(r"[\d.]+[kKmMbBtT]?", model.name)


def test_table_counts_match_published_parameter_counts() -> None:
    """The table is checked against its regeneration above; this checks it against the world:
    the parameter counts transformers reports for two released models (``num_parameters()``,
    the figures on their model cards), not dimlint's arithmetic."""
    published = {"gpt2": 124_439_808, "Llama-3.1-8B": 8_030_261_248}
    rows = json.loads(TABLE.read_text(encoding="utf-8"))["models"]
    found = {row["name"]: row["params"] for row in rows if row["name"] in published}
    assert found == published
