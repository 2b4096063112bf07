"""Readers, one per input kind: JSON (values and spans), Python (libcst), safetensors headers
and indexes. They turn bytes into config candidates and documents; they know no rules."""

from __future__ import annotations
