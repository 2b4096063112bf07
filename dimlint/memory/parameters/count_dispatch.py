"""Which recipe counts which model type, and how composite configs are put together."""

from __future__ import annotations

from collections.abc import Callable

from dimlint.config import architectures
from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.decoder_families import dense_ffn_for, traits_for
from dimlint.memory.parameters.decoder_params import count_decoder
from dimlint.memory.parameters.early_architectures import (
    count_cpmant,
    count_prophetnet,
    count_xlnet,
)
from dimlint.memory.parameters.encoder_params import ENCODERS, count_encoder
from dimlint.memory.parameters.family_additions import add_extra
from dimlint.memory.parameters.param_tally import Tally
from dimlint.memory.parameters.recurrent_params import (
    count_mamba,
    count_mamba2,
    count_nemotron_h,
    count_recurrent_gemma,
    count_rwkv,
    count_xlstm,
    count_zamba,
)
from dimlint.memory.parameters.remote import family_for
from dimlint.memory.parameters.seq2seq_params import SEQ2SEQ, count_seq2seq
from dimlint.memory.parameters.tower_params import (
    count_clip_vision,
    count_siglip_vision,
    count_vitdet_vision,
    count_whisper_encoder,
    got_ocr2_projector,
)
from dimlint.memory.parameters.unique_architectures import (
    count_blt_global,
    count_blt_local_decoder,
    count_blt_local_encoder,
    count_blt_patcher,
    count_dory,
    count_hrm_text,
    count_jetmoe,
    count_longcat_flash,
)

#: Recipes for model types that are neither Llama-like decoders, BERT-like encoders nor
#: BART-like encoder-decoders.
RECIPES: dict[str, Callable[[Cfg], Tally]] = {
    "mamba": count_mamba,
    "falcon_mamba": count_mamba,
    "mamba2": count_mamba2,
    "rwkv": count_rwkv,
    "xlstm": count_xlstm,
    "recurrent_gemma": count_recurrent_gemma,
    "zamba": count_zamba,
    "zamba2": count_zamba,
    "nemotron_h": count_nemotron_h,
    "xlnet": count_xlnet,
    "prophetnet": count_prophetnet,
    "cpmant": count_cpmant,
    "jetmoe": count_jetmoe,
    "longcat_flash": count_longcat_flash,
    "hrm_text": count_hrm_text,
    "dory": count_dory,
    "blt_local_encoder": count_blt_local_encoder,
    "blt_local_decoder": count_blt_local_decoder,
    "blt_global_transformer": count_blt_global,
    "blt_patcher": count_blt_patcher,
    "siglip_vision_model": count_siglip_vision,
    "siglip2_vision_model": count_siglip_vision,
    "clip_vision_model": count_clip_vision,
    "git_vision_model": count_clip_vision,
    "got_ocr2_vision": count_vitdet_vision,
    "moss_transcribe_diarize_audio": count_whisper_encoder,
    "whisper_encoder": count_whisper_encoder,
}


def count_spec(cfg: Cfg, architecture: str) -> Tally:
    """Count one config object with its family's recipe."""
    model_type = cfg.model_type
    if model_type in ENCODERS:
        return count_encoder(cfg, ENCODERS[model_type], architecture)
    if model_type in SEQ2SEQ:
        return count_seq2seq(cfg, SEQ2SEQ[model_type], architecture)
    recipe = RECIPES.get(model_type)
    if recipe is not None:
        return recipe(cfg)
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
    if not cfg.spec.known_type and not cfg.defaults:
        name = cfg.model_type or "this config"
        tally.exact = False
        tally.note(
            f"{name} is not a model type of transformers nor a remote-code family dimlint"
            " knows: estimated as a Llama-like decoder from its dimensions (biases, norms and"
            " tying as the config states)"
        )
    return tally


def is_causal_class(architecture: str) -> bool:
    name = architecture.lower()
    return name.endswith(("forcausallm", "lmheadmodel"))


