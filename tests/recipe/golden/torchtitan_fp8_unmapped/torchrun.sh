#!/bin/bash
# trainfit recipe: 2 nodes x 8 GPU: TP 1, PP 1, DP 16, EP 8 (ETP 1), ZeRO-3, full recompute, micro-batch 1 x 4
# Run on every node; set NODE_RANK (0..1) and MASTER_ADDR (node 0's address).
# Needs torchtitan.toml (this recipe's torchtitan file) in the working directory, torchtitan installed.
set -e
torchrun \
  --nnodes=2 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:?set NODE_RANK}" \
  --master-addr="${MASTER_ADDR:?set MASTER_ADDR}" \
  --master-port=8008 \
  -m torchtitan.train \
  --job.config_file torchtitan.toml
