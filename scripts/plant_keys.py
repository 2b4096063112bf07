"""Plant defects by hand in a style ``heldout_measure.py plant`` does not know (issue 20).

    python scripts/plant_keys.py ROOT GLOB WIDTH_KEY HEADS_KEY [--every]

For each file under ROOT matching GLOB, the first value of WIDTH_KEY (``N_DIM: 768``,
``MODEL_DIMS = 2048``; every one, one at a time, with ``--every``) is moved +65 to an odd
number that the nearest HEADS_KEY value (within 25 lines) does not divide. The defect is found
when a DL101 or DL201 finding sits on that line. Run with ``PYTHONPATH`` pinned to the code
measured (the planter imports dimlint in process).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def _values(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?m)(?:^|[\s{{,(\"'])(?:{key})[\"']?\s*[:=]\s*(?P<v>\d+)\b")


def main() -> None:
    root, glob, width_key, heads_key = sys.argv[1:5]
    every = "--every" in sys.argv[5:]
    total = found = 0
    for path in sorted(Path(root).rglob(glob)):
        text = path.read_text(encoding="utf-8", errors="replace")
        widths = list(_values(width_key).finditer(text))
        heads = list(_values(heads_key).finditer(text))
        for width in widths if every else widths[:1]:
            if not heads:
                break
            near = min(heads, key=lambda h: abs(h.start() - width.start()))
            line = text.count("\n", 0, width.start("v")) + 1
            if abs(line - (text.count("\n", 0, near.start("v")) + 1)) > 25:
                continue
            new = int(width["v"]) + 65
            while new % int(near["v"]) == 0 or new % 2 == 0:
                new += 1
            planted = text[: width.start("v")] + str(new) + text[width.end("v") :]
            diagnostics = lint_bytes(str(path), planted.encode(), Selection()).diagnostics
            hit = any(
                d.code in ("DL101", "DL201") and d.span and d.span.start_pos.line == line
                for d in diagnostics
            )
            total += 1
            found += hit
            if not hit:
                print(f"    missed {path}:{line}")
    print(f"planted {total}, found at the line {found}")


if __name__ == "__main__":
    main()
