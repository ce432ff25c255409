"""Measured peak memory and step time of small training runs on one GPU, to hold trainfit's estimator to.

Runs on the lent GPU machine (PyTorch + transformers there; nothing is downloaded: the models are random-init from
configs written here). Each case trains a Hugging Face causal LM for a few steps in pure bf16 (bf16 weights,
torch.optim.AdamW(fused) with bf16 states: trainfit's precision "bf16"), zero_grad(set_to_none=True), SDPA
attention, and reports torch.cuda.max_memory_allocated / max_memory_reserved over the timed steps and the median
step time (CUDA events). Output: one JSON line per case on stdout and in $OUT/results.jsonl, plus each case's
config.json (for `trainfit estimate --hf-config`).
Usage: python3 bench/device/measure_moe_longctx.py [OUT_DIR]
"""
import json
import os
import sys
import time

import torch
import transformers
from transformers import AutoModelForCausalLM, LlamaConfig, Qwen3MoeConfig

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "out")
os.makedirs(OUT, exist_ok=True)


def qwen3_moe(layers):
    # Qwen/Qwen3-30B-A3B config.json shape, fewer layers (all MoE, decoder_sparse_step 1).
    return Qwen3MoeConfig(vocab_size=151936, hidden_size=2048, intermediate_size=6144, moe_intermediate_size=768,
                          num_hidden_layers=layers, num_attention_heads=32, num_key_value_heads=4, head_dim=128,
                          num_experts=128, num_experts_per_tok=8, decoder_sparse_step=1, norm_topk_prob=True,
                          max_position_embeddings=40960, rope_theta=1e6, tie_word_embeddings=False,
                          rms_norm_eps=1e-6, output_router_logits=False)


def llama_1b(layers=16):
    # meta-llama/Llama-3.2-1B config.json shape (tied embeddings).
    return LlamaConfig(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=layers,
                       num_attention_heads=32, num_key_value_heads=8, head_dim=64, max_position_embeddings=131072,
                       rope_theta=500000.0, tie_word_embeddings=True, rms_norm_eps=1e-5)


def run(name, cfg, mb, seq, steps=4, warmup=2):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    torch.manual_seed(0)
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation="sdpa")
        except TypeError:  # transformers < 4.56 names it torch_dtype
            model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16, attn_implementation="sdpa")
    model.train()
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    cfg.to_json_file(os.path.join(OUT, name + ".config.json"), use_diff=False)  # every field, defaults too
    res = {"case": name, "mb": mb, "seq": seq, "params": n_params, "torch": torch.__version__,
           "transformers": transformers.__version__, "gpu": torch.cuda.get_device_name(0),
           "attn_implementation": str(getattr(model.config, "_attn_implementation", None)),
           "experts_implementation": str(getattr(model.config, "_experts_implementation", None)),
           "param_dtype": str(next(model.parameters()).dtype)}
    try:
        times = []
        for i in range(warmup + steps):
            ids = torch.randint(0, cfg.vocab_size, (mb, seq), device="cuda")
            if i == warmup:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            b.record()
            torch.cuda.synchronize()
            if i >= warmup:
                times.append(a.elapsed_time(b) / 1000.0)
            if not torch.isfinite(loss):
                raise RuntimeError("loss is not finite")
        times.sort()
        res.update(ok=True, step_s=times[len(times) // 2], step_s_all=times,
                   tokens_per_s=mb * seq / times[len(times) // 2],
                   peak_allocated_GiB=torch.cuda.max_memory_allocated() / 2**30,
                   peak_reserved_GiB=torch.cuda.max_memory_reserved() / 2**30)
    except torch.cuda.OutOfMemoryError as e:
        res.update(ok=False, error="OOM: " + str(e)[:200],
                   peak_reserved_GiB=torch.cuda.max_memory_reserved() / 2**30)
    del opt, model
    torch.cuda.empty_cache()
    line = json.dumps(res)
    print(line, flush=True)
    with open(os.path.join(OUT, "results.jsonl"), "a") as f:
        f.write(line + "\n")


if __name__ == "__main__":
    t0 = time.time()
    cases = [
        ("qwen3moe_6L_mb1_s4096", qwen3_moe(6), 1, 4096),
        ("qwen3moe_6L_mb4_s4096", qwen3_moe(6), 4, 4096),
        ("qwen3moe_12L_mb2_s4096", qwen3_moe(12), 2, 4096),
        ("llama1b_mb1_s8192", llama_1b(), 1, 8192),
        ("llama1b_mb1_s32768", llama_1b(), 1, 32768),
        ("llama1b_mb1_s65536", llama_1b(), 1, 65536),
    ]
    only = os.environ.get("CASES")
    for name, cfg, mb, seq in cases:
        if only and name not in only.split(","):
            continue
        run(name, cfg, mb, seq)
        print("elapsed %.0f s" % (time.time() - t0), flush=True)
