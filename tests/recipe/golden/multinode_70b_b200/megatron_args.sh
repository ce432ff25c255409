#!/bin/bash
# trainfit recipe: Megatron-LM arguments for 2 nodes x 8 GPU: TP 4, PP 2, DP 2, ZeRO-1, selective recompute, micro-batch 1 x 64
# torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}"   (see torchrun.sh for the launcher arguments)
export CUDA_DEVICE_MAX_CONNECTIONS=1
MEGATRON_ARGS=(
  --tensor-model-parallel-size 4
  --pipeline-model-parallel-size 2
  --sequence-parallel
  --tp-comm-overlap
  --use-distributed-optimizer
  --overlap-grad-reduce --overlap-param-gather
  --recompute-granularity selective
  --micro-batch-size 1
  --global-batch-size 128
  --seq-length 4096
  --num-layers 80
  --hidden-size 8192
  --ffn-hidden-size 28672
  --num-attention-heads 64
  --group-query-attention --num-query-groups 8
  --max-position-embeddings 131072
  --swiglu
  --normalization RMSNorm
  --position-embedding-type rope
  --rotary-base 500000
  --use-rope-scaling --rope-scaling-factor 8
  --disable-bias-linear
  --untie-embeddings-and-output-weights
  --padded-vocab-size 128256
  --attention-dropout 0.0 --hidden-dropout 0.0
  --bf16
  --clip-grad 1.0
  --train-iters 3815
  --lr '<FILL: learning rate>'
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>'
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Llama-3.1-70B
  --save checkpoints --load checkpoints
  --save-interval 3815
)
