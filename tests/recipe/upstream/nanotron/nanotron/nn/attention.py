# Stub (not upstream): the keys of ALL_ATTENTION_FUNCTIONS in nn/attention.py, which models_config.py checks
# _attn_implementation against; the real module imports torch and the attention kernels.
from typing import Literal

ALL_ATTENTION_FUNCTIONS = {k: None for k in ["flash_attention_2", "flex_attention", "sdpa", "ring_flash_triton", "ring",
                                             "llama3_ring_attention"]}
AttentionImplementation = Literal[tuple(ALL_ATTENTION_FUNCTIONS.keys())]
