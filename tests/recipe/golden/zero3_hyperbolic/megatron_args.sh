#!/bin/bash
# trainfit recipe: Megatron-LM arguments for 1 node x 2 GPU: TP 1, PP 1, DP 2, ZeRO-3, selective recompute, micro-batch 2 x 8
# torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}"   (see torchrun.sh for the launcher arguments)
unset CUDA_DEVICE_MAX_CONNECTIONS
MEGATRON_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 1
  --use-distributed-optimizer
  --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --ckpt-format fsdp_dtensor
  --recompute-granularity selective
  --micro-batch-size 2
  --global-batch-size 32
  --seq-length 2048
  --num-layers 28
  --hidden-size 3072
  --ffn-hidden-size 8192
  --num-attention-heads 24
  --group-query-attention --num-query-groups 8
  --max-position-embeddings 131072
  --swiglu
  --normalization RMSNorm
  --position-embedding-type rope
  --rotary-base 500000
  --use-rope-scaling --rope-scaling-factor 32
  --disable-bias-linear
  --padded-vocab-size 128256
  --attention-dropout 0.0 --hidden-dropout 0.0
  --bf16
  --clip-grad 1.0
  --train-iters 3052
  --lr '<FILL: learning rate>'
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>'
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Llama-3.2-3B
  --save checkpoints --load checkpoints
  --save-interval 3052
)
