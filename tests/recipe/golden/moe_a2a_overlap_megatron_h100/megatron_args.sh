#!/bin/bash
# trainfit recipe: Megatron-LM arguments for 2 nodes x 8 GPU: TP 1, PP 2 (VP 4), DP 8, EP 8 (ETP 1, overlapped), ZeRO-1, selective (layernorm, moe_act) recompute, micro-batch 1 x 64
# torchrun ... pretrain_gpt.py "${MEGATRON_ARGS[@]}"   (see torchrun.sh for the launcher arguments)
export CUDA_DEVICE_MAX_CONNECTIONS=32
MEGATRON_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 2
  --expert-model-parallel-size 8
  --num-layers-per-virtual-pipeline-stage 6
  --use-distributed-optimizer
  --overlap-grad-reduce --overlap-param-gather
  --recompute-granularity selective --recompute-modules layernorm moe_act
  --micro-batch-size 1
  --global-batch-size 512
  --seq-length 4096
  --num-layers 48
  --hidden-size 2048
  --ffn-hidden-size 6144
  --num-attention-heads 32
  --group-query-attention --num-query-groups 4
  --max-position-embeddings 40960
  --num-experts 128 --moe-router-topk 8
  --moe-ffn-hidden-size 768
  --moe-grouped-gemm
  --moe-token-dispatcher-type alltoall
  --overlap-moe-expert-parallel-comm
  --swiglu
  --normalization RMSNorm
  --position-embedding-type rope
  --rotary-base 1000000
  --disable-bias-linear
  --qk-layernorm
  --kv-channels 128
  --untie-embeddings-and-output-weights
  --padded-vocab-size 151936
  --attention-dropout 0.0 --hidden-dropout 0.0
  --bf16 --fp8-format hybrid
  --clip-grad 1.0
  --train-iters 4769
  --lr '<FILL: learning rate>'
  --data-path '<FILL: dataset path (Megatron indexed dataset prefix)>'
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen3-30B-A3B
  --save checkpoints --load checkpoints
  --save-interval 4769
)
