"""The per-file pipeline: discovery, one front end per source kind (JSON, Python, the
checkpoint and tokenizer beside a config), selection, noqa, baseline, settings, parallel runs."""

from __future__ import annotations
