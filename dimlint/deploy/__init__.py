"""Deployment: engines' parallel rules, targets and budgets, which layouts fit (``plan``), and
the joint search for valid dimensions that fixes (and suggestions) draw from."""

from __future__ import annotations
