"""How each config object is counted, and how composite configs are put together.

A model type transformers builds is counted by its learned template
(:mod:`~dimlint.memory.parameters.templated`): exact inside the domain the template learned,
an estimate from the same template outside it. What no template can evaluate — remote-code
families (ChatGLM, Baichuan, InternLM…), model types transformers does not have, and the rare
config its template cannot evaluate at all — is counted by the decoder recipe
(:mod:`~dimlint.memory.parameters.decoder_params`), which knows Llama-like decoders and the
remote families :mod:`~dimlint.memory.parameters.remote` describes, and says so when it guesses.
The hand recipes that once counted encoders, encoder-decoders, recurrent models and vision
towers are retired: the templates cover every one of those model types.
"""

from __future__ import annotations

from dimlint.config import architectures
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import templates
from dimlint.memory.parameters.decoder_families import dense_ffn_for, traits_for
from dimlint.memory.parameters.decoder_params import count_decoder
from dimlint.memory.parameters.family_additions import add_extra
from dimlint.memory.parameters.param_tally import Tally
from dimlint.memory.parameters.remote import family_for
from dimlint.memory.parameters.templated import estimated_parameters, templated_parameters


def count_spec(cfg: Cfg, architecture: str, refused: str | None = None) -> Tally:
    """Count one config object: by its template where its model type has one that can be
    evaluated, else by the decoder recipe. ``refused``: why the caller already found that the
    template does not answer for this config (it is not evaluated again; the caller says why)."""
    model_type = cfg.model_type
    template = _templated(cfg, architecture) if refused is None else None
    if isinstance(template, Tally):
        return template
    if not cfg.spec.known_type and architectures.lookup(model_type) is None:
        family = family_for(model_type, cfg.raw)
        if family is not None:
            tally = count_decoder(cfg, family.traits, family.ffn(cfg.raw) if family.ffn else None)
            if not family.exact:
                tally.exact = False
                tally.note(family.missing)
            unknown = [name for name in family.required if not getattr(cfg, name)]
            if unknown:
                tally.exact = False
                tally.note(
                    f"{model_type}: {', '.join(unknown)} not known from the config: the parts"
                    f" sized by {'it' if len(unknown) == 1 else 'them'} are left out (estimate)"
                )
            return tally
    tally = count_decoder(cfg, traits_for(cfg), dense_ffn_for(cfg))
    add_extra(cfg, tally)
    if refused is not None:
        tally.exact = False
    elif template is not None:
        tally.exact = False
        tally.note(f"{model_type}: {template}; estimated as a Llama-like decoder")
    elif not cfg.spec.known_type and not cfg.defaults:
        name = cfg.model_type or "this config"
        tally.exact = False
        tally.note(
            f"{name} is not a model type of transformers nor a remote-code family dimlint"
            " knows: estimated as a Llama-like decoder from its dimensions (biases, norms and"
            " tying as the config states)"
        )
    return tally


def _templated(cfg: Cfg, architecture: str) -> Tally | str | None:
    """The count of ``cfg`` from its model type's template (exact, or an estimate outside the
    learned domain), why its template cannot be evaluated (a string), or None where its model
    type has no template (remote code, or a type transformers does not build)."""
    spec = cfg.spec
    if not spec.known_type or cfg.model_type != spec.model_type:
        return None  # remote code, even under a native type's name (RefinedWeb is not Falcon)
    learned = templates.row(cfg.model_type)
    if learned is None or not learned.get("classes"):
        return None
    raw = spec.raw
    if cfg.wrapper_tie is not None:
        raw = {**raw, "tie_word_embeddings": cfg.wrapper_tie}
    counted = templated_parameters([spec], architecture, raw)
    exact = not isinstance(counted, templates.Refusal)
    if isinstance(counted, templates.Refusal):
        counted = estimated_parameters([spec], architecture, raw)
        if isinstance(counted, templates.Refusal):
            return counted.reason
    total, active, embedding, _, notes = counted
    tally = Tally()
    tally.add(total - embedding)
    tally.embed(embedding)
    tally.inactive = total - active
    tally.exact = exact
    for note in notes:
        tally.note(note)
    return tally


def is_causal_class(architecture: str) -> bool:
    name = architecture.lower()
    return name.endswith(("forcausallm", "lmheadmodel"))


def built_parts(cfg: Cfg, architecture: str, children: list[str]) -> set[str]:
    """The sub-configs (pointers among ``children``) the class ``architecture`` builds from a
    composite config: a ``…ForCausalLM`` class the language model only, and none when the
    top-level config is itself the language model; any other class every tower."""
    if not is_causal_class(architecture):
        return set(children)
    if cfg.spec.hidden is not None and cfg.layers > 0:
        return set()
    return {"/text_config"} & set(children)
