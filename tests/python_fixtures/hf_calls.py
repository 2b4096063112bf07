"""transformers configs built in code: constructor calls and AutoConfig.for_model."""

from transformers import AutoConfig, LlamaConfig, MistralConfig

base = LlamaConfig(hidden_size=4096, num_attention_heads=32, num_key_value_heads=8)
typo = LlamaConfig(hidden_size=4096, num_attention_head=32)
#                                                       ^^ DL004
heads = LlamaConfig(hidden_size=4096, num_attention_heads=24, intermediate_size=11008)
#                               ^^^^ DL101
mistral = MistralConfig(sliding_window=4096)
auto = AutoConfig.for_model("mistral", hidden_size=4096, num_key_value_heads=12)
#                                                                            ^^ DL102
rope = LlamaConfig(
    rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0},
#   ^^^^^^^^^^^^ DL604
)
