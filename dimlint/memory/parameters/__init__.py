"""Parameter counts from a config: the learned shape templates first, the decoder recipe after.

``count`` is the entry point (:func:`~dimlint.memory.parameters.count.count_parameters`);
``count_dispatch`` chooses how each config object is counted: by the templates learned from
the models transformers builds (``templates``, ``templated``, ``composed``, ``class_names``) —
exact inside what they learned, an estimate from the same template outside it — or, where no
template can be evaluated (remote-code families, model types transformers lacks), by the
decoder recipe (``decoder_params``, ``mixer_params``, ``family_additions``, ``remote``) built
from shared blocks (``block_params``, ``param_tally``) and decoder knowledge
(``decoder_traits``, ``decoder_families``, ``layer_kinds``). ``shapes`` walks one decoder layer
for ``dimlint shapes``.
"""
