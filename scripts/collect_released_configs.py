"""Copy released-model configs into ``tests/data/released_configs`` and split them.

The split is fixed before anything is measured: a config's half is the parity of the first
byte of ``sha256(source_repo + "/" + source_path)`` (even: ``tune``, odd: ``held_out``), so a
config never changes half and nobody picks which ones are reported. ``SOURCES.tsv`` records,
for each stored file, its half and where it came from (repository, path, commit).

Usage: ``python scripts/collect_released_configs.py [CORPUS_DIR]`` (default ``../shared/corpus``:
its ``MANIFEST.tsv`` entries whose purpose is ``released-model``). Further configs gathered by
hand are added to ``extra.tsv`` beside this script's output (same columns, file already stored)
and kept on a rerun, among them the third half, ``unseen``: configs gathered after the tuning
stopped (deduplicated by content against every file here and in the corpus), never measured
until the closing report (``python tests/released_ground_truth.py unseen``), and a fourth,
``unseen2``, gathered the same way after ``unseen`` had been measured, and a fifth, ``unseen3``,
gathered after ``unseen2`` had been measured (``released_configs/UNSEEN3.md``).
"""

from __future__ import annotations

import csv
import hashlib
import shutil
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "released_configs"
COLUMNS = ("file", "half", "source_repo", "source_path", "commit", "model_type")


def half_of(source_repo: str, source_path: str) -> str:
    digest = hashlib.sha256(f"{source_repo}/{source_path}".encode()).digest()
    return "tune" if digest[0] % 2 == 0 else "held_out"


def main(argv: list[str]) -> int:
    corpus = Path(argv[1]) if len(argv) > 1 else OUT.parents[2].parent / "shared" / "corpus"
    rows: list[dict[str, str]] = []
    with open(corpus / "MANIFEST.tsv", encoding="utf-8") as handle:
        for entry in csv.DictReader(handle, delimiter="\t"):
            if entry["purpose"] != "released-model":
                continue
            name = Path(entry["file"]).name
            half = half_of(entry["source_repo"], entry["source_path"])
            (OUT / half).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(corpus / entry["file"], OUT / half / name)
            rows.append(
                {
                    "file": f"{half}/{name}",
                    "half": half,
                    "source_repo": entry["source_repo"],
                    "source_path": entry["source_path"],
                    "commit": entry["commit"],
                    "model_type": entry["model_type"],
                }
            )
    extra = OUT / "extra.tsv"
    if extra.exists():
        with open(extra, encoding="utf-8") as handle:
            rows.extend(csv.DictReader(handle, delimiter="\t"))
    with open(OUT / "SOURCES.tsv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda row: row["file"]))
    print(f"{len(rows)} configs in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
