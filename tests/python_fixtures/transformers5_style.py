"""A transformers 5 configuration class: annotated class attributes with defaults."""

from huggingface_hub.dataclasses import strict

from transformers.configuration_utils import PreTrainedConfig


@strict
class SmolConfig(PreTrainedConfig):
    model_type = "smol"
    base_model_tp_plan = {"layers.*.self_attn.q_proj": "colwise"}
    attribute_map = {"n_embd": "hidden_size", "n_head": "num_attention_heads"}

    vocab_size: int = 49152
    hidden_size: int = 960
    intermediate_size: int = 2560
    num_hidden_layers: int = 32
    num_attention_heads: int = 15
    num_key_value_heads: int | None = 4
#                                     ^ DL102
    head_dim: int | None = None
    hidden_act: str = "silu"
    max_position_embeddings: int = 8192
    tie_word_embeddings: bool = True

    def __post_init__(self, **kwargs):
        if self.head_dim is None:
            self.head_dim = self.hidden_size // self.num_attention_heads
        super().__post_init__(**kwargs)
