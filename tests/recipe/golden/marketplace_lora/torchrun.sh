#!/bin/bash
# trainfit recipe: 1 node x 8 GPU: TP 1, PP 1, DP 8, ZeRO-1, no recompute, micro-batch 2 x 4
# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).
# Needs ds_config.json (this recipe's deepspeed file) in the working directory.
set -e
torchrun \
  --nnodes=1 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:-0}" \
  --master-addr="${MASTER_ADDR:-127.0.0.1}" \
  --master-port=8008 \
  '<FILL: training script>' \
  --model_name_or_path meta-llama/Llama-3.1-8B \
  --dataset_name '<FILL: dataset path>' \
  --max_length 2048 \
  --per_device_train_batch_size 2 \
  --gradient_accumulation_steps 4 \
  --max_steps 1526 \
  --bf16 \
  --max_grad_norm 1.0 \
  --output_dir checkpoints \
  --save_strategy steps --save_steps 1526 --save_total_limit 2 \
  --deepspeed ds_config.json \
  --use_peft --lora_r 16 --lora_target_modules q_proj k_proj v_proj o_proj gate_proj up_proj down_proj
