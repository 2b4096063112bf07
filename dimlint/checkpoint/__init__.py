"""The config against the files beside it: safetensors headers, index and tokenizer.

``files`` finds and reads the checkpoint (headers only, see :mod:`dimlint.sources.safetensors`),
``expected`` says which tensors a config implies (from :mod:`dimlint.memory`'s knowledge),
``compare`` and ``sizes`` turn the differences into findings (DL503, DL610–DL612),
``tokenizer`` checks token ids (DL605), and ``lint`` is what the linter calls. Nothing here is
imported unless a ``config.json`` has such files beside it.
"""
