#!/bin/bash
# trainfit recipe: Megatron-LM arguments for 2 nodes x 8 GPU: TP 1, PP 1, DP 16, ZeRO-3, no recompute, micro-batch 2 x 8
# torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}"   (see torchrun.sh for the launcher arguments)
unset CUDA_DEVICE_MAX_CONNECTIONS
MEGATRON_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 1
  --use-distributed-optimizer
  --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --ckpt-format fsdp_dtensor
  --micro-batch-size 2
  --global-batch-size 256
  --seq-length 4096
  --num-layers 32
  --hidden-size 4096
  --ffn-hidden-size 14336
  --num-attention-heads 32
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
  --train-iters 4769
  --lr '<FILL: learning rate>'
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>'
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Llama-3.1-8B
  --save /checkpoints --load /checkpoints
  --save-interval 596
)
