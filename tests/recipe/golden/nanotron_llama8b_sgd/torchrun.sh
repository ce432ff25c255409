#!/bin/bash
# trainfit recipe: 1 node x 8 GPU: TP 1, PP 2, DP 4, ZeRO-1, no recompute, micro-batch 1 x 64
# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).
# Run from a nanotron checkout (run_train.py) with nanotron.yaml (this recipe's nanotron file) beside it.
set -e
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun \
  --nnodes=1 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:-0}" \
  --master-addr="${MASTER_ADDR:-127.0.0.1}" \
  --master-port=8008 \
  run_train.py \
  --config-file nanotron.yaml
