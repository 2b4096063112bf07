"""Generate the README's rules table from the rule catalogue (``rules/``) and the registry.

The table sits between ``<!-- rules-table:start -->`` and ``<!-- rules-table:end -->``; nothing
else in the README is touched. Each row links the code to its rule file and gives the name,
severity, fix availability and the registry's one-line summary.

Usage: ``python -m dimlint.tools.readme_rules [--readme PATH] [--check]``; ``--check`` rewrites
nothing and exits 1 when the table is stale (CI runs it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

START = "<!-- rules-table:start -->"
END = "<!-- rules-table:end -->"
DEFAULT_README = Path(__file__).resolve().parent.parent.parent / "README.md"
#: Where README links point: the repository's catalogue, relative to the README.
RULES_LINK_DIR = "rules"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_table() -> str:
    """The Markdown table, one row per catalogue entry, ending with a newline."""
    from dimlint.checks import all_rules
    from dimlint.checks.catalogue import read_rule, rule_files

    rules = all_rules()
    lines = [
        "| code | name | severity | fix | summary |",
        "| --- | --- | --- | --- | --- |",
    ]
    for code, path in rule_files().items():
        doc = read_rule(code)
        summary = rules[code].summary if code in rules else ""
        if not doc.default:
            summary = f"{summary} Off by default." if "opt-in" not in summary else summary
        link = f"[{code}]({RULES_LINK_DIR}/{path.name})"
        lines.append(
            f"| {link} | {_cell(doc.name)} | {doc.severity} | {doc.fix} | {_cell(summary)} |"
        )
    return "\n".join(lines) + "\n"


class MarkersMissing(ValueError):
    """The README lacks the start/end markers (or has them out of order)."""


def update(text: str, table: str) -> str:
    """``text`` with the part between the markers replaced by ``table``."""
    start = text.find(START)
    end = text.find(END)
    if start < 0 or end < 0 or end < start:
        raise MarkersMissing(f"the README needs {START} followed by {END}")
    head = text[: start + len(START)]
    return f"{head}\n{table}{text[end:]}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dimlint.tools.readme_rules",
        description="Regenerate the rules table of README.md from the rule catalogue.",
    )
    parser.add_argument("--readme", type=Path, default=DEFAULT_README, help="default: README.md")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the table is stale"
    )
    args = parser.parse_args(argv)
    readme: Path = args.readme
    try:
        text = readme.read_text(encoding="utf-8")
        updated = update(text, render_table())
    except (OSError, MarkersMissing) as error:
        sys.stderr.write(f"readme_rules: {readme}: {error}\n")
        return 2
    if updated == text:
        return 0
    if args.check:
        sys.stderr.write(
            f"readme_rules: the rules table in {readme} is stale;"
            " run python -m dimlint.tools.readme_rules\n"
        )
        return 1
    with readme.open("w", encoding="utf-8", newline="") as handle:
        handle.write(updated)
    sys.stdout.write(f"readme_rules: updated the rules table in {readme}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
