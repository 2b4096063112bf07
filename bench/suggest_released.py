"""Would an architect ship ``dimlint suggest``'s #1? Ten public targets, measured (issue 23).

Each target is a request as a designer would type it for a released model's size and
deployment, and the released model it is compared with (by its name in the released-shape
table, ``dimlint/data/released_shapes.json``, generated from the shared corpus: the released
shapes are data, not expectations written here). For each, the #1 candidate is checked for:

* **engines** — accepted (no finding at warning level) and listed by ``plan`` at every
  requested TP degree;
* **aligned** — the smallest power of two dividing its per-GPU widths (query width / TP, FFN or
  expert width / TP, padded vocab / TP, hidden) at every requested degree, ≥ 128 or ≥ the
  released model's own (Qwen2.5-0.5B's 896 = 7 × 128 is 128-aligned);
* **KV per GPU** — bytes per token on one GPU at the worst requested degree (KV heads split
  over TP, replicated when TP exceeds them; MLA's latent on every rank) ≤ the released model's;
* **params** — ``mem``'s total (and active) within ±3% of the request;
* **released in top 3** — when the released shape itself passes the request (verified by the
  same linter, tolerance and search constraints), it is among the first three.

Usage: python bench/suggest_released.py   (prints a Markdown table; ``--write`` appends it to
bench/results-suggest.md)
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: (label, request after ``dimlint suggest``, released model's name in the table). Sizes are
#: the released models' own counts, as a designer matching them would ask.
TARGETS: list[tuple[str, str, str]] = [
    ("8B, 128k vocab, TP 8", "--params 8B --vocab 128256 --target vllm:tp=8", "Llama-3.1-8B"),
    ("Mistral-7B", "--params 7.25B --like mistral --vocab 32768", "mistral_7b_v03"),
    (
        "Llama-3-70B, TP 8",
        "--params 70.6B --vocab 128256 --target vllm:tp=8",
        "Llama-3.1-70B",
    ),
    ("Qwen2.5-0.5B", "--params 0.494B --like qwen2 --vocab 151936", "qwen2_0_5b"),
    ("Qwen2.5-1.5B", "--params 1.54B --like qwen2 --vocab 151936", "qwen25_1_5b"),
    (
        "Mixtral-8x7B",
        "--params 46.7B --active 12.9B --moe experts=8,top_k=2 --vocab 32000",
        "Mixtral-8x7B-v0.1",
    ),
    (
        "DeepSeek-V3 (MLA MoE)",
        "--params 671B --active 37.6B --mla --moe experts=256,top_k=8,shared=1 --vocab 129280",
        "deepseek3_671b",
    ),
    ("Gemma-2-9B", "--params 9.24B --like gemma2 --vocab 256000", "gemma2_9b"),
    (
        "8B on one 24 GB card, 32k",
        "--params 8B --vocab 128256 --budget 1xRTX4090-24GB --context 32768",
        "Llama-3.1-8B",
    ),
    (
        "8B, 1M context on 8×H200",
        "--params 8B --vocab 128256 --context 1048576 --budget 8xH200-141GB --target vllm:tp=8",
        "Llama-3.1-8B",
    ),
]


def _pow2(value: float) -> int:
    if value != int(value) or value <= 0:
        return 1
    value = int(value)
    return min(value & -value, 256)


def shard_alignment(config: dict[str, Any], shape: dict[str, int], tp: int) -> int:
    """Per-GPU alignment of a written config or a released shape at TP ``tp``."""
    ffn = shape["expert_ffn"] or shape["ffn"]
    heads_width = shape["heads"] * (128 if shape.get("mla") else shape["head_dim"])
    widths = [shape["hidden"], heads_width / tp, ffn / tp]
    return min(_pow2(w) for w in widths)


def kv_per_gpu(shape: dict[str, int], tp: int) -> int:
    """KV bytes per token on one GPU at TP ``tp`` (bf16)."""
    if shape.get("mla"):
        return shape["layers"] * (512 + 64) * 2
    per_gpu = -(-shape["kv_heads"] // tp)
    return 2 * shape["layers"] * per_gpu * shape["head_dim"] * 2


def shape_of(config: dict[str, Any]) -> dict[str, int]:
    """The dimensions of a config ``suggest`` wrote."""
    mla = "kv_lora_rank" in config
    experts = config.get("num_local_experts") or config.get("n_routed_experts") or 0
    if config.get("first_k_dense_replace") == config["num_hidden_layers"]:
        experts = 0
    expert_ffn = config.get("moe_intermediate_size") or (
        config["intermediate_size"] if config.get("num_local_experts") else 0
    )
    return {
        "hidden": config["hidden_size"],
        "layers": config["num_hidden_layers"],
        "heads": config["num_attention_heads"],
        "kv_heads": config["num_key_value_heads"],
        "head_dim": config.get("head_dim")
        or config["hidden_size"] // config["num_attention_heads"],
        "ffn": 0 if config.get("num_local_experts") else config["intermediate_size"],
        "expert_ffn": expert_ffn if experts else 0,
        "vocab": config["vocab_size"],
        "experts": experts,
        "mla": mla,
    }


def released_shape(name: str) -> dict[str, Any]:
    from dimlint.fix.suggest.reference import TABLE

    rows = json.loads(TABLE.read_text(encoding="utf-8"))["models"]
    row = next(r for r in rows if r["name"] == name)
    shape = dict(row)
    shape["head_dim"] = row["head_dim"] or row["hidden"] // row["heads"]
    if row["experts"] and not row["expert_ffn"]:
        shape["expert_ffn"], shape["ffn"] = row["ffn"], 0
    return shape


def _skeleton(shape: dict[str, Any]) -> tuple[int, ...]:
    width = shape["expert_ffn"] if shape["experts"] else shape["ffn"]
    return (shape["hidden"], shape["layers"], shape["heads"], shape["kv_heads"], width)


def released_passes(argv: list[str], released: dict[str, Any]) -> bool:
    """Whether the released shape satisfies the request: it passes the linter under its
    targets, is within the tolerance and inside the search's constraints."""
    import argparse

    from dimlint.commands.suggest import add_parser, build_request
    from dimlint.fix.suggest.families import Shape
    from dimlint.fix.suggest.plan import make_plan
    from dimlint.fix.suggest.search import excluded_by, in_tolerance, verify

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    request = build_request(parser.parse_args(["suggest", *argv]))
    plan = make_plan(request)
    moe = request.moe
    shape = Shape(
        released["hidden"],
        released["layers"],
        released["heads"],
        released["heads"] if released.get("mla") else released["kv_heads"],
        192 if released.get("mla") else released["head_dim"],
        released["ffn"] if not moe or released.get("mla") else 0,
        plan.vocab,
        plan.tie,
        experts=moe.experts if moe else 0,
        top_k=moe.top_k if moe else 0,
        shared=moe.shared if moe else 0,
        expert_ffn=released["expert_ffn"],
        mla=bool(released.get("mla")),
        dense_layers=3 if released.get("mla") else 0,
    )
    candidate = verify(plan, shape)
    return candidate.passes and in_tolerance(plan, candidate) and excluded_by(plan, shape) is None


