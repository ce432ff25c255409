# Stub module (not upstream): src/accelerate/utils/dataclasses.py imports torch, so this holds what
# ../parallelism_config.py imports from it: TorchContextParallelConfig and DeepSpeedSequenceParallelConfig copied
# verbatim (lines 2207-2293 of dataclasses.py at the commit named in ../../SOURCE.md), BETA_CP_AVAILABLE_PYTORCH_VERSION
# from utils/constants.py line 57, DistributedType from this stub package, and a TorchTensorParallelConfig placeholder
# (the recipes never set tp_size).
import os
from dataclasses import dataclass, field
from typing import Optional

from accelerate.utils import DistributedType  # noqa: F401  (parallelism_config.py imports it from here)
from accelerate.utils.versions import is_torch_version

BETA_CP_AVAILABLE_PYTORCH_VERSION = "2.6.0"


class TorchTensorParallelConfig:  # placeholder: not upstream
    pass


@dataclass
class TorchContextParallelConfig:
    """
    This class holds the configuration for context parallelism in PyTorch.
    """

    cp_comm_strategy: Optional[str] = field(
        default=None,
        metadata={
            "help": "Communication strategy for context parallelism. Can be one of 'allgather' or 'alltoall'. Defaults to 'allgather'."
        },
    )

    def __post_init__(self):
        if not is_torch_version(">=", BETA_CP_AVAILABLE_PYTORCH_VERSION):
            raise ValueError(
                f"FSDP2-based Context parallelism is only available in PyTorch {BETA_CP_AVAILABLE_PYTORCH_VERSION} and later versions. "
                "Please upgrade your PyTorch version."
            )

        if self.cp_comm_strategy is None:
            self.cp_comm_strategy = os.environ.get("PARALLELISM_CONFIG_CP_COMM_STRATEGY", "allgather")
        if self.cp_comm_strategy not in ["allgather", "alltoall"]:
            raise ValueError(
                f"Invalid cp_comm_strategy: {self.cp_comm_strategy}. Must be one of 'allgather' or 'alltoall'."
            )


@dataclass
class DeepSpeedSequenceParallelConfig:
    sp_seq_length: Optional[int] = field(
        default=None,
        metadata={
            "help": "Sequence length for when batches are all of the same length. For variable sequence lengths across batches set `sp_seq_length_is_variable=True` and leave this field unset"
        },
    )
    sp_seq_length_is_variable: Optional[bool] = field(
        default=None,
        metadata={
            "help": "If `True` will work with a sequence length that may change between batches, in which case `sp_seq_length` value can be set to anything divisible by cp size or remain unset. If `False` then `sp_seq_length` needs to match the batch's sequence length dimension. The default is `True`."
        },
    )
    sp_attn_implementation: Optional[str] = field(
        default=None,
        metadata={
            "help": "Attention implementation to use. Can be one of 'flash_attention_2', 'flash_attention_3', 'sdpa', or a hub-hosted kernel (e.g. 'kernels-community/flash-attn2'). Defaults to `sdpa`."
        },
    )

    def __post_init__(self):
        # sp_seq_length_is_variable and sp_seq_length are interconnected
        if self.sp_seq_length_is_variable is None:
            self.sp_seq_length_is_variable = (
                os.environ.get("PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE", "true").lower() == "true"
            )

        if not self.sp_seq_length_is_variable and self.sp_seq_length is None:
            if "PARALLELISM_CONFIG_SP_SEQ_LENGTH" not in os.environ:
                raise ValueError(
                    "when `sp_seq_length_is_variable` is `False` `sp_seq_length` must be provided either through the constructor or the environment variable PARALLELISM_CONFIG_SP_SEQ_LENGTH"
                )
            else:
                self.sp_seq_length = os.environ.get("PARALLELISM_CONFIG_SP_SEQ_LENGTH")
                self.sp_seq_length = None if self.sp_seq_length == "None" else int(self.sp_seq_length)

        if self.sp_attn_implementation is None:
            self.sp_attn_implementation = os.environ.get("PARALLELISM_CONFIG_SP_ATTN_IMPLEMENTATION", None)

        _builtin_sp_attn = ["flash_attention_2", "flash_attention_3", "sdpa"]
        # Also allow hub-hosted flash attention kernels (e.g. "kernels-community/flash-attn2").
        # These register into transformers' ALL_ATTENTION_FUNCTIONS at model load time and
        # DeepSpeed validates against that registry directly.
        _unsupported_sp_attn = ["eager", "flex_attention"]
        if self.sp_attn_implementation is not None:
            if self.sp_attn_implementation in _unsupported_sp_attn:
                raise ValueError(
                    f"Invalid sp_attn_implementation: {self.sp_attn_implementation}. "
                    f"'eager' and 'flex_attention' are not supported with sequence parallelism."
                )
            if self.sp_attn_implementation not in _builtin_sp_attn:
                if "/" not in self.sp_attn_implementation or "flash-attn" not in self.sp_attn_implementation:
                    raise ValueError(
                        f"Invalid sp_attn_implementation: {self.sp_attn_implementation}. "
                        f"Must be one of {_builtin_sp_attn} or a hub-hosted flash attention kernel "
                        f"(e.g. 'kernels-community/flash-attn2')."
                    )

