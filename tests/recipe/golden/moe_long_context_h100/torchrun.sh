#!/bin/bash
# trainfit recipe: 32 nodes x 8 GPU: TP 4, PP 8 (VP 4), DP 4, CP 2, EP 8 (ETP 1), ZeRO-1, selective (layernorm, moe) recompute, micro-batch 1 x 64
# Run on every node; set NODE_RANK (0..31) and MASTER_ADDR (node 0's address).
set -e
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun \
  --nnodes=32 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:?set NODE_RANK}" \
  --master-addr="${MASTER_ADDR:?set MASTER_ADDR}" \
  --master-port=8008 \
  '<FILL: training script (Megatron-LM pretrain_gpt.py)>' \
  --tensor-model-parallel-size 4 \
  --pipeline-model-parallel-size 8 \
  --context-parallel-size 2 \
  --expert-model-parallel-size 8 \
  --expert-tensor-parallel-size 1 \
  --account-for-embedding-in-pipeline-split \
  --account-for-loss-in-pipeline-split \
  --num-virtual-stages-per-pipeline-rank 4 \
  --sequence-parallel \
  --tp-comm-overlap \
  --use-distributed-optimizer \
  --overlap-grad-reduce --overlap-param-gather \
  --recompute-granularity selective --recompute-modules layernorm moe \
  --micro-batch-size 1 \
  --global-batch-size 256 \
  --seq-length 32768 \
  --num-layers 94 \
  --hidden-size 4096 \
  --ffn-hidden-size 12288 \
  --num-attention-heads 64 \
  --group-query-attention --num-query-groups 4 \
  --max-position-embeddings 40960 \
  --num-experts 128 --moe-router-topk 8 \
  --moe-ffn-hidden-size 1536 \
  --moe-grouped-gemm \
  --moe-token-dispatcher-type alltoall \
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
  --train-iters 1193 \
  --lr '<FILL: learning rate>' \
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>' \
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen3-235B-A22B \
  --save checkpoints --load checkpoints \
  --save-interval 1193
