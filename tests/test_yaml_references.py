"""OmegaConf/Hydra interpolations and levanter's ``!include``: resolved within the file (and
the file beside it) where they can be, skipped with a ``--verbose`` note where they cannot."""

from __future__ import annotations

import io
import json
from pathlib import Path

from dimlint.cli import main
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection
from dimlint.sources import yamlfile


def _lint(text: str, name: str = "m.yaml") -> FileResult:
    return lint_bytes(name, text.encode(), Selection())


def _found(text: str) -> list[tuple[str, int, int]]:
    return [
        (d.code, d.span.start_pos.line, d.span.start_pos.column)
        for d in _lint(text).diagnostics
        if d.span is not None
    ]


def test_an_absolute_reference_is_read_at_its_definition() -> None:
    text = (
        "shared:\n  width: 4100\n"
        "model:\n  hidden_size: ${shared.width}\n  num_attention_heads: 32\n  num_layers: 2\n"
    )
    # the finding and its fix go where the number is written (line 2), as for an alias
    assert ("DL101", 2, 10) in _found(text)


def test_relative_references_follow_omegaconf() -> None:
    document, _ = yamlfile.load(
        "m.yaml",
        b"top: 7\nmodel:\n  a: 3\n  b: ${.a}\n  inner:\n    c: ${..a}\n    d: ${...top}\n",
    )
    assert document is not None
    assert document.value["model"] == {"a": 3, "b": 3, "inner": {"c": 3, "d": 7}}


def test_a_chain_of_references_resolves_and_a_cycle_does_not() -> None:
    document, _ = yamlfile.load("m.yaml", b"a: ${b}\nb: ${c}\nc: 5\nx: ${y}\ny: ${x}\n")
    assert document is not None
    assert document.value["a"] == 5
    assert type(document.value["x"]).__name__ == "Unresolved"


def test_a_list_index_reference() -> None:
    document, _ = yamlfile.load("m.yaml", b"sizes: [1, 2048]\nw: ${sizes.1}\nv: ${sizes[0]}\n")
    assert document is not None
    assert (document.value["w"], document.value["v"]) == (2048, 1)


def test_unresolvable_values_are_no_error_and_noted_under_verbose(tmp_path: Path) -> None:
    text = (
        "model:\n"
        "  hidden_size: ${oc.env:WIDTH}\n"
        "  ffn_hidden_size: ${multiply:4,${.hidden_size}}\n"
        "  num_attention_heads: ${trainer.heads}\n"
        "  num_layers: ???\n"
        "  kv_channels: 128\n"
        "  num_query_groups: 8\n"
    )
    assert _lint(text).diagnostics == []
    path = tmp_path / "megatron_gpt_config.yaml"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(path), "--verbose"], out, err) == 0
    assert "/model/hidden_size: ${oc.env:WIDTH} not read" in err.getvalue()
    assert "names no key of this file" in err.getvalue()
    assert "/model/num_layers: ??? not read" in err.getvalue()


def test_a_literal_beside_references_is_still_judged() -> None:
    text = (
        "model:\n  hidden_size: 4100\n  num_attention_heads: 32\n"
        "  num_layers: ${oc.env:LAYERS}\n  ffn_hidden_size: ${.hidden_size}\n"
    )
    assert ("DL101", 2, 16) in _found(text)


def test_include_reads_the_file_beside(tmp_path: Path) -> None:
    (tmp_path / "model.yaml").write_text("hidden_dim: 4100\nnum_heads: 32\nnum_layers: 2\n")
    main_file = tmp_path / "train.yaml"
    main_file.write_text("data: !include missing.yaml\nmodel: !include model.yaml\n")
    document, problem = yamlfile.load(str(main_file), main_file.read_bytes())
    assert problem is None
    assert document is not None
    assert document.value["model"]["num_heads"] == 32
    assert type(document.value["data"]).__name__ == "Unresolved"
    assert any("missing.yaml" in note for note in document.notes)


