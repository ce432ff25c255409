#!/bin/bash
# trainfit recipe: 2 nodes x 8 GPU: TP 8, PP 2, DP 1, ZeRO-1, full recompute, micro-batch 1 x 128
# Run on every node; set NODE_RANK (0..1) and MASTER_ADDR (node 0's address).
# Run from a nanotron checkout (run_train.py) with nanotron.yaml (this recipe's nanotron file) beside it.
set -e
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun \
  --nnodes=2 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:?set NODE_RANK}" \
  --master-addr="${MASTER_ADDR:?set MASTER_ADDR}" \
  --master-port=8008 \
  run_train.py \
  --config-file nanotron.yaml
