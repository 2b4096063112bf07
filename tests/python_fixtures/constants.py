"""Module constants and arithmetic on them; one constant shared by several configs."""

HIDDEN = 1024
HEADS = 24
FFN = 4 * HIDDEN
LAYERS = 12
VOCAB = 32000

encoder = {
    "hidden_size": HIDDEN,
#                  ^^^^^^ DL101
    "num_attention_heads": HEADS,
    "intermediate_size": FFN,
    "num_hidden_layers": LAYERS,
    "vocab_size": VOCAB,
}
decoder = dict(
    hidden_size=HIDDEN,
#               ^^^^^^ DL101
    num_attention_heads=HEADS,
    intermediate_size=FFN,
    num_hidden_layers=LAYERS // 2,
    vocab_size=VOCAB,
)


def build(hidden=1000, heads=16):
    """Arguments are not constants: nothing here is statically known."""
    return dict(hidden_size=hidden, num_attention_heads=heads, num_hidden_layers=LAYERS)