def test_include_cannot_recurse_forever(tmp_path: Path) -> None:
    loop = tmp_path / "loop.yaml"
    loop.write_text("again: !include loop.yaml\nhidden_size: 4096\n")
    document, _ = yamlfile.load(str(loop), loop.read_bytes())
    assert document is not None
    depth, node = 0, document.value
    while isinstance(node, dict) and isinstance(node.get("again"), dict):
        node, depth = node["again"], depth + 1
    assert depth == yamlfile.MAX_INCLUDE_DEPTH


def test_megatron_argument_names_are_read_with_their_semantics() -> None:
    args = "MODEL_ARGS:\n  --num-layers: 2\n  --hidden-size: 4096\n  --num-attention-heads: 32\n"
    # without --group-query-attention Megatron ignores the groups: no GQA finding
    assert _found(args + "  --num-query-groups: 5\n") == []
    gqa = args + "  --group-query-attention: true\n  --num-query-groups: 5\n"
    assert [code for code, *_ in _found(gqa)] == ["DL102"]
    assert ("DL101", 3, 18) in _found(args.replace("4096", "4100"))


def test_a_megatron_argument_fix_edits_the_written_value(tmp_path: Path) -> None:
    path = tmp_path / "model_config.yaml"
    path.write_text(
        "MODEL_ARGS:\n  --num-layers: 2\n  --hidden-size: 4096.0\n  --num-attention-heads: 32\n"
    )
    assert main(["check", str(path), "--fix"], io.StringIO(), io.StringIO()) == 0
    assert "  --hidden-size: 4096\n" in path.read_text()


def test_maxtext_base_sizes() -> None:
    text = (
        "base_emb_dim: 4100\nbase_num_query_heads: 32\nbase_num_kv_heads: 32\n"
        "base_mlp_dim: 11008\nbase_num_decoder_layers: 32\n"
    )
    assert ("DL101", 1, 15) in _found(text)


def test_levanter_hidden_dim_is_the_width_unless_a_dim_is_stated() -> None:
    text = "model:\n  type: llama\n  hidden_dim: 4100\n  num_layers: 26\n  num_heads: 32\n"
    assert ("DL101", 3, 15) in _found(text)
    mistral = "dim: 4096\nhidden_dim: 14337\nn_heads: 32\nn_layers: 2\n"
    assert "DL101" not in [code for code, *_ in _found(mistral)]


def test_megatron_mla_names() -> None:
    text = (
        "model:\n  hidden_size: 2048\n  num_attention_heads: 16\n  num_layers: 2\n"
        "  multi_latent_attention: true\n  kv_lora_rank: 512\n  q_lora_rank: 1536\n"
        "  qk_head_dim: 128\n  qk_pos_emb_head_dim: 64\n  v_head_dim: 128\n"
    )
    assert _lint(text).diagnostics == []


def test_a_flow_style_section_is_read() -> None:
    assert ("DL101", 1, 22) in _found("model: {hidden_size: 4100, num_attention_heads: 32}\n")


def test_zero_sizes_and_none_strings_in_training_yaml_are_not_values() -> None:
    text = (
        "transf_decoder:\n  num_layers: 0\n  hidden_size: 512\n  num_attention_heads: 8\n"
        "  vocab_size: None\n  moe_intermediate_size: -1\n"
    )
    assert _lint(text).diagnostics == []


def test_deepseek_inference_json_reads_moe_keys() -> None:
    text = json.dumps(
        {
            "vocab_size": 129280, "dim": 7168, "inter_dim": 18432, "moe_inter_dim": 2048,
            "n_layers": 61, "n_heads": 128, "n_routed_experts": 256, "n_activated_experts": 300,
            "n_expert_groups": 8, "n_limited_groups": 4, "q_lora_rank": 1536,
            "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
            "v_head_dim": 128,
        },
        indent=1,
    )  # fmt: skip
    assert [d.code for d in _lint(text, "config_671B.json").diagnostics] == ["DL107"]


