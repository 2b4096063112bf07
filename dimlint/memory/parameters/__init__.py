"""Parameter counts from a config: the learned shape templates first, family recipes after.

``count`` is the entry point (:func:`~dimlint.memory.parameters.count.count_parameters`);
``count_dispatch`` chooses how each model type is counted: the templates learned from the
models transformers builds (``templates``, ``templated``), or — for model types outside the
templates' domain and remote-code families — a recipe (``decoder_params``, ``encoder_params``,
``seq2seq_params``, ``tower_params``, ``recurrent_params``, ``mixer_params``,
``unique_architectures``, ``early_architectures``, ``family_additions``, ``remote``) built from
shared blocks (``block_params``, ``param_tally``) and decoder knowledge (``decoder_traits``,
``decoder_families``, ``layer_kinds``). ``shapes`` walks one decoder layer for ``dimlint shapes``.
"""
