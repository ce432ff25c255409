// trainfit core — names.h: each job enum's name from its one table.
#include "trainfit/catalog/names.h"

namespace trainfit {

const char* to_string(Method m) { return enum_name(kMethods, m); }
const char* to_string(Precision p) { return enum_name(kPrecisions, p); }
const char* to_string(Framework f) { return enum_name(kFrameworks, f); }
const char* to_string(Optimizer o) { return enum_name(kOptimizers, o); }
const char* to_string(Recompute r) { return enum_name(kRecomputes, r); }
const char* to_string(CpScheme s) { return enum_name(kCpSchemes, s); }
const char* to_string(Attention a) { return enum_name(kAttentions, a); }
const char* to_string(MoeDispatcher d) { return enum_name(kMoeDispatchers, d); }
const char* to_string(GradReduce g) { return enum_name(kGradReduces, g); }
const char* to_string(Compile c) { return enum_name(kCompiles, c); }
const char* to_string(Arch a) { return enum_name(kArchs, a); }

std::vector<std::string> recompute_module_names(uint32_t modules) {
  std::vector<std::string> out;
  for (const auto& m : kRecomputeModules)
    if (modules & m.value) out.push_back(m.name);
  return out;
}

std::string recompute_modules_text(uint32_t modules, const char* sep) {
  std::string out;
  for (const std::string& name : recompute_module_names(modules)) out += (out.empty() ? "" : sep) + name;
  return out;
}

}  // namespace trainfit