def _rank_in(argv: list[str], skeleton: tuple[int, ...], top: int = 50) -> int | None:
    """The released shape's rank among the first ``top`` candidates (None: not among them)."""
    from dimlint.cli import main

    out = io.StringIO()
    main(["suggest", *argv, "--top", str(top), "--output-format", "json"], out, io.StringIO())
    ranked = [_skeleton(shape_of(c["config"])) for c in json.loads(out.getvalue())["candidates"]]
    return ranked.index(skeleton) + 1 if skeleton in ranked else None


def evaluate(label: str, request: str, name: str) -> dict[str, Any]:
    from dimlint.cli import main
    from dimlint.fix.suggest.request import expand_target

    argv = request.split()
    out, err = io.StringIO(), io.StringIO()
    code = main(["suggest", *argv, "--top", "3", "--output-format", "json"], out, err)
    if code != 0:
        return {"label": label, "request": request, "exit": code, "error": err.getvalue()}
    data = json.loads(out.getvalue())
    targets = [t for i, a in enumerate(argv) if a == "--target" for t in expand_target(argv[i + 1])]
    degrees: dict[str, set[int]] = {}
    for target in targets:
        engine, _, rest = target.partition(":")
        tp = dict(p.split("=") for p in rest.split(",") if "=" in p).get("tp", "1")
        degrees.setdefault(engine, set()).add(int(tp))
    tps = sorted({d for ds in degrees.values() for d in ds}) or [1]
    best = data["candidates"][0]
    shape = shape_of(best["config"])
    released = released_shape(name)
    engines_ok = not [f for f in best["findings"] if f["severity"] != "info"] and all(
        ds <= set(best["engines"][e]["tp"]) for e, ds in degrees.items()
    )
    align = min(shard_alignment(best["config"], shape, tp) for tp in tps)
    align_released = min(shard_alignment({}, released, tp) for tp in tps)
    kv = max(kv_per_gpu(shape, tp) for tp in tps)
    kv_released = max(kv_per_gpu(released, tp) for tp in tps)
    params = data["request"]["params"]
    error = (best["params"]["total"] - params) / params
    active = data["request"]["active"]
    active_error = None if active is None else (best["params"]["active"] - active) / active
    top3 = [_skeleton(shape_of(c["config"])) for c in data["candidates"][:3]]
    eligible = released_passes(argv, released)
    rank = top3.index(_skeleton(released)) + 1 if _skeleton(released) in top3 else None
    full_rank = rank or _rank_in(argv, _skeleton(released))
    return {
        "label": label,
        "request": request,
        "exit": code,
        "summary": best["summary"],
        "engines_ok": engines_ok,
        "tp": tps,
        "alignment": align,
        "released_alignment": align_released,
        "aligned": align >= min(128, align_released),
        "kv_per_gpu": kv,
        "released_kv_per_gpu": kv_released,
        "kv_ok": kv <= kv_released,
        "error": error,
        "active_error": active_error,
        "params_ok": abs(error) <= 0.03 and (active_error is None or abs(active_error) <= 0.03),
        "released": name,
        "released_eligible": eligible,
        "released_rank": rank,
        "released_rank_of_50": full_rank,
        "top3_ok": rank is not None or not eligible,
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| target | #1 | engines at every degree | per-GPU alignment (released) |"
        " KV B/token per GPU (released) | params Δ | released shape | in top 3 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        if row["exit"] != 0:
            lines.append(f"| {row['label']} | exit {row['exit']} | | | | | | |")
            continue
        delta = f"{row['error']:+.1%}"
        if row["active_error"] is not None:
            delta += f" ({row['active_error']:+.1%} active)"
        rank, anywhere = row["released_rank"], row["released_rank_of_50"]
        top3 = f"#{rank}" if rank else ("no" if row["released_eligible"] else "n/a (fails)")
        if not rank and row["released_eligible"]:
            top3 += f" (#{anywhere})" if anywhere else " (not in the first 50)"
        lines.append(
            f"| {row['label']} | {row['summary']} | {'yes' if row['engines_ok'] else 'NO'}"
            f" (tp {','.join(map(str, row['tp']))})"
            f" | {row['alignment']} ({row['released_alignment']})"
            f" | {row['kv_per_gpu']:,} ({row['released_kv_per_gpu']:,})"
            f" | {delta} | {row['released']} | {top3} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    rows = [evaluate(*target) for target in TARGETS]
    text = table(rows)
    sys.stdout.write(text)
    if "--write" in sys.argv:
        results = ROOT / "bench" / "results-suggest.md"
        current = results.read_text(encoding="utf-8")
        marker = "\n## Ten public targets"
        current = current.split(marker)[0].rstrip("\n")
        heading = (
            "\n\n## Ten public targets (issue 23): would an architect ship #1?\n\n"
            "`python bench/suggest_released.py --write`; criteria in the script's docstring.\n\n"
        )
        results.write_text(current + heading + text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
