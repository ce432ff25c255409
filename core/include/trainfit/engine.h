// trainfit — the one header the shells include (the UI in app/, the CLI, the web and desktop shells, the
// benchmarks). It is the engine's public API, layer by layer (README, "The code"), with the JSON facade on top:
//   - the facade (facade/api.h: api_call) answers every verb with a JSON document; the CLI's --format json, the
//     web page's JS API and the UI's exports go through it, so every surface prints the same numbers;
//   - the typed API below it (query, snapshot, rank, planner, memory, billing, recipe, calibrate) is what the
//     facade itself is built on; a shell uses it where it needs the values rather than a document (the UI's table
//     and charts, the CLI's table renderer).
// Nothing else of the core is for the shells: core/src/ is internal (tests/layout/check_layers.py holds that).
#pragma once

#include "trainfit/base/common.h"
#include "trainfit/base/format.h"
#include "trainfit/base/json_text.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/job.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/estimate/perf.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/facade/api.h"
#include "trainfit/facade/api_doc.h"
#include "trainfit/facade/table_text.h"
#include "trainfit/launch/calibrate.h"
#include "trainfit/launch/recipe.h"
#include "trainfit/market/billing.h"
#include "trainfit/market/rank.h"
#include "trainfit/market/stock.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/storage/embedded.h"
#include "trainfit/storage/importer.h"
#include "trainfit/storage/manifest.h"
#include "trainfit/storage/snapshot.h"
#include "trainfit/validation/validation.h"
