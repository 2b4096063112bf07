"""Maintainer tools that need an installed transformers; dimlint never imports them."""
