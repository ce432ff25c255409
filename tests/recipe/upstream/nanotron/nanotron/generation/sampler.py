# Stub (not upstream): SamplerType as generation/sampler.py defines it; the rest of that module imports torch.
from enum import Enum, auto


class SamplerType(Enum):
    TOP_P = auto()
    TOP_K = auto()
    GREEDY = auto()
    BASIC = auto()
