#!/bin/bash
# trainfit recipe: 2 nodes x 8 GPU: TP 4, PP 2 (VP 2), DP 2, ZeRO-1, full recompute, micro-batch 1 x 64
# Run on every node; set NODE_RANK (0..1) and MASTER_ADDR (node 0's address).
set -e
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun \
  --nnodes=2 \
  --nproc-per-node=8 \
  --node-rank="${NODE_RANK:?set NODE_RANK}" \
  --master-addr="${MASTER_ADDR:?set MASTER_ADDR}" \
  --master-port=8008 \
  '<FILL: training script (Megatron-LM pretrain_gpt.py)>' \
  --tensor-model-parallel-size 4 \
  --pipeline-model-parallel-size 2 \
  --num-layers-per-virtual-pipeline-stage 16 \
  --sequence-parallel \
  --tp-comm-overlap \
  --use-distributed-optimizer \
  --overlap-grad-reduce --overlap-param-gather \
  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1 \
  --micro-batch-size 1 \
  --global-batch-size 128 \
  --seq-length 4096 \
  --num-layers 64 \
  --hidden-size 5120 \
  --ffn-hidden-size 27648 \
  --num-attention-heads 40 \
  --group-query-attention --num-query-groups 8 \
  --max-position-embeddings 131072 \
  --swiglu \
  --normalization RMSNorm \
  --position-embedding-type rope \
  --rotary-base 1000000 \
  --disable-bias-linear --add-qkv-bias \
  --untie-embeddings-and-output-weights \
  --padded-vocab-size 152064 \
  --attention-dropout 0.0 --hidden-dropout 0.0 \
  --bf16 \
  --clip-grad 1.0 \
  --train-iters 9537 \
  --lr '<FILL: learning rate>' \
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>' \
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen2.5-32B \
  --save checkpoints --load checkpoints \
  --save-interval 9537
