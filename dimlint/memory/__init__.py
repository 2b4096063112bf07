"""Parameters, weights, KV cache and serving/training memory from a config, offline.

Nothing here imports transformers or torch: counts come from the config alone (family recipes
checked against the models transformers builds) and memory from arithmetic on those counts.
Importing this package costs a few milliseconds and is only done by the commands that need it
(``mem``, ``shapes``, ``plan``, and ``check`` with a budget), never by a plain ``check``.
"""

from __future__ import annotations

from dimlint.memory.dtypes import DTYPE_BYTES
from dimlint.memory.estimates import (
    MemoryEstimate,
    TrainingStates,
    language_spec,
    serving_memory,
    training_states,
)
from dimlint.memory.gpus import GPU, GPU_MEMORY_UTILIZATION, GPUS, gpu_named, parse_budget
from dimlint.memory.kvcache import kv_bytes_per_token, kv_cache_bytes
from dimlint.memory.parameters.count import Parameters, count_parameters, model_parameters
from dimlint.memory.weights import weight_bytes

__all__ = [
    "DTYPE_BYTES",
    "GPU",
    "GPUS",
    "GPU_MEMORY_UTILIZATION",
    "MemoryEstimate",
    "Parameters",
    "TrainingStates",
    "count_parameters",
    "gpu_named",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "language_spec",
    "model_parameters",
    "parse_budget",
    "serving_memory",
    "training_states",
    "weight_bytes",
]
