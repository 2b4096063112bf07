"""What a training step keeps beyond the weights: activations, and what fine-tuning changes.

``activations`` sizes the tensors a forward pass saves for backward (and the peak while a
recomputed layer runs backward); ``training_plan`` and ``finetune`` say what is trained and
where its states live (LoRA, QLoRA, ZeRO offload); ``linear_layers`` lists the ``nn.Linear``
modules LoRA and QLoRA touch.
"""
