"""Measure dimlint on training repositories it was not tuned on (issue 20, item 5).

Three measurements over folders holding one checked-out repository each (``<root>/<owner__name>``)::

    nice python scripts/heldout_measure.py check /tmp/b3 /tmp/out     # runs dimlint on each
    nice python scripts/heldout_measure.py skipped /tmp/out           # skipped files with a model
    nice python scripts/heldout_measure.py plant /tmp/b3 /tmp/plant.json

* ``check`` runs ``python -m dimlint check <repo> --no-config --output-format json --verbose``
  per repository (stdout and stderr kept in the output folder) and prints configs read (files),
  files skipped, and errors (distinct file, line, code), warnings and infos per repository;
  every error is listed for a person to judge.
* ``skipped`` lists the files the runs skipped whose text states a model width and its heads as
  literals (keys, keywords, attribute assignments, ``--flags``): files with model dimensions
  dimlint did not read (tokenizer vocabularies among them are to be left out by hand).
* ``plant`` plants one defect in every file of every repository that states a width and its
  heads within 25 lines (YAML, JSON, launch scripts, Python keywords and assignments): the first
  width moved to an odd number the nearest head count does not divide. A defect is found when a
  DL101-DL104, DL201 or DL607 finding sits on the planted line of that file; the misses are
  listed for a person to judge (a planted value that is no defect in that framework, an explicit
  head width, say, is the planter's artifact).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

WIDTH = r"hidden[_-]size|d_model|n_embd|n_embed|dim|embed_dim|hidden_dim|model_dim|width|emb_size"
HEADS = r"num[_-]attention[_-]heads|n_heads|n_head|num_heads|heads|heads_num|attention_heads"
FOUND_CODES = ("DL101", "DL102", "DL103", "DL104", "DL201", "DL607")
SUFFIXES = (".yaml", ".yml", ".json", ".sh", ".py")


def _patterns(keys: str) -> list[re.Pattern[str]]:
    return [
        re.compile(rf"(?m)^\s*[\"']?(?:{keys})[\"']?\s*:\s*(?P<v>\d+)\s*(?:[,#}}\n]|$)"),
        re.compile(rf"--(?:{keys})[ =](?P<v>\d+)\b"),
        re.compile(rf"(?m)^\s*(?:export\s+)?(?:{keys})=(?P<v>\d+)\b", re.IGNORECASE),
        re.compile(rf"[(,]\s*(?:{keys})\s*=\s*(?P<v>\d+)\s*[,)\n]"),
        re.compile(rf"(?m)^\s+(?:{keys})\s*=\s*(?P<v>\d+)\s*(?:[,#)]|$)"),
        re.compile(rf"(?m)^\s*(?:{keys})\s*:\s*int\s*=\s*(?P<v>\d+)\s*(?:#|$)"),
    ]


def _matches(text: str, keys: str, least: int) -> list[re.Match[str]]:
    found = {m.start("v"): m for p in _patterns(keys) for m in p.finditer(text)}
    return [found[k] for k in sorted(found) if int(found[k]["v"]) >= least]


def _repositories(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir())


def check(root: Path, out: Path) -> None:
    """Run dimlint over each repository and print the per-repository counts."""
    out.mkdir(parents=True, exist_ok=True)
    totals = [0, 0, 0, 0, 0, 0]
    for repo in _repositories(root):
        stdout, stderr = out / f"{repo.name}.json", out / f"{repo.name}.err"
        with stdout.open("w") as o, stderr.open("w") as e:
            command = [sys.executable, "-m", "dimlint", "check", str(repo), "--no-config"]
            command += ["--output-format", "json", "--verbose"]
            subprocess.run(command, stdout=o, stderr=e, check=False)
        findings = json.loads(stdout.read_text() or "[]")
        notes = stderr.read_text()
        reads = [int(n) for n in re.findall(r": read (\d+) configs?", notes)]
        errors = {(f["file"], f["line"], f["code"]) for f in findings if f["severity"] == "error"}
        row = [
            sum(reads),
            sum(n > 0 for n in reads),
            len(re.findall(r"^dimlint: skipped ", notes, re.MULTILINE)),
            len(errors),
            sum(f["severity"] == "warning" for f in findings),
            sum(f["severity"] == "info" for f in findings),
        ]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(f"{repo.name}: configs {row[0]} ({row[1]} files), skipped {row[2]}, errors "
              f"{row[3]}, warnings {row[4]}, info {row[5]}")  # fmt: skip
        for file, line, code in sorted(errors):
            print(f"    {code} {file}:{line}")
    print("total:", totals)


def _stated(text: str, keys: str, least: int) -> bool:
    """Whether ``key: N``, ``key = N``, ``"key": N``, ``obj.key = N`` or ``--key N`` states a
    value of at least ``least`` (looser than the planter: an attribute assignment counts)."""
    patterns = (
        re.compile(rf"[\"']?\b(?:{keys})[\"']?\s*[:=]\s*(?P<v>\d+)\b"),
        re.compile(rf"--(?:{keys})[ =](?P<v>\d+)\b"),
    )
    return any(int(m["v"]) >= least for p in patterns for m in p.finditer(text))


def skipped(out: Path) -> None:
    """The skipped files whose text states a width and heads as literals."""
    count = 0
    for notes in sorted(out.glob("*.err")):
        for line in notes.read_text().splitlines():
            match = re.match(r"dimlint: skipped (.+?): (.*)", line)
            if match is None or not os.path.isfile(match[1]):
                continue
            text = Path(match[1]).read_text(encoding="utf-8", errors="replace")
            if _stated(text, WIDTH, 64) and _stated(text, HEADS, 2):
                count += 1
                print(f"{match[1]}: {match[2][:70]}")
    print("skipped files stating a width and heads:", count)


def _plant(text: str) -> tuple[str, int] | None:
    widths, heads = _matches(text, WIDTH, 64), _matches(text, HEADS, 2)
    if not widths or not heads:
        return None
    width = widths[0]
    nearest = min(heads, key=lambda h: abs(h.start("v") - width.start("v")))
    line = text.count("\n", 0, width.start("v"))
    if abs(line - text.count("\n", 0, nearest.start("v"))) > 25:
        return None
    new = int(width["v"]) + 65
    while new % int(nearest["v"]) == 0 or new % 2 == 0:
        new += 1
    return text[: width.start("v")] + str(new) + text[width.end("v") :], line + 1


def plant(root: Path, report: Path) -> None:
    """Plant one defect per file that states a model and report which were found."""
    from dimlint.lint.pipeline import lint_bytes
    from dimlint.lint.selection import Selection

    rows = []
    for repo in _repositories(root):
        for path in sorted(repo.rglob("*")):
            name = path.name
            if not path.is_file() or not name.endswith(SUFFIXES) or "vocab" in name:
                continue
            if "tokenizer" in name or path.stat().st_size > 400_000:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            planted = _plant(text)
            if planted is None:
                continue
            diagnostics = lint_bytes(str(path), planted[0].encode(), Selection()).diagnostics
            hits = [
                d.code
                for d in diagnostics
                if d.code in FOUND_CODES
                and d.path == str(path)
                and d.span is not None
                and d.span.start_pos.line == planted[1]
            ]
            rows.append({"repo": repo.name, "file": str(path), "line": planted[1], "found": hits})
    report.write_text(json.dumps(rows, indent=1))
    found = sum(bool(r["found"]) for r in rows)
    print(f"planted {len(rows)}, found at the line {found}")
    for row in rows:
        if not row["found"]:
            print(f"    missed {row['file']}:{row['line']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("check", "skipped", "plant"))
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args()
    if args.what == "check":
        check(args.paths[0], args.paths[1])
    elif args.what == "skipped":
        skipped(args.paths[0])
    else:
        plant(args.paths[0], args.paths[1])


if __name__ == "__main__":
    main()
