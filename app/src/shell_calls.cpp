// trainfit — facade documents asked of the shell. The web page's module carries neither the recipe writers nor the
// config.json reader (docs/performance.md, "The JS API's own module"): where App::make_documents_here is off, the App
// asks the page, which answers with the JS API module's document for the same verb and argument, read back into what
// the UI shows by the core (api.h recipe_from_document, model_from_hf_config_document: an answer that is not the
// verb's document becomes an error the UI shows, never a throw).
#include <nlohmann/json.hpp>

#include "app_impl.h"

namespace trainfit::app {

// Referenced only here: a shell that never calls it (the web page) links neither.
void App::make_documents_here(bool on) {
  impl_->write_recipe = on ? &make_recipe : nullptr;
  impl_->read_hf_config = on ? &model_from_hf_config : nullptr;
}

void App::Impl::ask_shell(ShellCall& c, std::string verb, std::string arg) {
  c = ShellCall{++shell_calls, std::move(verb), std::move(arg)};
  request("call:" + std::to_string(c.id));
}

using nlohmann::json;

// ui.call: {"verb": ..., "arg": ...} of the call numbered `id` while it is outstanding, else {} (answered, or dropped).
std::string shell_call_json(const App::Impl& s, std::string_view id) {
  for (const App::Impl::ShellCall* c : {&s.recipe_call, &s.hf_config_call})
    if (c->id && std::to_string(c->id) == id) return json{{"verb", c->verb}, {"arg", c->arg}}.dump();
  return "{}";
}

// ui.answer: "N\n" + the document answering call N; {"ok": true, "stale": true} when N is no longer outstanding.
std::string answer_shell_call(App::Impl& s, std::string_view arg) {
  const size_t nl = arg.find('\n');
  const std::string_view id = arg.substr(0, nl == std::string_view::npos ? 0 : nl);
  if (nl == std::string_view::npos || id.empty() || id.find_first_not_of("0123456789") != std::string_view::npos)
    return "{\"ok\":false,\"error\":{\"field\":\"answer\",\"message\":\"expected the call's number, a newline and the document\"}}";
  const std::string_view doc = arg.substr(nl + 1);
  if (s.recipe_call.id && std::to_string(s.recipe_call.id) == id) {
    s.recipe = recipe_from_document(doc);
    s.recipe_call = App::Impl::ShellCall{};
    return "{\"ok\":true}";
  }
  if (s.hf_config_call.id && std::to_string(s.hf_config_call.id) == id) {
    s.hf_config_call = App::Impl::ShellCall{};
    adopt_hf_config(s, model_from_hf_config_document(doc));
    return "{\"ok\":true}";
  }
  return "{\"ok\":true,\"stale\":true}";
}

}  // namespace trainfit::app
