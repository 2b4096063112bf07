"""Generate ``dimlint/data/released_shapes.json``: the shapes of released models, for ``suggest``.

``dimlint suggest`` compares its candidates with the nearest released models and keeps their
depth/width ratio within the range released models of that size use. Both come from the shared
corpus of real configs (``corpus/MANIFEST.tsv``, rows whose purpose is ``released-model``), which
is not shipped with the package: this script reads it once and writes a small table (one row
per distinct language-model shape, with the parameter counts dimlint's own memory model gives),
so nothing reads the corpus at run time.

Usage: ``python -m dimlint.tools.generate_released_shapes [--corpus DIR] [--output PATH]
[--check]`` (``--check`` exits 1 when the file differs from what the corpus gives).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path
from typing import Any

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "released_shapes.json"
DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


#: Folder and file names that say nothing about the model (``…/Qwen2_5_VL/config/config.json``).
_GENERIC = frozenset({"config", "configs", "params", "weights", "files", "file", "token_config"})
#: Encoders: no causal language model to compare a suggestion with.
_ENCODERS = frozenset({"bert", "mobilebert", "roberta", "t5", "clip_vision_model", "siglip"})
#: Smaller "released" configs are test-sized presets, not models.
_SMALLEST = 50_000_000
#: Router keys a mixture-of-experts config states, kept so that ``suggest`` writes the routing
#: its family releases (DeepSeek-V3: 8 groups, 4 chosen per token).
_ROUTING = ("n_group", "topk_group", "routed_scaling_factor", "norm_topk_prob")


def model_name(source_path: str) -> str:
    """A readable name from where the config came from.

    ``…/Llama-3.2-3B-Instruct/config.json`` → ``Llama-3.2-3B-Instruct``;
    ``…/hf_model_configs.py#llama31_8b_config_L619`` → ``llama31_8b``;
    ``…/Llama-3.1-70B.json`` → ``Llama-3.1-70B``.
    """
    if "#" in source_path:
        name = source_path.split("#", 1)[1]
        name = re.sub(r"_L\d+$", "", name)
        return re.sub(r"_(config|dict|cfg|cfg_str)$", "", name)
    parts = [p for p in source_path.split("/") if p]
    name = re.sub(r"\.json$", "", parts.pop()) if parts else ""
    while name in _GENERIC and parts:
        name = parts.pop()
    return name


#: Fields that are not the shape: one row per shape, its positions from a release that states a
#: rope scaling when any does (Llama-3 8B's 8192 and Llama-3.1-8B's 131072 are one shape).
_POSITIONS = ("max_positions", "rope_theta", "rope_scaling", "routing")
_NOT_SHAPE = ("name", *_POSITIONS)


def _positions(value: dict[str, Any]) -> dict[str, Any]:
    """Positions, rope θ and rope scaling as the config states them (transformers 4's
    ``rope_scaling`` or 5's ``rope_parameters``), from the language model's part."""
    text = value.get("text_config")
    config = text if isinstance(text, dict) and "hidden_size" not in value else value
    scaling = config.get("rope_scaling") or config.get("rope_parameters")
    if isinstance(scaling, dict):
        # per-frequency lists (longrope's short/long factors) are the model's own, not a rule
        scaling = {
            k: v
            for k, v in sorted(scaling.items())
            if k != "rope_theta" and not isinstance(v, (list, dict))
        }
        if not any(k in scaling for k in ("rope_type", "type")):
            scaling = None
    else:
        scaling = None
    theta = config.get("rope_theta")
    if theta is None and isinstance(config.get("rope_parameters"), dict):
        theta = config["rope_parameters"].get("rope_theta")
    positions = config.get("max_position_embeddings")
    routing = {k: config[k] for k in _ROUTING if isinstance(config.get(k), (int, float))}
    return {
        "max_positions": positions if isinstance(positions, int) else 0,
        "rope_theta": float(theta) if isinstance(theta, (int, float)) else 0.0,
        "rope_scaling": scaling,
        "routing": routing,
    }


def _row(name: str, model_type: str, value: dict[str, Any]) -> dict[str, Any] | None:
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters
    from dimlint.memory.estimates import language_spec

    specs = specs_for_document("config.json", value)
    if not specs:
        return None
    lm = language_spec(specs)
    fields = (lm.hidden, lm.layers, lm.heads, lm.vocab)
    if any(f is None for f in fields) or lm.pointer not in ("", "/text_config"):
        return None
    try:
        params = model_parameters(specs if not lm.pointer else [lm])
    except Exception:  # a config the memory model cannot count is left out of the table
        return None
    if params.total < _SMALLEST or (lm.model_type or model_type) in _ENCODERS:
        return None
    experts = lm.experts.value if lm.experts is not None else 0
    return {
        "name": name,
        "model_type": lm.model_type or model_type,
        "params": params.total,
        "active": params.active,
        "hidden": lm.hidden.value if lm.hidden else 0,
        "layers": lm.layers.value if lm.layers else 0,
        "heads": lm.heads.value if lm.heads else 0,
        "kv_heads": lm.effective_kv_heads or 0,
        "head_dim": lm.head_dim.value if lm.head_dim is not None else 0,
        "ffn": lm.ffn.value if lm.ffn is not None else 0,
        "vocab": lm.vocab.value if lm.vocab else 0,
        "experts": experts,
        "expert_ffn": lm.expert_ffn.value if lm.expert_ffn is not None else 0,
        "top_k": lm.experts_per_token.value if lm.experts_per_token is not None else 0,
        "mla": bool(lm.is_mla),
        "gated": bool(lm.gated_mlp),
        **_positions(value),
    }


def build(corpus: Path) -> dict[str, Any]:
    """The table: one row per distinct released language-model shape, smallest first."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    with open(corpus / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        for entry in csv.DictReader(handle, delimiter="\t"):
            if entry.get("purpose") != "released-model" or not entry["file"].endswith(".json"):
                continue
            try:
                value = json.loads((corpus / entry["file"]).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(value, dict):
                continue
            row = _row(model_name(entry["source_path"]), entry.get("model_type", ""), value)
            if row is None:
                continue
            key = tuple(v for k, v in row.items() if k not in _NOT_SHAPE)
            kept = rows.setdefault(key, row)
            if kept["rope_scaling"] is None and row["rope_scaling"] is not None:
                kept.update({k: row[k] for k in _POSITIONS})  # the shape's long-context release
    ordered = sorted(rows.values(), key=lambda r: (r["params"], r["name"]))
    return {
        "source": "shared corpus, MANIFEST.tsv rows with purpose released-model",
        "generator": "python -m dimlint.tools.generate_released_shapes",
        "models": ordered,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = json.dumps(build(args.corpus), indent=1) + "\n"
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            sys.stderr.write(f"{args.output} is stale: rerun without --check\n")
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {args.output}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
