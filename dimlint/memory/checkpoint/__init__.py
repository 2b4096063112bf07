"""The tensors a checkpoint must hold for a config: names, shapes and how they load.

``expected_tensors`` plans them for the families dimlint counts by recipe, ``template_plan``
for every other model type from the shape templates; ``load_names`` replays the key renames
of ``from_pretrained``; ``tensor_names`` and ``tensor_axes`` keep names and shapes as formulas
over config values, so a mismatch can name the value that is wrong.
"""
