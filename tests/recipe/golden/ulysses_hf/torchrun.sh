#!/bin/bash
# trainfit recipe: 1 node x 8 GPU: TP 1, PP 1, DP 2, CP 4 (Ulysses), ZeRO-3, full recompute, micro-batch 1 x 4
# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).
# Needs ds_config.json (this recipe's deepspeed file) in the working directory.
set -e
export ACCELERATE_USE_PARALLELISM_CONFIG=true
export PARALLELISM_CONFIG_DP_REPLICATE_SIZE=1
export PARALLELISM_CONFIG_DP_SHARD_SIZE=2
export PARALLELISM_CONFIG_SP_SIZE=4
export PARALLELISM_CONFIG_SP_BACKEND=deepspeed
export PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE=true
export PARALLELISM_CONFIG_SP_ATTN_IMPLEMENTATION=flash_attention_2
torchrun \
  --nnodes=1 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:-0}" \
  --master-addr="${MASTER_ADDR:-127.0.0.1}" \
  --master-port=8008 \
  '<FILL: training script>' \
  --model_name_or_path Qwen/Qwen3-4B \
  --dataset_name '<FILL: dataset path>' \
  --max_length 65536 \
  --per_device_train_batch_size 1 \
  --gradient_accumulation_steps 4 \
  --max_steps 3815 \
  --bf16 \
  --gradient_checkpointing \
  --max_grad_norm 1.0 \
  --output_dir checkpoints \
  --save_strategy steps --save_steps 3815 --save_total_limit 2 \
  --deepspeed ds_config.json
