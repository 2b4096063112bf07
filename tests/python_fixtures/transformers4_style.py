"""A transformers 4 configuration class: the config is the defaults of __init__."""

from transformers import PretrainedConfig


class TinyLlamaConfig(PretrainedConfig):
    model_type = "tiny_llama"
    keys_to_ignore_at_inference = ["past_key_values"]

    def __init__(
        self,
        vocab_size=32000,
        hidden_size=2048,
        intermediate_size=5632,
        num_hidden_layers=22,
        num_attention_heads=32,
        num_key_value_heads=4,
        hidden_act="silu",
        max_position_embeddings=2048,
        partial_rotary_factor=0.3,
#                             ^^^ DL103
        rope_theta=10000.0,
        **kwargs,
    ):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.partial_rotary_factor = partial_rotary_factor
        super().__init__(**kwargs)
