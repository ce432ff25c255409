#!/bin/bash
# trainfit recipe: 4 nodes x 8 GPU: TP 4, PP 4, DP 2, ZeRO-1, no recompute, micro-batch 2 x 64
# Run on every node; set NODE_RANK (0..3) and MASTER_ADDR (node 0's address).
# Run from a nanotron checkout (run_train.py) with nanotron.yaml (this recipe's nanotron file) beside it.
set -e
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun \
  --nnodes=4 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:?set NODE_RANK}" \
  --master-addr="${MASTER_ADDR:?set MASTER_ADDR}" \
  --master-port=8008 \
  run_train.py \
  --config-file nanotron.yaml
