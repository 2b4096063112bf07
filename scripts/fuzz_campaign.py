"""A fuzz campaign against dimlint: minutes of mutated inputs per target, minimised reproducers.

The CI suite (``tests/test_fuzz_properties.py``) runs a few hundred bounded examples; this script
is the long search a developer runs before a release or after touching a reader::

    python scripts/fuzz_campaign.py --target json --minutes 5 --seed 1
    python scripts/fuzz_campaign.py --target all --minutes 2

Inputs come from :mod:`tests.fuzz_inputs` (the generators the property tests use), seeded by
the released configs in ``../shared/corpus/configs`` when it is there. Each input runs in-process
with a time limit and is checked by :func:`tests.fuzz_support.verify`. A failure is minimised
(chunks of the failing file are removed while the same failure remains) and written to
``tests/fuzz_regressions/<target>-<hash>.json``, which ``tests/test_bounded_work.py`` replays;
fix the bug, keep the file. The summary gives inputs run and failures per target.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fuzz_inputs import GENERATORS, Input, RandomSource  # noqa: E402
from tests.fuzz_support import Hang, run, verify  # noqa: E402

REGRESSIONS = ROOT / "tests" / "fuzz_regressions"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "configs"
#: Seconds one input may run before it counts as a hang.
LIMIT = 10.0


@dataclass
class Reproducer:
    """A failing input as stored in ``tests/fuzz_regressions`` (files as text or base64)."""

    target: str
    argv: list[str]
    files: dict[str, bytes]
    usage: bool
    failure: str
    #: The file whose syntax and positions the checks look at.
    main: str = "c/config.json"

    def build(self, root: Path) -> list[str]:
        for name, content in self.files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(content)
        return [arg.replace("{root}", str(root)) for arg in self.argv]

    def dump(self) -> str:
        files: dict[str, dict[str, str]] = {}
        for name, content in self.files.items():
            try:
                files[name] = {"text": content.decode("utf-8")}
            except UnicodeDecodeError:
                files[name] = {"base64": base64.b64encode(content).decode("ascii")}
        record = {"target": self.target, "argv": self.argv, "usage": self.usage,
                  "main": self.main, "failure": self.failure[:2000], "files": files}  # fmt: skip
        return json.dumps(record, indent=1, ensure_ascii=True) + "\n"

    @classmethod
    def load(cls, path: Path) -> Reproducer:
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        files = {
            name: entry["text"].encode("utf-8", "surrogatepass")
            if "text" in entry
            else base64.b64decode(entry["base64"])
            for name, entry in record["files"].items()
        }
        return cls(
            record["target"],
            record["argv"],
            files,
            record["usage"],
            record["failure"],
            record.get("main", "c/config.json"),
        )


def attempt(made: Input) -> str | None:
    """Run one input in a fresh folder; the failure's signature, or None when it held."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        argv = Reproducer("", made.argv, made.files, made.usage, "").build(root)
        try:
            outcome = run(argv, limit=LIMIT, cwd=root)
        except Hang:
            return "hang"
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            frame = traceback.extract_tb(error.__traceback__)[-1]
            return f"escaped {type(error).__name__} at {Path(frame.filename).name}:{frame.lineno}"
        problems = verify(argv, root, outcome, made.main, made.files.get(made.main, b""),
                          usage=made.usage)  # fmt: skip
        return _signature(problems[0]) if problems else None


def _signature(problem: str) -> str:
    """The part of a failure that names the bug, not the input (for de-duplication)."""
    if "internal error" in problem:
        last = problem.rsplit("dimlint: internal error: ", 1)[-1]
        return "internal error: " + last.split(":", 1)[0]
    return problem.split(":", 1)[0][:120]


def minimise(made: Input, signature: str, budget: float) -> Input:
    """Remove chunks of the main file while the same failure remains (delta debugging)."""
    data = made.files.get(made.main)
    if data is None:
        return made
    deadline = time.monotonic() + budget
    chunk = max(1, len(data) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        start, shrunk = 0, False
        while start < len(data) and time.monotonic() < deadline:
            candidate = data[:start] + data[start + chunk :]
            trial = Input({**made.files, made.main: candidate}, made.argv, made.usage, made.main)
            if candidate and attempt(trial) == signature:
                data, shrunk = candidate, True
            else:
                start += chunk
        if not shrunk:
            chunk //= 2
    return Input({**made.files, made.main: data}, made.argv, made.usage, made.main)


def corpus_configs(folder: Path, limit: int = 400) -> list[dict[str, Any]]:
    configs = []
    for path in sorted(folder.glob("*.json"))[:limit]:
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(value, dict):
            configs.append(value)
    return configs


def campaign(
    target: str, minutes: float, seed: int, corpus: list[dict[str, Any]]
) -> dict[str, Any]:
    source = RandomSource(seed)
    deadline = time.monotonic() + minutes * 60
    runs, failures, seen = 0, 0, set()
    generator = GENERATORS[target]
    while time.monotonic() < deadline:
        if target in ("json", "commands") and corpus and source.integer(0, 3):
            made = _with_base(target, source, corpus)
        else:
            made = generator(source)
        runs += 1
        signature = attempt(made)
        if signature is None:
            continue
        failures += 1
        if signature in seen:
            continue
        seen.add(signature)
        small = minimise(made, signature, budget=60.0)
        record = Reproducer(target, small.argv, small.files, small.usage, signature, small.main)
        text = record.dump()
        name = f"{target}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.json"
        REGRESSIONS.mkdir(parents=True, exist_ok=True)
        (REGRESSIONS / name).write_text(text, encoding="utf-8")
        print(f"  {target}: {signature} -> tests/fuzz_regressions/{name}", flush=True)
    return {"target": target, "inputs": runs, "failures": failures, "distinct": len(seen)}


def _with_base(target: str, source: RandomSource, corpus: list[dict[str, Any]]) -> Input:
    from tests.fuzz_inputs import command_input, json_input

    base = source.choice(corpus)
    return json_input(source, base) if target == "json" else command_input(source, base)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", choices=[*GENERATORS, "all"], default="all")
    parser.add_argument("--minutes", type=float, default=1.0, help="per target")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args(argv)
    corpus = corpus_configs(args.corpus) if args.corpus.is_dir() else []
    targets = list(GENERATORS) if args.target == "all" else [args.target]
    results = []
    for offset, target in enumerate(targets):
        print(f"{target}: {args.minutes:g} min, seed {args.seed + offset}", flush=True)
        results.append(campaign(target, args.minutes, args.seed + offset, corpus))
    print("| target | inputs | failures | distinct |\n| --- | --- | --- | --- |")
    for item in results:
        print(f"| {item['target']} | {item['inputs']} | {item['failures']} | {item['distinct']} |")
    return 1 if any(item["failures"] for item in results) else 0


if __name__ == "__main__":
    sys.exit(main())