class Wrapper:
    """How a composite config's class assembles its sub-models.

    ``causal_parts``: the sub-configs a ``…ForCausalLM`` class of this type still builds
    (most build the language model only); ``glue``: the projector and other parameters of the
    wrapper itself, from the top-level config and its children.
    """

    __slots__ = ("causal_parts", "glue_fn")

    def __init__(
        self,
        causal_parts: tuple[str, ...] = ("/text_config",),
        glue_fn: Callable[[Cfg, dict[str, Cfg]], int] | None = None,
    ) -> None:
        self.causal_parts = causal_parts
        self.glue_fn = glue_fn

    def parts(self, cfg: Cfg, architecture: str, children: list[str]) -> set[str]:
        if is_causal_class(architecture):
            has_own_layers = cfg.spec.hidden is not None and cfg.layers > 0
            wanted = set(self.causal_parts)
            if has_own_layers:
                wanted.discard("/text_config")
            return wanted & set(children)
        return set(children)

    def glue(self, cfg: Cfg, architecture: str, children: dict[str, ModelSpec]) -> Tally:
        tally = Tally()
        if self.glue_fn is not None:
            sub = {pointer: Cfg(spec) for pointer, spec in children.items()}
            tally.add(self.glue_fn(cfg, sub))
        return tally


def _child_dim(children: dict[str, Cfg], pointer: str, name: str) -> int:
    child = children.get(pointer)
    return int(getattr(child, name)) if child is not None else 0


def _gemma3_glue(cfg: Cfg, children: dict[str, Cfg]) -> int:
    vision = _child_dim(children, "/vision_config", "hidden")
    text = _child_dim(children, "/text_config", "hidden")
    return vision * text + vision


def _fuyu_glue(cfg: Cfg, children: dict[str, Cfg]) -> int:
    patch = cfg.int("patch_size", 30)
    channels = cfg.int("num_channels", 3)
    text = _child_dim(children, "/text_config", "hidden")
    return blocks.linear(patch * patch * channels, text, bias=True)


def _assistant_glue(cfg: Cfg, children: dict[str, Cfg]) -> int:
    """Gemma-4 assistant: projections from and back to the backbone's hidden size."""
    backbone = cfg.int("backbone_hidden_size")
    text = _child_dim(children, "/text_config", "hidden")
    return 2 * backbone * text + backbone * text


def _git_glue(cfg: Cfg, children: dict[str, Cfg]) -> int:
    vision = _child_dim(children, "/vision_config", "hidden")
    return blocks.linear(vision, cfg.hidden, True) + blocks.norm("ln", cfg.hidden)


def _got_ocr2_glue(cfg: Cfg, children: dict[str, Cfg]) -> int:
    vision = children.get("/vision_config")
    channels = vision.int("output_channels", 256) if vision is not None else 256
    return got_ocr2_projector(_child_dim(children, "/text_config", "hidden"), channels)


def _moss_glue(cfg: Cfg, children: dict[str, Cfg]) -> int:
    audio = _child_dim(children, "/audio_config", "hidden")
    text = _child_dim(children, "/text_config", "hidden")
    bias = cfg.flag("projector_bias", True)
    merged = audio * cfg.int("audio_merge_size", 4)
    return (
        blocks.linear(merged, text, bias)
        + blocks.linear(text, text, bias)
        + blocks.norm("ln", text)
    )


_BLT_PARTS = ("/encoder_config", "/global_config", "/decoder_config", "/patcher_config")


def _blt_glue(cfg: Cfg, children: dict[str, Cfg]) -> int:
    """BLT's hashed n-gram byte embeddings (one table per n-gram size and hash function) and
    the byte-level LM head."""
    sizes = cfg.list("encoder_hash_byte_group_size") or [3, 4, 5, 6, 7, 8]
    tables = len(sizes) * cfg.int("encoder_hash_byte_group_nb_functions", 1)
    encoder = _child_dim(children, "/encoder_config", "hidden")
    decoder = _child_dim(children, "/decoder_config", "hidden")
    hashed = tables * cfg.int("encoder_hash_byte_group_vocab", 500002) * encoder
    return hashed + cfg.vocab * decoder


WRAPPERS: dict[str, Wrapper] = {
    "blt": Wrapper(causal_parts=_BLT_PARTS, glue_fn=_blt_glue),
    "git": Wrapper(causal_parts=("/vision_config",), glue_fn=_git_glue),
    "got_ocr2": Wrapper(glue_fn=_got_ocr2_glue),
    "moss_transcribe_diarize": Wrapper(glue_fn=_moss_glue),
    "gemma4_unified_assistant": Wrapper(glue_fn=_assistant_glue),
    "gemma3": Wrapper(glue_fn=_gemma3_glue),
    "fuyu": Wrapper(glue_fn=_fuyu_glue),
}


def wrapper_for(cfg: Cfg) -> Wrapper:
    return WRAPPERS.get(cfg.model_type, Wrapper())
