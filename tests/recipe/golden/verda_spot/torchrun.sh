#!/bin/bash
# trainfit recipe: 1 node x 2 GPU: TP 1, PP 1, DP 2, ZeRO-1, no recompute, micro-batch 16 x 2
# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).
# Needs ds_config.json (this recipe's deepspeed file) in the working directory.
set -e
RESUME=""
LAST=$(ls -d /checkpoints/checkpoint-* 2>/dev/null | sort -V | tail -n 1)
if [ -n "$LAST" ]; then RESUME="--resume_from_checkpoint $LAST"; fi
torchrun \
  --nnodes=1 \
  --nproc-per-node=2 \
  --node-rank="${NODE_RANK:-0}" \
  --master-addr="${MASTER_ADDR:-127.0.0.1}" \
  --master-port=8008 \
  '<FILL: training script>' \
  --model_name_or_path meta-llama/Llama-3.2-1B \
  --dataset_name '<FILL: dataset path>' \
  --max_length 2048 \
  --per_device_train_batch_size 16 \
  --gradient_accumulation_steps 2 \
  --max_steps 38147 \
  --bf16 \
  --max_grad_norm 1.0 \
  --output_dir /checkpoints \
  --save_strategy steps --save_steps 6357 --save_total_limit 2 \
  --deepspeed ds_config.json \
  $RESUME
