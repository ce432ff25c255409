#!/bin/bash
# trainfit recipe: 1 node x 8 GPU: TP 1, PP 1, DP 2, CP 4, ZeRO-3, full recompute, micro-batch 1 x 4
# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).
set -e
export ACCELERATE_USE_PARALLELISM_CONFIG=true
export PARALLELISM_CONFIG_DP_REPLICATE_SIZE=1
export PARALLELISM_CONFIG_DP_SHARD_SIZE=2
export PARALLELISM_CONFIG_CP_SIZE=4
export PARALLELISM_CONFIG_CP_BACKEND=torch
export PARALLELISM_CONFIG_CP_COMM_STRATEGY=allgather
export ACCELERATE_USE_FSDP=true
export FSDP_VERSION=2
export FSDP_RESHARD_AFTER_FORWARD=true
export FSDP_OFFLOAD_PARAMS=false
export FSDP_AUTO_WRAP_POLICY=TRANSFORMER_BASED_WRAP
export FSDP_STATE_DICT_TYPE=SHARDED_STATE_DICT
export FSDP_ACTIVATION_CHECKPOINTING=true
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
  --max_grad_norm 1.0 \
  --output_dir checkpoints \
  --save_strategy steps --save_steps 3815 --save_total_limit 2
