"""The dimension fitter of the shape generator, on observations derived by hand.

Each case lists the config values of a default build and of builds with one field changed,
and the size a tensor dimension had in each; the expected expression is the formula the
modeling code uses (written here from the model's definition, not from the fitter).
"""

from __future__ import annotations

from fractions import Fraction

from dimlint.tools.shape_fit import evaluate_terms, fit, from_json, to_json


def _observations(
    base: dict[str, int], changes: list[dict[str, int]], formula: object
) -> list[tuple[dict[str, int], int]]:
    points = []
    for change in [{}, *changes]:
        values = {**base, **change}
        points.append((values, formula(values)))  # type: ignore[operator]
    return points


def test_single_field() -> None:
    base = {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32}
    points = _observations(
        base,
        [{"hidden_size": 8192}, {"intermediate_size": 22016}, {"num_hidden_layers": 64}],
        lambda v: v["intermediate_size"],
    )
    assert fit(points) == [(Fraction(1), (("intermediate_size", 1),))]


def test_derived_head_dim_is_a_quotient() -> None:
    """llama without head_dim: k_proj rows = num_key_value_heads * hidden // heads."""
    base = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8}
    points = _observations(
        base,
        [{"hidden_size": 8192}, {"num_attention_heads": 64}, {"num_key_value_heads": 16}],
        lambda v: v["num_key_value_heads"] * v["hidden_size"] // v["num_attention_heads"],
    )
    terms = fit(points)
    assert terms is not None
    for values, target in points:
        assert evaluate_terms(terms, values) == target
    assert {name for _, factors in terms for name, _ in factors} == {
        "hidden_size", "num_attention_heads", "num_key_value_heads"
    }  # fmt: skip


def test_square_of_a_field() -> None:
    """Qwen2-VL's patch merger input: embed_dim * spatial_merge_size ** 2."""
    base = {"embed_dim": 1280, "spatial_merge_size": 2, "hidden_size": 3584}
    points = _observations(
        base,
        [{"embed_dim": 2560}, {"spatial_merge_size": 4}, {"hidden_size": 7168}],
        lambda v: v["embed_dim"] * v["spatial_merge_size"] ** 2,
    )
    assert fit(points) == [(Fraction(1), (("embed_dim", 1), ("spatial_merge_size", 2)))]


