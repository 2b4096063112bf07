"""Baselines: adopt dimlint in an existing repository by recording today's findings.

``--write-baseline FILE`` stores a fingerprint per finding; ``--baseline FILE`` then reports only
findings whose fingerprint is not recorded. A fingerprint is built from what identifies a
finding independently of where it sits — the file (relative to the baseline), the rule, the JSON
pointer and the message (which quotes the offending values) — and never from line numbers, so
unrelated edits and line shifts keep old findings recognised, while changing an offending value
makes it a new finding. Fingerprints are counted, not just remembered: two identical findings in
the baseline excuse two occurrences, not more.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence

from dimlint.diagnostics import Diagnostic
from dimlint.errors import UsageError

FORMAT_VERSION = 1


def _relative(path: str, baseline: str) -> str:
    base = os.path.dirname(os.path.abspath(baseline))
    return os.path.relpath(os.path.abspath(path), base).replace(os.sep, "/")


def fingerprint(diagnostic: Diagnostic, baseline: str) -> str:
    """A stable identity for a finding: no line or column goes into it."""
    parts = (
        _relative(diagnostic.path, baseline),
        diagnostic.code,
        diagnostic.pointer or "",
        diagnostic.message,
    )
    # surrogatepass: a key with a lone surrogate ("\ud800" in the JSON) still has an identity
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:20]


def write(path: str, diagnostics: Sequence[Diagnostic]) -> None:
    """Record ``diagnostics`` (sorted, one entry per finding) in ``path``."""
    entries = sorted(
        (
            {
                "fingerprint": fingerprint(d, path),
                "code": d.code,
                "file": _relative(d.path, path),
                "pointer": d.pointer,
                "message": d.message,
            }
            for d in diagnostics
        ),
        key=lambda e: (str(e["file"]), str(e["code"]), str(e["fingerprint"])),
    )
    document = {"tool": "dimlint", "version": FORMAT_VERSION, "findings": entries}
    from dimlint.sources.safeio import replace_atomically

    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    # a lone surrogate (from a "\ud800" escape in a key) is kept as its escape, not a crash
    replace_atomically(path, text.encode("utf-8", "backslashreplace"))


def read(path: str) -> Counter[str]:
    """The fingerprints recorded in ``path``, with their counts."""
    from dimlint.sources.safeio import read_regular

    try:
        document = json.loads(read_regular(path).decode("utf-8"))
    except OSError as error:
        raise UsageError(f"cannot read baseline {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise UsageError(
            f"baseline {path} is not UTF-8 ({error.reason} at byte {error.start});"
            " write it again with --write-baseline"
        ) from None
    except (ValueError, RecursionError) as error:
        raise UsageError(f"baseline {path} is not valid JSON: {error}") from None
    if not isinstance(document, dict) or document.get("tool") != "dimlint":
        raise UsageError(f"{path} is not a dimlint baseline (write one with --write-baseline)")
    findings = document.get("findings", [])
    if not isinstance(findings, list):
        raise UsageError(
            f"baseline {path}: findings must be a list, not {type(findings).__name__};"
            " write it again with --write-baseline"
        )
    return Counter(
        entry["fingerprint"]
        for entry in findings
        if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str)
    )


def new_findings(diagnostics: Sequence[Diagnostic], path: str) -> list[Diagnostic]:
    """The findings not excused by the baseline at ``path``."""
    remaining = read(path)
    kept = []
    for diagnostic in diagnostics:
        key = fingerprint(diagnostic, path)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            kept.append(diagnostic)
    return kept
