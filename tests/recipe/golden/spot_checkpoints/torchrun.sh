#!/bin/bash
# trainfit recipe: 2 nodes x 8 GPU: TP 1, PP 1, DP 16, ZeRO-3, no recompute, micro-batch 2 x 8
# Run on every node; set NODE_RANK (0..1) and MASTER_ADDR (node 0's address).
# Needs ds_config.json (this recipe's deepspeed file) in the working directory.
set -e
RESUME=""
LAST=$(ls -d /checkpoints/checkpoint-* 2>/dev/null | sort -V | tail -n 1)
if [ -n "$LAST" ]; then RESUME="--resume_from_checkpoint $LAST"; fi
torchrun \
  --nnodes=2 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:?set NODE_RANK}" \
  --master-addr="${MASTER_ADDR:?set MASTER_ADDR}" \
  --master-port=8008 \
  '<FILL: training script>' \
  --model_name_or_path meta-llama/Llama-3.1-8B \
  --dataset_name '<FILL: dataset path>' \
  --max_length 4096 \
  --per_device_train_batch_size 2 \
  --gradient_accumulation_steps 8 \
  --max_steps 4769 \
  --bf16 \
  --max_grad_norm 1.0 \
  --output_dir /checkpoints \
  --save_strategy steps --save_steps 596 --save_total_limit 2 \
  --deepspeed ds_config.json \
  $RESUME