def test_patch_positions_divide_by_a_square() -> None:
    """SigLIP's learned patch positions (Gemma-3's vision tower): (image_size / patch_size)²,
    not the tangent ``a·image - b·patch + c`` a sum would fit around the default."""
    base = {"image_size": 896, "patch_size": 14, "hidden_size": 1152}
    points = _observations(
        base,
        [{"image_size": 1792}, {"patch_size": 28}, {"hidden_size": 2304}],
        lambda v: (v["image_size"] // v["patch_size"]) ** 2,
    )
    expected = [(Fraction(1), (("image_size", 2), ("patch_size", -2)))]
    assert fit(points) == expected
    assert from_json(to_json(expected)) == expected


def test_patch_positions_and_a_class_token() -> None:
    """CLIP's vision positions: (image_size / patch_size)² + 1 (the class token), the patch
    halved as the generator perturbs it (224 // 64 would round down)."""
    base = {"image_size": 224, "patch_size": 32, "hidden_size": 768}
    points = _observations(
        base,
        [{"image_size": 448}, {"patch_size": 16}, {"hidden_size": 1536}],
        lambda v: (v["image_size"] // v["patch_size"]) ** 2 + 1,
    )
    terms = fit(points)
    assert terms is not None
    assert evaluate_terms(terms, {**base, "image_size": 336, "patch_size": 14}) == 24**2 + 1
    assert evaluate_terms(terms, {**base, "image_size": 560, "patch_size": 14}) == 40**2 + 1


def test_tile_positions_scale_the_patch_positions() -> None:
    """Mllama's gated tile positions: max_num_tiles · ((image / patch)² + 1) · hidden, the
    tiles held (a fitted tangent ``a·hidden - b·hidden/image + …`` breaks when both move)."""
    base = {"image_size": 448, "patch_size": 14, "hidden_size": 1280, "max_num_tiles": 4}
    points = _observations(
        base,
        [{"image_size": 896}, {"patch_size": 7}, {"hidden_size": 2560}],
        lambda v: 4 * ((v["image_size"] // v["patch_size"]) ** 2 + 1) * v["hidden_size"],
    )
    terms = fit(points)
    assert terms is not None
    moved = {**base, "image_size": 560, "hidden_size": 640}
    assert evaluate_terms(terms, moved) == 4 * (40**2 + 1) * 640


def test_sum_of_terms() -> None:
    """A fused QKV projection: (heads + 2 * kv_heads) * head_dim."""
    base = {"num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128}
    points = _observations(
        base,
        [{"num_attention_heads": 64}, {"num_key_value_heads": 16}, {"head_dim": 256}],
        lambda v: (v["num_attention_heads"] + 2 * v["num_key_value_heads"]) * v["head_dim"],
    )
    terms = fit(points)
    assert terms is not None
    assert evaluate_terms(terms, {**base, "num_attention_heads": 40, "head_dim": 64}) == (
        (40 + 16) * 64
    )


def test_offset_positions() -> None:
    """BART's learned positions: max_position_embeddings + 2."""
    base = {"max_position_embeddings": 1024, "d_model": 1024}
    points = _observations(
        base, [{"max_position_embeddings": 2048}, {"d_model": 2048}],
        lambda v: v["max_position_embeddings"] + 2,
    )  # fmt: skip
    terms = fit(points)
    assert terms is not None
    assert evaluate_terms(terms, {"max_position_embeddings": 4096, "d_model": 1}) == 4098


def test_constant_and_unexplainable() -> None:
    base = {"a": 6, "b": 10}
    assert fit(_observations(base, [{"a": 12}, {"b": 20}], lambda v: 3)) == [(Fraction(3), ())]
    table = {6: 7, 12: 1000003}
    points = _observations(base, [{"a": 12}, {"b": 20}], lambda v: table[v["a"]] + v["b"] % 7)
    assert fit(points) is None


def test_json_round_trip() -> None:
    terms = [(Fraction(3, 2), (("a", 1), ("b", -1))), (Fraction(2), ())]
    assert from_json(to_json(terms)) == terms
    assert from_json([[1, 0, []]]) is None
    assert from_json("x") is None


def test_width_plus_heads_times_an_unstated_head_width() -> None:
    """DBRX's fused QKV: d_model + 2 * kv_n_heads * (d_model // n_heads), no head_dim field."""
    base = {"d_model": 2048, "n_heads": 16, "kv_n_heads": 1, "n_layers": 24}
    points = _observations(
        base,
        [{"d_model": 4096}, {"n_heads": 32}, {"kv_n_heads": 2}, {"n_layers": 48}],
        lambda v: v["d_model"] + 2 * v["kv_n_heads"] * v["d_model"] // v["n_heads"],
    )
    terms = fit(points)
    assert terms is not None
    # all fields moved at once (no tangent): 6144 + 2 * 8 * 6144 / 48
    moved = {"d_model": 6144, "n_heads": 48, "kv_n_heads": 8, "n_layers": 40}
    assert evaluate_terms(terms, moved) == 6144 + 2 * 8 * 128


def test_a_quotient_read_as_a_floor() -> None:
    """SigLIP's patch grid: (image_size // patch_size)², 27² at 384 / 14."""
    from dimlint.tools.shape_fit import floored, quotient_pairs

    expression = [[1, 1, [["image_size", 2], ["patch_size", -2]]], [1, 1, []]]
    assert quotient_pairs(expression) == [("image_size", "patch_size")]
    rewritten = floored(expression, ("image_size", "patch_size"))
    assert rewritten == [[1, 1, [["image_size//patch_size", 2]]], [1, 1, []]]
    terms = from_json(rewritten)
    assert terms is not None
    assert evaluate_terms(terms, {"image_size": 384, "patch_size": 14}) == 27**2 + 1
    assert evaluate_terms(terms, {"image_size": 384, "patch_size": 0}) is None
    # a quotient at another power of its fields is no patch grid
    assert quotient_pairs([[1, 1, [["a", 1], ["b", -2]]]]) == []


def test_a_floor_that_moves_the_default_size_is_undone() -> None:
    # ConvBERT's conv kernel rows: heads · kernel / head_ratio was floored on the wrong pair
    # (heads · (kernel // head_ratio): 48 at the default 12 · 9 / 2 = 54); SigLIP's patch grid
    # floors the same at the default (224 / 16: no remainder) and keeps its floor.
    from dimlint.tools.generate_shapes import unfloor_where_default_differs
    from dimlint.tools.shape_fit import FLOOR, floored, to_json

    conv = to_json([(Fraction(1), (("heads", 1), ("kernel", 1), ("ratio", -1)))])
    grid = to_json([(Fraction(1), (("image", 2), ("patch", -2)))])
    rows = [
        ["conv", conv, [floored(conv, ("kernel", "ratio"))]],
        ["grid", grid, [floored(grid, ("image", "patch"))]],
    ]
    unfloor_where_default_differs(
        rows, {"heads": 12, "kernel": 9, "ratio": 2, "image": 224, "patch": 16}
    )
    assert FLOOR not in str(rows[0][2][0])
    assert FLOOR in str(rows[1][2][0])


def test_a_product_is_preferred_to_its_tangent() -> None:
    """EXAONE-4.5's vision QKV: hidden + 2 * kv * hidden / heads. Moved one at a time (heads
    halved), the tangent ``7168 + 2·hidden - 3584·heads/kv`` fits every build too, and is
    wrong once two fields move."""
    base = {"hidden_size": 3584, "num_heads": 16, "num_key_value_heads": 8, "depth": 32}
    points = _observations(
        base,
        [{"hidden_size": 7168}, {"num_heads": 8}, {"num_key_value_heads": 16}, {"depth": 64}],
        lambda v: (
            v["hidden_size"] + 2 * v["num_key_value_heads"] * v["hidden_size"] // v["num_heads"]
        ),
    )
    terms = fit(points)
    assert terms is not None
    assert all(coefficient > 0 for coefficient, _ in terms)
    moved = {"hidden_size": 1280, "num_heads": 16, "num_key_value_heads": 16, "depth": 32}
    assert evaluate_terms(terms, moved) == 1280 * 3


def test_a_true_difference_keeps_its_negative_term() -> None:
    """MobileBERT's bottleneck: hidden_size - embedding_size has no positive form."""
    base = {"hidden_size": 512, "embedding_size": 128, "layers": 24}
    points = _observations(
        base,
        [{"hidden_size": 1024}, {"embedding_size": 256}, {"layers": 48}],
        lambda v: v["hidden_size"] - v["embedding_size"],
    )
    terms = fit(points)
    assert terms is not None
    assert evaluate_terms(terms, {"hidden_size": 768, "embedding_size": 64, "layers": 1}) == 704
