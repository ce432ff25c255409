#!/bin/bash
# trainfit recipe: 1 node x 8 GPU: TP 1, PP 1, DP 8, EP 8 (ETP 1, DeepEP), ZeRO-1, no recompute, micro-batch 1 x 32
# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).
set -e
torchrun \
  --nnodes=1 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:-0}" \
  --master-addr="${MASTER_ADDR:-127.0.0.1}" \
  --master-port=8008 \
  '<FILL: training script (Megatron-LM pretrain_gpt.py)>' \
  --tensor-model-parallel-size 1 \
  --pipeline-model-parallel-size 1 \
  --expert-model-parallel-size 8 \
  --use-distributed-optimizer \
  --overlap-grad-reduce --overlap-param-gather \
  --micro-batch-size 1 \
  --global-batch-size 256 \
  --seq-length 4096 \
  --num-layers 48 \
  --hidden-size 2048 \
  --ffn-hidden-size 6144 \
  --num-attention-heads 32 \
  --group-query-attention --num-query-groups 4 \
  --max-position-embeddings 40960 \
  --num-experts 128 --moe-router-topk 8 \
  --moe-ffn-hidden-size 768 \
  --moe-grouped-gemm \
  --moe-token-dispatcher-type flex --moe-enable-deepep \
  --swiglu \
  --normalization RMSNorm \
  --position-embedding-type rope \
  --rotary-base 1000000 \
  --disable-bias-linear \
  --qk-layernorm \
  --kv-channels 128 \
  --untie-embeddings-and-output-weights \
  --padded-vocab-size 151936 \
  --attention-dropout 0.0 --hidden-dropout 0.0 \
  --bf16 \
  --clip-grad 1.0 \
  --train-iters 9537 \
  --lr '<FILL: learning rate>' \
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>' \
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen3-30B-A3B \
  --save checkpoints --load checkpoints \
  --save-interval 9537
