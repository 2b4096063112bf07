"""The check path stays light: what a JSON-only run imports (a linter runs on every commit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PROBE = """
import io, json, sys
from dimlint.cli import main
code = main(["check", *sys.argv[1:]], io.StringIO(), io.StringIO())
heavy = ("transformers", "torch", "libcst", "jsonschema", "dataclasses", "pathlib")
print(json.dumps({"code": code, "loaded": sorted(m for m in heavy if m in sys.modules)}))
"""


def run_probe(*paths: str) -> dict[str, object]:
    output = subprocess.run(
        [sys.executable, "-c", PROBE, *paths],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout
    result: dict[str, object] = json.loads(output)
    return result


def test_clean_json_run_imports_none_of_the_heavy_modules() -> None:
    result = run_probe("examples/qwen2-7b/config.json")
    assert result == {"code": 0, "loaded": []}


def test_run_with_findings_still_avoids_transformers_torch_libcst() -> None:
    result = run_probe("examples/broken-llama/config.json")
    assert result["code"] == 1
    assert isinstance(result["loaded"], list)
    assert not {"transformers", "torch", "libcst"} & set(result["loaded"])