def test_a_json_template_with_a_model_section_is_read() -> None:
    template = {
        "distributed": {"tp_size": 3, "pp_size": 1},
        "model": {"name": "HuggingFaceTB/SmolLM-360M-Instruct", "num_hidden_layers": 16,
                  "num_attention_heads": 16, "num_key_value_heads": 4},
    }  # fmt: skip
    codes = [d.code for d in _lint(json.dumps(template, indent=1), "base_config.json").diagnostics]
    assert "DL401" in codes


def test_no_learned_positions_is_not_an_invalid_value() -> None:
    text = (
        "model:\n  n_embd: 768\n  n_head: 12\n  n_layer: 2\n  rotary_emb_fraction: 0.5\n"
        "  max_position_embeddings: 0\n"
    )
    assert _lint(text).diagnostics == []


def test_megatron_uneven_pipeline_splits_are_legal() -> None:
    args = "MODEL_ARGS:\n  --num-layers: 6\n  --hidden-size: 512\n  --num-attention-heads: 8\n"
    args += "  --pipeline-model-parallel-size: 4\n"
    assert "DL405" in [code for code, *_ in _found(args)]
    accounted = (
        "  --num-virtual-stages-per-pipeline-rank: 2\n"
        "  --account-for-embedding-in-pipeline-split: true\n"
        "  --account-for-loss-in-pipeline-split: true\n"
    )
    assert _found(args + accounted) == []  # (6 + 2) layers over 4 × 2 stages
    assert _found(args + "  --pipeline-model-parallel-layout: Et*2|(tt|)*2|tmL\n") == []


def test_oc_select_reads_the_key_it_selects() -> None:
    """``${oc.select:key,default}`` is the key's value where the file has the key (located at
    its definition, as a plain reference); without the key, in a file checked alone, nothing is
    guessed: the key may be set by a config this file is composed into."""
    text = (
        "shared:\n  width: 4100\n"
        "model:\n  hidden_size: ${oc.select:shared.width,4096}\n  num_attention_heads: 32\n"
        "  num_layers: ${oc.select:shared.depth,24}\n"
    )
    assert ("DL101", 2, 10) in _found(text)
    document, _ = yamlfile.load("m.yaml", text.encode())
    assert document is not None
    assert type(document.value["model"]["num_layers"]).__name__ == "Unresolved"
    assert any("its default 24 applies only where no other" in n for n in document.notes)


def test_one_literal_two_sections_reference_is_one_finding() -> None:
    """``${a.b}`` in one section and ``${oc.select:a.b,…}`` in another read one literal: its
    finding is reported once, though the repairs the two models suggest differ; a finding two
    sections raise about different values at that literal stays two findings."""
    text = (
        "shared:\n  width: 4100\n"
        "encoder:\n  hidden_size: ${shared.width}\n  num_attention_heads: 20\n"
        "  num_layers: 4\n  vocab_size: 32000\n"
        "decoder:\n  hidden_size: ${oc.select:shared.width,4096}\n  num_attention_heads: 20\n"
        "  num_layers: 8\n  ffn_hidden_size: 11008\n"
    )
    found = _lint(text).diagnostics
    assert [(d.code, d.span.start_pos.line) for d in found if d.code == "DL201" and d.span] == [
        ("DL201", 2)
    ]
    other = text.replace("heads: 20\n  num_layers: 4", "heads: 32\n  num_layers: 4")
    other = other.replace("heads: 20\n  num_layers: 8", "heads: 40\n  num_layers: 8")
    divisibility = [d.message.split(":")[0] for d in _lint(other).diagnostics if d.code == "DL101"]
    assert sorted(divisibility) == [
        "hidden_size 4100 is not divisible by num_attention_heads 32 (4100 / 32 = 128.125)",
        "hidden_size 4100 is not divisible by num_attention_heads 40 (4100 / 40 = 102.5)",
    ]


