# Stub (not upstream): the real tensor_parallel/nn.py imports torch; the config loader needs only the enum it re-exports.
from nanotron.parallel.tensor_parallel.enum import TensorParallelLinearMode  # noqa: F401
