// trainfit — the job panel: model (preset search, custom architecture, parameter count), method and LoRA
// settings, dataset, sequence and batches, precision, optimizer, recompute, attention, parallelism.
// Every widget edits App::Impl::draft; a finished edit calls commit(), which validates through the query parser.
// Typed numbers commit when the field is left (Enter, Tab or a click elsewhere), not on every keystroke, so
// "4" on the way to "4096" never triggers a ranking.
#include <cstdio>
#include <cctype>
#include <cstring>

#include "app_impl.h"

namespace trainfit::app {
namespace {

float field_w() { return ImGui::GetFontSize() * 10.5f; }

// The visible part of a label ("Seq len##x" -> "Seq len") for the test hooks.
void mark(const char* label) {
  const char* hash = std::strstr(label, "##");
  mark_last_item(hash ? std::string_view(label, hash - label) : std::string_view(label));
}

template <class E, size_t N>
bool enum_combo(const char* label, E* v, const E (&items)[N], const char* help = nullptr) {
  bool changed = false;
  ImGui::SetNextItemWidth(field_w());
  const bool open = ImGui::BeginCombo(label, to_string(*v));
  mark(label);  // imgui 1.86 gives combos no test-engine info: record the frame's rectangle by label
  if (open) {
    for (E e : items) {
      if (ImGui::Selectable(to_string(e), e == *v)) {
        *v = e;
        changed = true;
      }
      if (e == *v) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  if (help) help_marker(help);
  return changed;
}

bool input_i64(const char* label, int64_t* v, const char* help = nullptr) {
  ImGui::SetNextItemWidth(field_w());
  ImGui::InputScalar(label, ImGuiDataType_S64, v, nullptr, nullptr, "%lld");
  const bool done = ImGui::IsItemDeactivatedAfterEdit();
  if (help) help_marker(help);
  return done;
}
bool input_int(const char* label, int* v, const char* help = nullptr) {
  ImGui::SetNextItemWidth(field_w());
  ImGui::InputScalar(label, ImGuiDataType_S32, v, nullptr, nullptr, "%d");
  const bool done = ImGui::IsItemDeactivatedAfterEdit();
  if (help) help_marker(help);
  return done;
}
bool input_num(const char* label, double* v, const char* fmt = "%.6g", const char* help = nullptr) {
  ImGui::SetNextItemWidth(field_w());
  ImGui::InputScalar(label, ImGuiDataType_Double, v, nullptr, nullptr, fmt);
  const bool done = ImGui::IsItemDeactivatedAfterEdit();
  if (help) help_marker(help);
  return done;
}
// A value stored in base units, edited in `unit` (tokens in millions, ...).
bool input_scaled(const char* label, double* v, double unit, const char* fmt, const char* help = nullptr) {
  double shown = *v / unit;
  const bool done = input_num(label, &shown, fmt, help);
  if (done) *v = shown * unit;
  return done;
}

struct PresetInfo {
  const ModelSpec* spec;
  char label[96];   // "Llama 3.1 8B##llama-3.1-8b": the visible text is the model's name (tests click it)
  char params[32];  // "8.03 B"
};
const std::vector<PresetInfo>& presets() {
  static const std::vector<PresetInfo> list = [] {
    std::vector<PresetInfo> v;
    for (const ModelSpec& m : builtin_models()) {
      PresetInfo p{&m, {}, "?"};
      if (Result<ParamCounts> c = count_params(m)) fmt_count(p.params, sizeof p.params, c->total);
      std::snprintf(p.label, sizeof p.label, "%s##%s", m.name.c_str(), m.id.c_str());
      v.push_back(p);
    }
    return v;
  }();
  return list;
}

bool contains_ci(const char* hay, const char* needle) {
  if (!*needle) return true;
  for (const char* h = hay; *h; ++h) {
    const char* a = h;
    const char* b = needle;
    while (*a && *b && std::tolower(static_cast<unsigned char>(*a)) == std::tolower(static_cast<unsigned char>(*b))) ++a, ++b;
    if (!*b) return true;
  }
  return false;
}

// The architecture knobs (model.h): named ones as combos, the window / MoE layout / MLA sizes as integers.
bool knob_widgets(ModelSpec& m) {
  if (!ImGui::TreeNode("Architecture knobs")) return false;
  bool changed = false;
  for (std::string_view key : text_knobs()) {
    const std::string label(key);
    ImGui::SetNextItemWidth(field_w());
    const bool open = ImGui::BeginCombo(label.c_str(), text_knob(m, key));
    mark(label.c_str());
    if (open) {
      for (const char* v : text_knob_values(key)) {
        const bool is = std::strcmp(v, text_knob(m, key)) == 0;
        if (ImGui::Selectable(v, is) && !is) changed = set_text_knob(m, key, v).empty();
        if (is) ImGui::SetItemDefaultFocus();
      }
      ImGui::EndCombo();
    }
  }
  for (const IntKnob& k : int_knobs()) changed |= input_i64(k.key, &(m.*k.member));
  changed |= ImGui::Checkbox("dropout", &m.dropout);
  changed |= ImGui::Checkbox("attention_sinks", &m.attention_sinks);
  ImGui::TreePop();
  return changed;
}

}  // namespace

// A config.json's model becomes the draft's custom model (and, when `commit`, the query: an answer from the shell
// arrives between frames); a refusal is kept to show with the config field it names. True when adopted.
bool adopt_hf_config(App::Impl& s, Result<ModelSpec> m, bool commit) {
  if (!m) {
    s.hf_config_error = m.error().to_string();
    return false;
  }
  s.draft.model = std::move(m).value();
  s.draft.model_id = "custom";
  std::snprintf(s.custom_name, sizeof s.custom_name, "%s", s.draft.model.name.c_str());
  s.hf_config_error.clear();
  if (commit) s.commit();
  return true;
}

namespace {

// "Paste config.json": a Hugging Face config becomes the custom model, every knob derived by the core
// (model_from_hf_config, the same reader as the CLI's --hf-config and the JS API's hf_config; on the web page, that
// module's document: shell_calls.cpp). The text is untrusted; a refusal is shown with the config field it names and
// the current model stays.
bool hf_config_box(App::Impl& s) {
  if (!ImGui::TreeNode("Paste config.json")) return false;
  ImGui::InputTextMultiline("##hf_config", s.hf_config_text, sizeof s.hf_config_text,
                            ImVec2(-1, ImGui::GetTextLineHeight() * 6));
  mark_last_item("config.json text");
  bool changed = false;
  // Asked of the shell (shell_calls.cpp): the button stays, and a new click replaces a call not answered yet.
  if (ImGui::Button("Use this config")) {
    if (s.read_hf_config) changed = adopt_hf_config(s, s.read_hf_config(s.hf_config_text), false);
    else s.ask_shell(s.hf_config_call, "hf_config", s.hf_config_text);
  }
  mark_last_item("Use this config");
  if (s.hf_config_call.id) {
    ImGui::SameLine();
    ImGui::TextDisabled("Reading the config...");
  }
  if (!s.hf_config_error.empty()) ImGui::TextColored(error_color(), "%s", s.hf_config_error.c_str());
  ImGui::TreePop();
  return changed;
}

bool model_picker(App::Impl& s) {
  Query& d = s.draft;
  bool changed = false;
  int mode = d.model_id != "custom" ? 0 : d.model.arch == Arch::params_only ? 2 : 1;
  int new_mode = mode;
  ImGui::RadioButton("Preset", &new_mode, 0);
  ImGui::SameLine();
  ImGui::RadioButton("Architecture", &new_mode, 1);
  ImGui::SameLine();
  ImGui::RadioButton("Param count", &new_mode, 2);
  if (new_mode != mode) {
    const ModelSpec* fallback = find_model("llama-3.1-8b");
    if (!fallback && !builtin_models().empty()) fallback = &builtin_models().front();
    if (new_mode == 0) {
      if (fallback) {
        d.model = *fallback;
        d.model_id = fallback->id;
      }
    } else if (new_mode == 1) {
      // Start from the current model's architecture so the fields are filled with something sensible.
      if (d.model.arch == Arch::params_only && fallback) d.model = *fallback;
      d.model_id = "custom";
      d.model.id = "custom";
    } else {
      Result<ParamCounts> c = count_params(d.model);
      d.model = ModelSpec{};
      d.model.arch = Arch::params_only;
      d.model.params = c ? c->total : 7e9;
      d.model_id = "custom";
      d.model.id = "custom";
    }
    std::snprintf(s.custom_name, sizeof s.custom_name, "%s", new_mode == 0 ? "" : "Custom model");
    return true;
  }

  if (mode == 0) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 3.2f);
    const bool open = ImGui::BeginCombo("Model", d.model.name.c_str(), ImGuiComboFlags_HeightLarge);
    mark_last_item("Model");
    if (open) {
      if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
      ImGui::SetNextItemWidth(-1);
      ImGui::InputTextWithHint("##search", "Search models (name or id)", s.model_search, sizeof s.model_search);
      mark_last_item("Search models");
      for (const PresetInfo& p : presets()) {
        if (!contains_ci(p.label, s.model_search) && !contains_ci(p.spec->id.c_str(), s.model_search)) continue;
        const bool is = p.spec->id == d.model_id;
        if (ImGui::Selectable(p.label, is)) {
          d.model = *p.spec;
          d.model_id = p.spec->id;
          changed = true;
        }
        ImGui::SameLine(ImGui::GetFontSize() * 14);
        ImGui::TextDisabled("%s", p.params);
        if (is) ImGui::SetItemDefaultFocus();
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered() && !d.model.hf_id.empty()) ImGui::SetTooltip("Hugging Face: %s", d.model.hf_id.c_str());
    return changed;
  }
  if (mode == 2) {
    changed |= input_scaled("Parameters (B)", &d.model.params, 1e9, "%.4g",
                            "Total parameter count, in billions. Activations then come from a standard aspect "
                            "ratio (the estimate says so).");
    return changed;
  }
  // Custom architecture: the Hugging Face config.json fields.
  ImGui::SetNextItemWidth(field_w());
  if (ImGui::InputText("Name", s.custom_name, sizeof s.custom_name, ImGuiInputTextFlags_EnterReturnsTrue) ||
      ImGui::IsItemDeactivatedAfterEdit())
    changed = true;
  changed |= hf_config_box(s);
  const Arch archs[] = {Arch::gpt2,   Arch::llama,  Arch::qwen2, Arch::qwen3,       Arch::mistral, Arch::mixtral,
                        Arch::gemma2, Arch::gemma3, Arch::phi3,  Arch::falcon,      Arch::opt,     Arch::bert,
                        Arch::olmo2,  Arch::deepseek_v3, Arch::gpt_oss, Arch::llama4};
  if (enum_combo("Architecture", &d.model.arch, archs,
                 "A family is a set of defaults for the architecture knobs below; choosing one resets them.")) {
    apply_family(d.model, d.model.arch);
    changed = true;
  }
  changed |= input_i64("hidden_size", &d.model.hidden_size);
  changed |= input_i64("num_layers", &d.model.num_layers);
  changed |= input_i64("num_heads", &d.model.num_heads);
  changed |= input_i64("num_kv_heads", &d.model.num_kv_heads, "Key/value heads: equal to num_heads for MHA, fewer for GQA, 1 for MQA.");
  changed |= input_i64("head_dim", &d.model.head_dim, "0 = hidden_size / num_heads");
  changed |= input_i64("intermediate_size", &d.model.intermediate_size, "MLP inner size (per expert for MoE).");
  changed |= input_i64("vocab_size", &d.model.vocab_size);
  changed |= input_i64("max_position_embeddings", &d.model.max_position_embeddings);
  changed |= input_i64("rope_theta", &d.model.rope_theta, "Rotary base (config.json rope_theta); the Megatron recipe passes it.");
  if (ImGui::Checkbox("tie_embeddings", &d.model.tie_embeddings)) changed = true;
  changed |= input_i64("num_experts", &d.model.num_experts, "1 = dense. Fit uses all experts, compute the active ones.");
  changed |= input_i64("experts_per_token", &d.model.experts_per_token);
  changed |= knob_widgets(d.model);
  return changed;
}

// The training method, and for LoRA / QLoRA the rank and the target modules.
bool method_widgets(Query& d) {
  bool changed = false;
  const Method methods[] = {Method::full, Method::lora, Method::qlora};
  changed |= enum_combo("Method", &d.train.method, methods,
                        "full: every weight trains. lora: low-rank adapters on a frozen 16-bit base. qlora: "
                        "adapters on a 4-bit NF4 base.");
  if (d.train.method != Method::full) {
    changed |= input_int("LoRA rank", &d.train.lora_rank);
    ImGui::TextDisabled("LoRA targets:");
    static const char* kTargets[] = {"q", "k", "v", "o", "gate", "up", "down"};
    for (int i = 0; i < 7; ++i) {
      bool on = false;
      for (const auto& t : d.train.lora_targets) on |= t == kTargets[i] || t == "all";
      if (i != 0 && i != 4) ImGui::SameLine();
      char id[24];
      std::snprintf(id, sizeof id, "%s##lora", kTargets[i]);
      if (ImGui::Checkbox(id, &on)) {
        std::vector<std::string> next;
        for (int j = 0; j < 7; ++j) {
          bool has = j == i ? on : false;
          if (j != i)
            for (const auto& t : d.train.lora_targets) has |= t == kTargets[j] || t == "all";
          if (has) next.push_back(kTargets[j]);
        }
        d.train.lora_targets = next;
        changed = true;
      }
    }
  }
  return changed;
}

// How much data: tokens, or examples x length (with packing), and epochs.
bool dataset_widgets(Query& d) {
  bool changed = false;
  int by_examples = d.dataset.tokens > 0 ? 0 : 1;
  const int was = by_examples;
  ImGui::RadioButton("Tokens", &by_examples, 0);
  ImGui::SameLine();
  ImGui::RadioButton("Examples x length", &by_examples, 1);
  if (by_examples != was) {
    if (by_examples == 1) {
      const double tokens = d.dataset.tokens;
      d.dataset.tokens = 0;
      if (d.dataset.avg_tokens_per_example <= 0) d.dataset.avg_tokens_per_example = 512;
      d.dataset.examples = tokens > 0 ? tokens / d.dataset.avg_tokens_per_example : 100000;
    } else {
      d.dataset.tokens = d.dataset.examples * d.dataset.avg_tokens_per_example;
      if (!(d.dataset.tokens > 0)) d.dataset.tokens = 1e8;
    }
    changed = true;
  }
  if (by_examples == 0) {
    changed |= input_scaled("Tokens (millions)", &d.dataset.tokens, 1e6, "%.6g", "Training tokens per epoch.");
  } else {
    changed |= input_num("Examples", &d.dataset.examples, "%.0f");
    changed |= input_num("Avg tokens / example", &d.dataset.avg_tokens_per_example, "%.0f");
    if (ImGui::Checkbox("Packing", &d.dataset.packing)) changed = true;
    help_marker("Packing concatenates examples into full sequences; without it every example is padded to the "
                "sequence length and the padding is computed too.");
  }
  changed |= input_num("Epochs", &d.dataset.epochs, "%.3g");
  return changed;
}

// The training knobs: sequence, batches, precision, framework, optimizer, recompute, attention, reduce, CP scheme.
bool training_widgets(Query& d) {
  bool changed = false;
  changed |= input_i64("Seq len", &d.train.seq_len, "Tokens per sequence.");
  changed |= input_i64("Global batch", &d.train.global_batch,
                       "Sequences per optimizer step; 0 = about 64, a multiple of the data-parallel degree (the plan says which).");
  changed |= input_i64("Micro-batch", &d.train.micro_batch,
                       "Sequences per GPU per micro-step (the planner may choose another with auto parallelism).");
  const Precision precisions[] = {Precision::automatic, Precision::bf16_mixed, Precision::fp16_mixed, Precision::bf16,
                                  Precision::fp8_mixed, Precision::fp32};
  changed |= enum_combo("Precision", &d.train.precision, precisions,
                        "auto: bf16-mixed where the GPU has BF16, fp16-mixed on the others (T4, V100). "
                        "bf16-mixed keeps fp32 master weights; bf16 (pure) does not.");
  const Framework frameworks[] = {Framework::generic,       Framework::hf_trainer, Framework::torchtune,
                                  Framework::litgpt,        Framework::megatron_core, Framework::nanotron,
                                  Framework::torchtitan};
  changed |= enum_combo("Framework", &d.train.framework, frameworks,
                        "The trainer you run: the planner only proposes layouts it can launch (QLoRA under "
                        "hf-trainer: DDP or FSDP, never TP/PP), and its buffers count in the memory "
                        "(megatron-core, nanotron: fp32 gradient accumulation).");
  const Optimizer optimizers[] = {Optimizer::adamw, Optimizer::adamw_8bit, Optimizer::sgd, Optimizer::sgd_momentum,
                                  Optimizer::adafactor, Optimizer::lion};
  changed |= enum_combo("Optimizer", &d.train.optimizer, optimizers);
  const Recompute recomputes[] = {Recompute::automatic, Recompute::none, Recompute::selective, Recompute::full};
  changed |= enum_combo("Recompute", &d.train.recompute, recomputes,
                        "Activation recomputation. auto lets the planner choose per instance.");
  // Megatron-Core's --recompute-modules: what `selective` re-runs (the query's recompute_modules). Also shown when a
  // list is set that the job refuses (another framework, recompute none or full), so it can be cleared here.
  if ((d.train.framework == Framework::megatron_core && d.train.recompute != Recompute::none &&
       d.train.recompute != Recompute::full) ||
      d.train.recompute_modules != kRecomputeCoreAttn) {
    ImGui::TextDisabled("Recompute modules:");
    help_marker("What selective recompute re-runs under megatron-core (--recompute-modules). core_attn: the "
                "attention core (the default); layernorm: MoE and MLA layers' norms; moe_act: the experts' "
                "activation; mla_up_proj: MLA's up-projections; mlp: dense layers' MLPs; shared_experts; moe: the "
                "whole MoE block, its all-to-alls included.");
    // As many boxes per line as the pane's width holds (the job pane is narrow; a phone's is wider).
    const ImGuiStyle& st = ImGui::GetStyle();
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    bool first = true;
    for (const auto& m : kRecomputeModules) {
      const float w = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(m.name).x;
      if (!first && ImGui::GetItemRectMax().x + st.ItemSpacing.x + w <= right) ImGui::SameLine();
      first = false;
      bool on = (d.train.recompute_modules & m.value) != 0;
      char id[40];
      std::snprintf(id, sizeof id, "%s##rcm", m.name);
      if (ImGui::Checkbox(id, &on)) {
        d.train.recompute_modules = on ? (d.train.recompute_modules | m.value) : (d.train.recompute_modules & ~uint32_t(m.value));
        changed = true;
      }
    }
  }
  const Attention attentions[] = {Attention::flash, Attention::eager};
  changed |= enum_combo("Attention", &d.train.attention, attentions);
  const GradReduce reduces[] = {GradReduce::automatic, GradReduce::fp32, GradReduce::bf16};
  changed |= enum_combo("Gradient reduce", &d.train.grad_reduce, reduces,
                        "dtype of the data-parallel gradient buffer and its reduction. auto: the framework's "
                        "(fp32 under megatron-core and nanotron); bf16 = Megatron's --grad-reduce-in-bf16.");
  // torch.compile: shown under torchtitan (the one profile fitted to compiled runs), and while set, so it can be cleared.
  if (d.train.framework == Framework::torchtitan || d.train.compile != Compile::automatic) {
    const Compile compiles[] = {Compile::automatic, Compile::on, Compile::off};
    changed |= enum_combo("torch.compile", &d.train.compile, compiles,
                          "auto: the framework's (on under torchtitan, as its published runs and the recipe). off: "
                          "eager, ~14% slower and, under op-level selective checkpointing, each layer's attention "
                          "inputs kept.");
  }

  changed |= input_int("Loss chunks", &d.train.loss_chunks,
                       "Chunks the logits and the loss are computed in; 0: the framework's (8 under torchtune and "
                       "torchtitan, whose ChunkedLossWrapper runs each chunk's backward at once), 1: the whole batch.");

  // Shown for a mixture-of-experts model, and while set (a dense model refuses them: they stay clearable).
  if (d.model.num_experts > 1 || d.train.moe_capacity_factor != 0 || d.train.moe_imbalance != 1 ||
      d.train.moe_dispatcher != MoeDispatcher::automatic || d.train.moe_a2a_overlap) {
    changed |= input_num("Expert capacity", &d.train.moe_capacity_factor, "%.3g",
                         "Each expert's token capacity over its balanced share, every expert padded to it "
                         "(megatron-core only: --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity); "
                         "0: dropless, every routed token computed. Not with a routing imbalance.");
    changed |= input_num("Routing imbalance", &d.train.moe_imbalance, "%.3g",
                         "Dropless routing: the busiest expert-parallel rank's routed tokens over the mean (1: "
                         "balanced, as benchmarks force it). Its expert GEMMs, all-to-alls and buffers set the pace "
                         "and the peak; without expert parallelism it changes nothing.");
    const MoeDispatcher dispatchers[] = {MoeDispatcher::automatic, MoeDispatcher::alltoall, MoeDispatcher::deepep};
    changed |= enum_combo("EP dispatcher", &d.train.moe_dispatcher, dispatchers,
                          "How expert parallelism sends tokens to the experts. alltoall: once per routed expert "
                          "(torchtitan's default path, megatron-core alltoall); deepep: DeepEP's fused kernels, once "
                          "per destination node (megatron-core flex, torchtitan use_deepep). auto: the framework's "
                          "(megatron-core DeepEP across nodes).");
    if (ImGui::Checkbox("Overlap EP all-to-alls", &d.train.moe_a2a_overlap)) changed = true;
    help_marker("megatron-core's --overlap-moe-expert-parallel-comm: one micro-batch's dispatch and combine run "
                "while another computes. Only layouts with EP > 1, VP > 1 when PP > 1 and no full recompute; one "
                "micro-batch more is in flight.");
  }

  const CpScheme schemes[] = {CpScheme::automatic, CpScheme::ring, CpScheme::ulysses};
  changed |= enum_combo("CP scheme", &d.train.cp_scheme, schemes,
                        "How context parallelism splits attention at long sequences. ring: K/V blocks passed around "
                        "the ranks (Megatron CP, torchtitan; hf-trainer through accelerate, under FSDP2 with SDPA); "
                        "ulysses: all-to-alls to a split by heads (DeepSpeed Ulysses / ALST, hf-trainer's default). "
                        "auto: the framework's default, and a searched plan takes the other scheme where the framework runs both "
                        "and it is at least 2% faster, or the default finds no plan.");
  return changed;
}

// The parallel layout: auto, or TP / PP / DP / CP (and EP for MoE), ZeRO, sequence parallel, offload.
bool parallel_widgets(Query& d) {
  bool changed = false;
  ParallelConfig& p = d.train.parallel;
  bool automatic = p.automatic;
  if (ImGui::Checkbox("Parallelism: auto", &automatic)) {
    p = ParallelConfig{};
    p.automatic = automatic;
    changed = true;
  }
  help_marker("auto: for each instance the planner picks TP, PP, DP, ZeRO stage, recompute, offload and micro-batch "
              "and the node count. Off: your layout is evaluated as given.");
  if (!p.automatic) {
    bool layout = false;
    layout |= input_int("TP", &p.tp, "Tensor parallel: must divide the attention heads.");
    layout |= input_int("PP", &p.pp, "Pipeline stages: at most the layer count.");
    layout |= input_int("DP", &p.dp);
    layout |= input_int("CP", &p.cp, "Context parallel.");
    if (layout) p.gpus = p.tp * p.pp * p.dp * p.cp;
    changed |= layout;
    if (d.model.num_experts > 1) {  // expert parallelism: carved out of the TP x CP x DP ranks, no GPUs added
      changed |= input_int("EP", &p.ep, "Expert parallel: the routed experts split over EP ranks taken from "
                                        "TP x CP x DP; must divide the experts.");
      changed |= input_int("Expert TP", &p.etp, "Expert tensor parallel; 0 = TP (Megatron-Core's default).");
    }
    ImGui::TextDisabled("GPUs: %d", p.tp * p.pp * p.dp * p.cp);
    ImGui::SetNextItemWidth(field_w());
    if (ImGui::SliderInt("ZeRO stage", &p.zero, 0, 3)) changed = true;
    if (ImGui::Checkbox("Sequence parallel", &p.sequence_parallel)) changed = true;
    if (ImGui::Checkbox("Offload optimizer", &p.offload_optimizer)) changed = true;
    if (ImGui::Checkbox("Offload params", &p.offload_params)) changed = true;
  }
  return changed;
}

}  // namespace

void draw_job_panel(App::Impl& s) {
  Query& d = s.draft;
  bool changed = false;
  ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Job")) {
    changed |= model_picker(s);
    if (s.params && s.draft.model_id == s.query.model_id) {
      char a[32], b[32];
      ImGui::TextDisabled("%s parameters, %s active per token", fmt_count(a, sizeof a, s.params->total),
                          fmt_count(b, sizeof b, s.params->active));
    }

    changed |= method_widgets(d);
    ImGui::Separator();
    changed |= dataset_widgets(d);
    ImGui::Separator();
    changed |= training_widgets(d);
    ImGui::Separator();
    changed |= parallel_widgets(d);
  }
  if (ImGui::CollapsingHeader("Advanced estimate")) {
    changed |= input_scaled("Headroom %", &d.train.headroom, 0.01, "%.3g", "VRAM kept free when judging fit.");
    changed |= input_scaled("MFU override %", &d.mfu, 0.01, "%.3g",
                            "0 = the calibrated default. Set it from a measured run to recalibrate times.");
  }
  if (changed) s.commit();
}

}  // namespace trainfit::app