def test_oc_select_default_in_a_whole_composition_is_fixed_in_place(tmp_path: Path) -> None:
    """In a composition that gave up nothing, a key absent is absent: ``oc.select`` takes its
    default, found at the default's characters; the fix edits the default, not the resolver."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model/small.yaml").write_text("num_attention_heads: 32\nnum_layers: 2\n")
    primary = tmp_path / "config.yaml"
    primary.write_text(
        "defaults:\n  - _self_\n  - model: small\n"
        "model:\n  hidden_size: ${oc.select:model.width, 4100}\n"
        "  vocab_size: ${oc.select:model.missing,${.fallback}}\n  fallback: 32000\n"
    )
    document = yamlfile.load(str(primary), primary.read_bytes())[0]
    assert document is not None
    assert document.value["model"]["hidden_size"] == 4100
    assert document.value["model"]["vocab_size"] == 32000
    span = document.value_span("/model/hidden_size")
    assert span is not None
    assert (span.start_pos.line, span.start_pos.column) == (5, 41)
    out, err = io.StringIO(), io.StringIO()
    main(["check", str(primary), "--no-config", "--fix", "--unsafe-fixes"], out, err)
    assert "hidden_size: ${oc.select:model.width, 4096}\n" in primary.read_text()
    # the same group option composed under a primary that gives something up is not complete
    primary.write_text(primary.read_text().replace("model: small", "model: absent"))
    document = yamlfile.load(str(primary), primary.read_bytes())[0]
    assert document is not None
    assert type(document.value["model"]["vocab_size"]).__name__ == "Unresolved"


def test_other_resolvers_are_never_guessed_and_named_in_the_note() -> None:
    text = (
        "model:\n  hidden_size: 4100\n  num_attention_heads: ${oc.env:HEADS,32}\n"
        "  num_layers: ${eval:'2*12'}\n  vocab_size: ${mul:${.a},2}\n  a: 8\n"
        "  intermediate_size: x${.a}\n"
    )
    document, _ = yamlfile.load("m.yaml", text.encode())
    assert document is not None
    notes = "\n".join(document.notes)
    for resolver in ("oc.env", "eval", "mul"):
        assert f"the resolver {resolver} runs when the config is loaded" in notes
    assert "an interpolation with text around it" in notes
    assert not [d for d in _lint(text).diagnostics if d.code == "DL101"]


def test_messages_name_each_key_as_the_file_writes_it() -> None:
    """A dialect's key translated to its common name is still named as written: levanter's and
    open_lm's ``hidden_dim``, maxtext's ``base_emb_dim``, Megatron's ``--hidden-size`` (in a
    test YAML and in a launch script), in messages and fix titles alike."""
    cases = {
        "lev.yaml": "model:\n  type: llama\n  hidden_dim: 4100\n  num_heads: 32\n  num_layers: 2\n",
        "open_lm.json": '{"hidden_dim": 4100, "n_heads": 32, "n_layers": 2, "seq_len": 2048}\n',
        "maxtext.yml": "base_emb_dim: 4100\nbase_num_query_heads: 32\nbase_num_decoder_layers: 2\n",
        "megatron.yaml": "MODEL_ARGS:\n  --hidden-size: 4100\n  --num-attention-heads: 32\n"
        "  --num-layers: 2\n",
        "run.sh": "torchrun pretrain_gpt.py --hidden-size 4100 --num-attention-heads 32"
        " --num-layers 2\n",
    }
    written = {
        "lev.yaml": "hidden_dim",
        "open_lm.json": "hidden_dim",
        "maxtext.yml": "base_emb_dim",
        "megatron.yaml": "--hidden-size",
        "run.sh": "--hidden-size",
    }
    for name, text in cases.items():
        result = lint_bytes(name, text.encode(), Selection())
        (finding,) = [d for d in result.diagnostics if d.code == "DL201"]
        assert finding.message.startswith(f"{written[name]} 4100 "), (name, finding.message)
        assert "hidden_size" not in finding.message, name
        assert finding.fix is not None, name
        assert f"set {written[name]} 4100 → 4096" in finding.fix.message, finding.fix.message
