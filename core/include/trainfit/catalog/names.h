// trainfit core — the one spelling of every job enum: what JSON, URL hashes, CLI flags, UI combos, recipes and the
// framework profiles print and read. (The query's own enums, sort keys and filters, are named in query/.)
#pragma once
#include <string>
#include <vector>

#include "trainfit/base/enum_names.h"
#include "trainfit/catalog/job.h"

namespace trainfit {

inline constexpr EnumName<Method> kMethods[] = {{Method::full, "full"}, {Method::lora, "lora"}, {Method::qlora, "qlora"}};
inline constexpr EnumName<Precision> kPrecisions[] = {{Precision::fp32, "fp32"},
                                               {Precision::bf16_mixed, "bf16-mixed"},
                                               {Precision::fp16_mixed, "fp16-mixed"},
                                               {Precision::bf16, "bf16"},
                                               {Precision::fp8_mixed, "fp8-mixed"},
                                               {Precision::automatic, "auto"}};
inline constexpr EnumName<Optimizer> kOptimizers[] = {{Optimizer::adamw, "adamw"},         {Optimizer::adamw_8bit, "adamw-8bit"},
                                               {Optimizer::sgd, "sgd"},             {Optimizer::sgd_momentum, "sgd-momentum"},
                                               {Optimizer::adafactor, "adafactor"}, {Optimizer::lion, "lion"}};
inline constexpr EnumName<Recompute> kRecomputes[] = {{Recompute::none, "none"},
                                               {Recompute::selective, "selective"},
                                               {Recompute::full, "full"},
                                               {Recompute::automatic, "auto"}};
// Megatron-Core's module names (--recompute-modules), in the order trainfit writes them.
inline constexpr EnumName<RecomputeModule> kRecomputeModules[] = {
    {kRecomputeCoreAttn, "core_attn"}, {kRecomputeLayernorm, "layernorm"},   {kRecomputeMoeAct, "moe_act"},
    {kRecomputeMlaUpProj, "mla_up_proj"}, {kRecomputeMlp, "mlp"}, {kRecomputeSharedExperts, "shared_experts"},
    {kRecomputeMoe, "moe"}};
inline constexpr EnumName<Attention> kAttentions[] = {{Attention::flash, "flash"}, {Attention::eager, "eager"}};
inline constexpr EnumName<CpScheme> kCpSchemes[] = {
    {CpScheme::automatic, "auto"}, {CpScheme::ring, "ring"}, {CpScheme::ulysses, "ulysses"}};
inline constexpr EnumName<MoeDispatcher> kMoeDispatchers[] = {
    {MoeDispatcher::automatic, "auto"}, {MoeDispatcher::alltoall, "alltoall"}, {MoeDispatcher::deepep, "deepep"}};
inline constexpr EnumName<GradReduce> kGradReduces[] = {
    {GradReduce::automatic, "auto"}, {GradReduce::fp32, "fp32"}, {GradReduce::bf16, "bf16"}};
inline constexpr EnumName<Compile> kCompiles[] = {
    {Compile::automatic, "auto"}, {Compile::on, "on"}, {Compile::off, "off"}};
// The profiles' names (framework.h; framework.cpp holds what each supports).
inline constexpr EnumName<Framework> kFrameworks[] = {{Framework::generic, "generic"},
                                               {Framework::hf_trainer, "hf-trainer"},
                                               {Framework::torchtune, "torchtune"},
                                               {Framework::litgpt, "litgpt"},
                                               {Framework::megatron_core, "megatron-core"},
                                               {Framework::nanotron, "nanotron"},
                                               {Framework::torchtitan, "torchtitan"}};
inline constexpr EnumName<Arch> kArchs[] = {
    {Arch::gpt2, "gpt2"},     {Arch::llama, "llama"},       {Arch::qwen2, "qwen2"},     {Arch::mistral, "mistral"},
    {Arch::mixtral, "mixtral"}, {Arch::gemma2, "gemma2"},   {Arch::phi3, "phi3"},       {Arch::falcon, "falcon"},
    {Arch::opt, "opt"},       {Arch::bert, "bert"},         {Arch::qwen3, "qwen3"},     {Arch::gemma3, "gemma3"},
    {Arch::olmo2, "olmo2"},   {Arch::deepseek_v3, "deepseek_v3"}, {Arch::gpt_oss, "gpt_oss"},
    {Arch::llama4, "llama4"}, {Arch::params_only, "params"}};

const char* to_string(Method m);
const char* to_string(Precision p);
const char* to_string(Optimizer o);
const char* to_string(Recompute r);
const char* to_string(CpScheme s);
const char* to_string(MoeDispatcher d);
const char* to_string(Attention a);
const char* to_string(GradReduce g);
const char* to_string(Compile c);
const char* to_string(Framework f);
const char* to_string(Arch a);
// A RecomputeModule set as Megatron spells it, in kRecomputeModules' order: the names, or one text with `sep`
// between them ("layernorm moe"; "" for the empty set).
std::vector<std::string> recompute_module_names(uint32_t modules);
std::string recompute_modules_text(uint32_t modules, const char* sep);

}  // namespace trainfit
