#!/bin/bash
# trainfit recipe: 1 node x 8 GPU: TP 1, PP 1, DP 8, ZeRO-3, selective recompute, micro-batch 2 x 1
# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).
# Needs torchtitan.toml (this recipe's torchtitan file) in the working directory, torchtitan installed.
set -e
torchrun \
  --nnodes=1 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:-0}" \
  --master-addr="${MASTER_ADDR:-127.0.0.1}" \
  --master-port=8008 \
  -m torchtitan.train \
  --job.config_file torchtitan.toml
