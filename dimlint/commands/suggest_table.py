"""The ``suggest`` table, rendered from the JSON document so the two never disagree."""

from __future__ import annotations

from typing import Any


def _billions(count: float) -> str:
    if count >= 1e12:
        return f"{count / 1e12:.3g}T"
    return f"{count / 1e9:.3g}B" if count >= 1e9 else f"{count / 1e6:.0f}M"


def _degrees(tps: list[int]) -> str:
    return ",".join(map(str, tps)) or "none"


def _hours(hours: float) -> str:
    """``30 days``, ``1 day``, ``36 hours``: whole days as days."""
    days = hours / 24
    value, unit = (days, "day") if days >= 1 and days == round(days, 3) else (hours, "hour")
    return f"{value:g} {unit}" + ("" if value == 1 else "s")


def _header(request: dict[str, Any]) -> str:
    parts = [f"{_billions(request['params'])} parameters"]
    if request.get("largest"):
        parts[0] = "largest that fits: " + parts[0]
    if request["active"]:
        parts[0] += f", {_billions(request['active'])} active"
    parts.append(f"like {request['family']}")
    if request["moe"]:
        moe = request["moe"]
        parts.append(f"{moe['experts']} experts top-{moe['top_k']}, {moe['shared']} shared")
    if request["targets"]:
        parts.append("targets " + " ".join(request["targets"]))
    if request["budget"]:
        parts.append(f"budget {request['budget']}")
    if request["context"]:
        parts.append(f"context {request['context']}")
    if request["batch"]:
        parts.append(f"batch {request['batch']}")
    if request.get("training"):
        parts.append(
            f"a training step must fit ({request['optimizer']}, ZeRO-{request['zero']},"
            f" recompute {request['recompute']})"
        )
    training = request.get("training_run")
    if training:
        parts.append(
            f"training {_billions(training['tokens'])} tokens"
            f" ({training['tokens_per_param']:.0f} a parameter), {training['flops']:.2e} FLOPs"
            " (6·N·D)"
        )
    budget = request.get("train_budget")
    if budget:
        parts.append(
            f"from {budget['budget']} for {_hours(budget['hours'])} at"
            f" {budget['mfu']:.0%} MFU of {budget['peak_flops_per_gpu'] / 1e12:,.1f} TFLOP/s"
            " (BF16 dense peak)"
        )
    return "dimlint suggest: " + " · ".join(parts)


def _rows(data: dict[str, Any]) -> list[str]:
    candidates = data["candidates"]
    engines = list(candidates[0]["engines"]) if candidates else []
    moe = bool(data["request"]["moe"])
    header = ["#", "hidden", "layers", "heads", "head dim"]
    header += ["experts × width", "active"] if moe else ["ffn"]
    header += ["vocab", "params", "Δ", "KV B/token"]
    header += [f"{name} tp" for name in engines]
    rows = [header]
    for candidate in candidates:
        config = candidate["config"]
        heads = config["num_attention_heads"]
        kv = config.get("num_key_value_heads", heads)
        mla = "kv_lora_rank" in config
        row = [
            str(candidate["rank"]),
            str(config["hidden_size"]),
            str(config["num_hidden_layers"]),
            f"{heads} MLA" if mla else f"{heads}/{kv}",
            str(config.get("head_dim", config.get("qk_nope_head_dim", 0) + 64)),
        ]
        if moe:
            experts = config.get("num_local_experts") or config.get("num_experts")
            experts = experts or config.get("n_routed_experts")
            width = config.get("moe_intermediate_size") or config["intermediate_size"]
            top = config["num_experts_per_tok"]
            row += [f"{experts} × {width} top-{top}", _billions(candidate["params"]["active"])]
        else:
            row.append(str(config["intermediate_size"]))
        row += [
            str(config["vocab_size"]),
            _billions(candidate["params"]["total"]),
            f"{candidate['params']['error']:+.1%}",
            f"{candidate['kv_cache']['bytes_per_token']:,.0f}",
        ]
        row += [_degrees(candidate["engines"][name]["tp"]) for name in engines]
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]


def _impossible(data: dict[str, Any]) -> list[str]:
    impossible = data["impossible"]
    lines = [f"impossible ({impossible['constraint']}): {impossible['message']}", ""]
    if impossible["relaxations"]:
        lines.append("nearest feasible relaxations (each searched and verified):")
        for relaxation in impossible["relaxations"]:
            candidate = relaxation["candidate"]
            memory = [m for m in candidate["memory"] if m["fits"]]
            fit = (
                f", {memory[0]['per_gpu_bytes'] / 2**30:.1f} GiB per GPU of"
                f" {memory[0]['usable_bytes'] / 2**30:.1f}"
                if memory
                else ""
            )
            lines.append(
                f"  {relaxation['change']}: {candidate['summary']}"
                f" ({_billions(candidate['params']['total'])}{fit})"
            )
    else:
        lines.append("no single relaxation tried (formats, context, GPUs, constraints) helps")
    return lines


def render(data: dict[str, Any]) -> str:
    lines = [_header(data["request"]), ""]
    if not data["candidates"]:
        lines += _impossible(data)
        return "\n".join(lines) + "\n"
    lines += _rows(data)
    best = data["candidates"][0]
    lines += ["", f"#1 {best['summary']}:"]
    lines += [f"  {line}" for line in best["why"]]
    for row in best["memory"]:
        lines.append(
            f"  {row['layout']}: {row['per_gpu_bytes'] / 2**30:.1f} GiB per GPU of"
            f" {row['usable_bytes'] / 2**30:.1f} usable"
        )
    lines += ["", "nearest released models (shared corpus):"]
    lines += [f"  {_released(model)}" for model in data["released"]]
    if "explain" in data:
        lines += [""] + data["explain"]
    return "\n".join(lines) + "\n"


def _released(model: dict[str, Any]) -> str:
    text = f"{model['name']} ({model['model_type']}): {model['hidden']} × {model['layers']}"
    text += f" layers, {model['heads']}/{model['kv_heads']} heads"
    if model["experts"]:
        text += f", {model['experts']} experts × {model['expert_ffn'] or model['ffn']}"
        text += f" top-{model['top_k']}"
    else:
        text += f", ffn {model['ffn']}"
    size = _billions(model["params"])
    if model["active"] != model["params"]:
        size += f" ({_billions(model['active'])} active)"
    return f"{text}, {size}"
