// trainfit — the Launch section of the detail view: the selected row's launch files (recipe.h), a tab per format
// with a copy button. The recipe is made here (the desktop app, the tests: App::make_documents_here) or asked of the
// shell (the web page, whose first module carries no recipe writers: docs/performance.md, "The JS API's own
// module"), which answers with the facade's `recipe` document for the same query (shell_calls.cpp).
#include <algorithm>
#include <cstdio>

#include "app_impl.h"

namespace trainfit::app {

// The selected row's launch recipe, once per (ranking, selection), asked for this row exactly: its offer,
// pricing option and node count.
void App::Impl::ensure_recipe() {
  update_detail();
  if (!recipe_pending) return;
  recipe_pending = false;
  const RankRow* r = selected_row();
  if (!r) return;
  Query rq = query;
  rq.target.offer = snapshot.offers[r->offer].id;
  rq.target.pricing = pricing_filter_of(r->option);
  rq.target.nodes = r->nodes;
  if (write_recipe) {
    recipe = write_recipe(rq, snapshot);
    return;
  }
  recipe = Error{"", "waiting"};
  ask_shell(recipe_call, "recipe", query_to_json(rq));  // answered in shell_calls.cpp
}

// Launch: one tab per recipe format, the file as text and a copy button (the shells forward App::clipboard).
void draw_launch(App::Impl& s) {
  detail_heading("Launch");
  if (s.recipe_pending) {
    // Below the visible part of the window: room for the section (about its height) instead of the recipe,
    // which is made on the frame it scrolls into view.
    const float fs = ImGui::GetFontSize();
    if (!ImGui::IsRectVisible(ImVec2(std::max(1.0f, ImGui::GetContentRegionAvail().x), fs * 2))) {
      ImGui::Dummy(ImVec2(1, fs * 26));
      return;
    }
    s.ensure_recipe();
  }
  if (s.recipe_call.id) {
    ImGui::TextDisabled("Writing the launch files...");
    return;
  }
  if (!s.recipe) {
    ImGui::TextColored(error_color(), "%s", s.recipe.error().to_string().c_str());
    return;
  }
  const Recipe& rc = *s.recipe;
  ImGui::TextDisabled("%s x %d node%s, %s; replace every <FILL: ...> before launching.",
                      rc.accelerators.empty() ? rc.instance_type.c_str() : rc.accelerators.c_str(), rc.nodes,
                      rc.nodes == 1 ? "" : "s", pricing_option_name(rc.option));
  for (const std::string& n : rc.notes) warn_wrapped("Note: %s", n.c_str());
  if (!ImGui::BeginTabBar("launch_formats")) return;
  for (const RecipeFile& f : rc.files) {
    if (!ImGui::BeginTabItem(f.format.c_str())) continue;
    if (!f.applies) {
      ImGui::TextWrapped("Not generated: %s.", f.why.c_str());
    } else {
      ImGui::PushID(f.format.c_str());
      if (ImGui::Button("Copy")) s.clipboard = f.text;
      ImGui::SameLine();
      ImGui::TextDisabled("%s (%zu bytes)", f.filename.c_str(), f.text.size());
      const float fs = ImGui::GetFontSize();
      ImGui::BeginChild("recipe_text", ImVec2(0, fs * 22), true, ImGuiWindowFlags_HorizontalScrollbar);
      ImGui::TextUnformatted(f.text.data(), f.text.data() + f.text.size());
      ImGui::EndChild();
      ImGui::PopID();
    }
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace trainfit::app
