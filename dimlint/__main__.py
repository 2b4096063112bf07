"""``python -m dimlint``."""

from __future__ import annotations

from dimlint.cli import main_entry

main_entry()
