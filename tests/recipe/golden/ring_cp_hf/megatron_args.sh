#!/bin/bash
# trainfit recipe: Megatron-LM arguments for 1 node x 8 GPU: TP 1, PP 1, DP 2, CP 4, ZeRO-3, full recompute, micro-batch 1 x 4
# torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}"   (see torchrun.sh for the launcher arguments)
unset CUDA_DEVICE_MAX_CONNECTIONS
MEGATRON_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 1
  --context-parallel-size 4
  --use-distributed-optimizer
  --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --ckpt-format fsdp_dtensor
  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1
  --micro-batch-size 1
  --global-batch-size 8
  --seq-length 65536
  --num-layers 36
  --hidden-size 2560
  --ffn-hidden-size 9728
  --num-attention-heads 32
  --group-query-attention --num-query-groups 8
  --max-position-embeddings 65536
  --swiglu
  --normalization RMSNorm
  --position-embedding-type rope
  --rotary-base 1000000
  --disable-bias-linear
  --qk-layernorm
  --kv-channels 128
  --padded-vocab-size 151936
  --attention-dropout 0.0 --hidden-dropout 0.0
  --bf16
  --clip-grad 1.0
  --train-iters 3815
  --lr '<FILL: learning rate>'
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>'
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen3-4B
  --save checkpoints --load checkpoints
  --save-interval 3815
)
