"""The model of a config: ModelSpec and its provenance, normalization through the generated
table of model types, geometry predicates and JSON-pointer helpers. Knows no file format and no
rule; every other package builds on it."""

from __future__ import annotations
