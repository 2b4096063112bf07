"""litgpt style: a table of dict(...) configs with litgpt's names."""

configs = [
    dict(
        name="tiny-llama-1.1b",
        block_size=2048,
        vocab_size=32000,
        padding_multiple=64,
        n_layer=22,
        n_head=32,
        n_embd=2048,
        rotary_percentage=1.0,
        n_query_groups=4,
        mlp_class_name="LLaMAMLP",
        intermediate_size=5632,
    ),
    dict(
        name="bad-groups",
        padded_vocab_size=32000,
        n_layer=16,
        n_head=32,
        n_embd=2048,
        n_query_groups=5,
#                      ^ DL102
        mlp_class_name="LLaMAMLP",
        intermediate_size=5632,
    ),
    dict(
        name="bad-padding",
        vocab_size=50254,
#                  ^^^^^ DL202
        padding_multiple=100,
        n_layer=6,
        n_head=8,
        n_embd=512,
    ),
]
name_to_config = {config["name"]: config for config in configs}
