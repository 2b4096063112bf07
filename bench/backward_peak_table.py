"""The table of training activations ÷ the step's measured peak in docs/training.md.

Every case the oracle of ``tests/test_memory_backward_peak.py`` can run: each family of the
forward oracle with each attention implementation transformers runs for it, no recomputation,
full recomputation at the toy vocabulary (V = 2·h) and at a real model's (V = 32·h, 8192), in
bfloat16 and float32, and selective recomputation (an SDPA or eager core inside
``torch.utils.checkpoint``). The measurement is the test's own ``step_peak``; about 15 minutes
of CPU for all of it:

    PYTHONPATH=. python bench/backward_peak_table.py [--families llama,gpt2] > table.md

Prints a markdown table (cells: SDPA / eager, or the SDPA / eager core) and the share of cases
within the test's tolerance.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_memory_backward_peak as oracle
from test_memory_activations_oracle import FAMILIES

from dimlint.config.normalize import specs_for_document
from dimlint.memory.config_view import Cfg
from dimlint.memory.estimates import training_activations

#: (recompute, dtype, vocabulary or None for the shrunk 512): the table's columns
COLUMNS = [
    ("none", "bf16", None),
    ("none", "fp32", None),
    ("full", "bf16", None),
    ("full", "fp32", None),
    ("full", "bf16", 8192),
    ("full", "fp32", 8192),
    ("selective", "bf16", None),
    ("selective", "fp32", None),
]
#: Families whose attention transformers' AttentionInterface does not dispatch (Falcon calls
#: its own): the selective oracle cannot checkpoint their core.
OWN_ATTENTION = ("falcon",)


def ratio(family: str, attention: str, recompute: str, dtype: str, vocab: int | None) -> float:
    """Estimate ÷ measured peak for one case."""
    config = dict(FAMILIES[family])
    if vocab is not None:
        config["vocab_size"] = vocab
    selective = recompute == "selective"
    run_as = f"selective-{attention}" if selective else attention
    measured = oracle.step_peak(config, run_as, "none" if selective else recompute, dtype)
    cfg = Cfg(specs_for_document("config.json", config)[0])
    estimate = training_activations(
        cfg, batch=oracle.BATCH, seq=oracle.SEQ, attention=attention, recompute=recompute,
        dtype=dtype,
    )  # fmt: skip
    return estimate / measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", help="comma-separated (default: all of the oracle's)")
    families = parser.parse_args().families
    chosen = families.split(",") if families else list(FAMILIES)
    within = total = 0
    header = [f"{r} {d} {'V=32h' if v else 'V=2h'}" for r, d, v in COLUMNS]
    print("| family | " + " | ".join(header) + " |")
    print("| --- |" + " --- |" * len(COLUMNS))
    for family in chosen:
        cells = []
        for recompute, dtype, vocab in COLUMNS:
            values = []
            for attention in ("sdpa", "eager"):
                refused = (family, attention) in (("gemma2", "sdpa"), ("gpt2", "eager"))
                if refused or (recompute == "selective" and family in OWN_ATTENTION):
                    values.append("–")
                    continue
                value = ratio(family, attention, recompute, dtype, vocab)
                total += 1
                within += abs(value - 1) <= oracle.TOLERANCE
                values.append(f"{value:.3f}")
            cells.append(" / ".join(values))
        print(f"| {family} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{within}/{total} within {oracle.TOLERANCE:.0%}")


if __name__ == "__main__":
    main()
