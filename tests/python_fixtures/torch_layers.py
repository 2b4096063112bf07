"""torch.nn layers whose widths are literals or module constants."""

import torch
from torch import nn
from torch.nn import MultiheadAttention

D_MODEL = 512


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim=768, num_heads=10)
#                                                   ^^^ DL101
        self.cross = MultiheadAttention(D_MODEL, 8, batch_first=True)
        self.layer = nn.TransformerEncoderLayer(D_MODEL, 8, dim_feedforward=2050)
#                                                                           ^^^^ DL201
        self.decoder = torch.nn.TransformerDecoderLayer(d_model=D_MODEL, nhead=6)
#                                                               ^^^^^^^ DL101
        self.lm_head = nn.Linear(768, 50257, bias=False)
#                                     ^^^^^ DL201
        self.embed = nn.Embedding(50304, 768)
        self.classifier = nn.Linear(768, 3)
        self.mlp = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.transformer = nn.Transformer(d_model=D_MODEL)
