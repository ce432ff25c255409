#!/usr/bin/env node
// trainfit — browser benchmark: load time to the first interactive frame next to the bare ImGui
// page, wasm ranking through the JS API, the UI's own re-rank time after an input change, wasm heap, and the
// CPU time of one UI frame with 5,000 rows and with the charts open. Headless Debian chromium via
// playwright-core (tests/e2e/harness.js). Not a test (not *.test.js): it prints figures, scripts/bench runs
// it and scripts/check-budgets judges them.
//   node tests/e2e/bench.js --synthetic DIR [--runs N] [--load-runs N] [--out FILE] [--quick]
// DIR holds <N>.json synthetic snapshots written by `trainfit_bench --write-synthetic N` (100000 and 3300), and
// 100000.bin, the binary form of 100000.json (`trainfit snapshot pack`), and 3x.bin: three times the bundled
// offers, in binary form.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { serve, launch, clickLabel, SITE, ROOT } = require('./harness');

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : def; };
const QUICK = args.includes('--quick');
const RUNS = Number(opt('runs', QUICK ? 3 : 5));
// Page loads are the noisiest figure (2 cores shared by the page, the GPU process and V8's compiler threads):
// more of them, so that the medians of the budget's ratio move by a few percent between runs, not ten. 21 in
// quick mode too (scripts/check-budgets): with 11, the ratio of the same build moved between 1.42 and 1.63 in
// five runs on one afternoon; the 21 pairs cost ~6 s more.
const LOAD_RUNS = Number(opt('load-runs', 21));
const SYNTH = opt('synthetic', path.join(ROOT, 'build/bench/synthetic'));
const OUT = opt('out', path.join(ROOT, 'build/bench/web.json'));
const BARE = process.env.TRAINFIT_BARE_SITE || path.join(ROOT, 'build/web-release/bare-site');
const ROWS_FILE = opt('rows-offers', '3300');   // ~5,000 table rows (about 1.5 rows per offer: on-demand + spot)

// The q-quantile as the sorted sample at index floor((n - 1) q): q = 1/2 the lower median.
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) * q)] : NaN; };
const median = (xs) => quantile(xs, 0.5);
const log = (...a) => console.log(...a);

// Marks, inside the page, the first animation frame at which `ready()` holds, in ms since navigation start.
// `ready` is evaluated in the page on every animation frame; the mark is window.__tfReadyMs.
function readyProbe(kind) {
  return `(() => {
    const kind = ${JSON.stringify(kind)};
    let seenAt = -1;
    function tick() {
      try {
        const M = window.Module;
        if (M && M.calledRun && M._tf_frames) {
          const frames = M._tf_frames();
          if (kind === 'bare') {
            if (frames >= 2) { window.__tfReadyMs = performance.now(); return; }
          } else if (seenAt < 0) {
            // The app: results on screen, i.e. the UI ranked the snapshot, then one more frame drew them.
            if (frames >= 1 && M._tf_ranked() > 0) seenAt = frames;  // not tf_state: its JSON would load the page
          } else if (frames > seenAt) { window.__tfReadyMs = performance.now(); return; }
        }
      } catch (e) { /* not up yet */ }
      requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
  })();`;
}

async function timeToInteractive(context, url, kind) {
  const page = await context.newPage();
  await page.addInitScript(readyProbe(kind));
  await page.goto(url);
  await page.waitForFunction(() => window.__tfReadyMs !== undefined, null, { timeout: 120000, polling: 50 });
  const ms = await page.evaluate(() => window.__tfReadyMs);
  // The app's milestones (web/app.js and web/main_web.cpp set tf:* performance marks), for the breakdown.
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark')
    .filter((m) => m.name.startsWith('tf:')).map((m) => [m.name.slice(3), m.startTime])));
  const wasm = await page.evaluate(() => {
    const r = performance.getEntriesByType('resource').find((e) => /\.wasm$/.test(e.name));
    return r ? r.responseEnd : null;
  });
  await page.close();
  if (kind === 'app') breakdown.push({ wasm, ...marks, ready: ms });
  return ms;
}
const breakdown = [];  // per app load: ms since navigation of each milestone

// Time fn() inside the page `reps` times; the median, in ms.
async function timeInPage(page, body, reps) {
  return page.evaluate(([src, n]) => {
    const f = new Function(src);
    const t = [];
    for (let i = 0; i < n; ++i) {
      const t0 = performance.now();
      const r = f();
      t.push(performance.now() - t0);
      if (r && r.ok === false) throw new Error(JSON.stringify(r.error));
    }
    t.sort((a, b) => a - b);
    return t[Math.floor((t.length - 1) / 2)];
  }, [body, reps]);
}

async function waitFrames(page, n) {
  const f = await page.evaluate(() => Module._tf_frames());
  await page.waitForFunction((k) => Module._tf_frames() >= k, f + n, { timeout: 120000 });
}

// The UI's own ranking time after an input change (state().rank_ms, measured by the app around rank_offers).
async function uiRerank(page, query) {
  return page.evaluate((q) => {
    const before = window.trainfit.state().rank_count;
    const r = window.trainfit.setQuery(q);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const st = window.trainfit.state();  // recomputes now
    if (st.rank_count === before) throw new Error('the query change did not re-rank');
    return st.rank_ms;
  }, query);
}

async function main() {
  const site = await serve(SITE);
  const bare = await serve(BARE);
  const base = 'http://127.0.0.1:' + site.address().port;
  const bareBase = 'http://127.0.0.1:' + bare.address().port;
  const { browser, userDir } = await launch();
  const fig = { runs: RUNS, load_runs: LOAD_RUNS };
  try {
    // 1. Load: alternate the two pages so drift in machine load hits both alike.
    const app = [], yard = [];
    await timeToInteractive(browser, bareBase + '/', 'bare');  // warm the browser process itself
    for (let i = 0; i < LOAD_RUNS; ++i) {
      yard.push(await timeToInteractive(browser, bareBase + '/', 'bare'));
      // ?nosw=1: a first visit, as the bare page's (no service worker serving the files from its cache).
      app.push(await timeToInteractive(browser, base + '/?nosw=1', 'app'));
    }
    fig.load_app_ms = median(app);
    fig.load_bare_ms = median(yard);
    fig.load_ratio = fig.load_app_ms / fig.load_bare_ms;
    // The gap in ms beside the ratio: the ratio rises when the machine gets faster, because the bare page's load
    // shrinks more than the app's extra work does (docs/performance.md, "Where a page load's CPU goes").
    fig.load_gap_ms = fig.load_app_ms - fig.load_bare_ms;
    fig.load_app_runs_ms = app;
    fig.load_bare_runs_ms = yard;
    log(`load: app ${fig.load_app_ms.toFixed(0)} ms, bare ImGui ${fig.load_bare_ms.toFixed(0)} ms, ratio ${fig.load_ratio.toFixed(2)}, gap ${fig.load_gap_ms.toFixed(0)} ms` +
        ` (median of ${LOAD_RUNS}; app ${app.map((x) => x.toFixed(0)).join('/')}, bare ${yard.map((x) => x.toFixed(0)).join('/')})`);
    // Where the app's load goes (medians, ms since navigation): wasm downloaded; runtime up (GL context, fonts,
    // GPU warm-up, app constructed); snapshot parsed and validated; first frame with data starts; ready.
    const steps = ['wasm', 'runtime', 'snapshot', 'first-frame', 'ready'];
    fig.load_app_breakdown_ms = Object.fromEntries(steps.map((k) => [k, median(breakdown.map((b) => b[k]).filter((v) => v != null))]));
    log('   app milestones (median ms since navigation): ' +
        steps.map((k) => `${k} ${Number.isFinite(fig.load_app_breakdown_ms[k]) ? fig.load_app_breakdown_ms[k].toFixed(0) : 'n/a'}`).join(', '));

    // 2. Bundled snapshot: heap, JS API ranking, the UI's re-rank after input changes.
    const problems = [];
    // A page of the app with the bundled snapshot ranked (its errors into `problems`).
    const openRanked = async () => {
      const pg = await browser.newPage();
      pg.on('pageerror', (e) => problems.push(e.message));
      await pg.goto(base + '/');
      await pg.waitForFunction(() => window.trainfit && window.Module && Module.calledRun, null, { timeout: 120000 });
      await pg.evaluate(() => window.trainfit.ready);
      await pg.waitForFunction(() => (window.trainfit.state().ranked || 0) > 0, null, { timeout: 120000 });
      return pg;
    };
    const page = await openRanked();
    await waitFrames(page, 3);
    fig.heap_bundled_bytes = await page.evaluate(() => Module.HEAPU8.length);
    fig.offers_bundled = await page.evaluate(() => window.trainfit.state().offers);
    // Quick runs (CI) take the median of 9: with 5, one stretch of a busy shared host moved the 3x re-rank's median
    // from 13.8 to 20.2 ms between two runs of the same code (2026-12-05).
    const reps = QUICK ? 9 : 15;
    fig.wasm_api_rank_bundled_ms = await timeInPage(page, 'return window.trainfit.call("rank", {"top": 10});', reps);
    // Input changes: the LoRA rank (every plan changes: the budgeted figure), the dataset's size (plans reused,
    // their totals redone: rank.cpp plan_job_query), then the sort key (plans reused).
    // Timed at the page's steady state, after WARMUP untimed re-ranks: right after the load V8 still runs much
    // of the ranking in its baseline tier while its optimising compiles finish in the background (on 2 cores,
    // measured: the first ten re-ranks after a load take 14-28 ms, later ones 11-13 ms), and a person changes an
    // input seconds after the page appears, not milliseconds. The cold path, the first ranking in the baseline
    // tier, is what the load-time budget holds (section 1).
    const WARMUP = 12;
    const replan = (i) => ({ lora_rank: i % 2 ? 16 : 32 });  // starts away from the default (16)
    // One batch of the budgeted figure on page `pg`: WARMUP untimed re-planning changes, then `reps` timed ones.
    const replanBatch = async (pg) => {
      for (let i = 0; i < WARMUP; ++i) await uiRerank(pg, replan(i));
      const t = [];
      for (let i = 0; i < reps; ++i) t.push(await uiRerank(pg, replan(i)));
      return t;
    };
    const bundledBatches = [await replanBatch(page)];  // more batches in section 7
    // (setQuery replaces the whole query: what a change leaves out is back at its default.)
    const dataChange = [], sortChange = [];
    await uiRerank(page, { lora_rank: 16, dataset: { tokens: 1.5e8 } });  // untimed: the default rank again
    for (let i = 0; i < reps; ++i) {
      dataChange.push(await uiRerank(page, { dataset: { tokens: 1e8 * (2 + (i % 2)) } }));
      sortChange.push(await uiRerank(page, { dataset: { tokens: 1e8 * (2 + (i % 2)) }, sort: i % 2 ? 'time' : 'usd_per_mtok' }));
    }
    fig.wasm_ui_rerank_bundled_ms = median(bundledBatches[0]);  // this batch's median; section 7 sets the figure
    fig.wasm_ui_rerank_dataset_bundled_ms = median(dataChange);
    fig.wasm_ui_rerank_sort_bundled_ms = median(sortChange);
    log(`wasm, bundled snapshot (${fig.offers_bundled} offers): JS API rank ${fig.wasm_api_rank_bundled_ms.toFixed(2)} ms;` +
        ` UI re-rank after a re-planning change (LoRA rank) ${fig.wasm_ui_rerank_bundled_ms.toFixed(2)} ms, after a` +
        ` dataset-size change ${fig.wasm_ui_rerank_dataset_bundled_ms.toFixed(2)} ms, after a sort change` +
        ` ${fig.wasm_ui_rerank_sort_bundled_ms.toFixed(2)} ms; wasm heap ${(fig.heap_bundled_bytes / 2 ** 20).toFixed(1)} MiB`);
    // An MoE pre-training job (Qwen3-30B-A3B full under megatron-core, as bench/core_bench.cpp's moe30b): its planner
    // searches expert parallelism and recompute-module lists, several times the default's work. Figure only.
    const moe = (i) => ({ model: 'qwen3-30b-a3b', method: 'full', framework: 'megatron-core', global_batch: i % 2 ? 256 : 512,
                          dataset: { tokens: 2e9 } });
    for (let i = 0; i < 4; ++i) await uiRerank(page, moe(i));  // an even count: the next (i = 0) differs from the last
    const moeChange = [];
    for (let i = 0; i < reps; ++i) moeChange.push(await uiRerank(page, moe(i)));
    fig.wasm_ui_rerank_moe_bundled_ms = median(moeChange);
    log(`wasm, bundled snapshot: UI re-rank of an MoE pre-training job after a re-planning change (global batch)` +
        ` ${fig.wasm_ui_rerank_moe_bundled_ms.toFixed(2)} ms (not budgeted)`);

    // 3. ~5,000 rows in the table, then the charts open: the UI's CPU time per frame (App::frame()).
    // Synthetic snapshots go in as text, copied into the wasm heap with malloc: window.trainfit.loadSnapshot
    // passes strings through ccall, which puts them on the 5 MB wasm stack, and a 20 MB snapshot overflows it.
    const loadSynthetic = async (n) => page.evaluate(([k, text]) => {
      const put = (str) => {
        const bytes = new TextEncoder().encode(str);
        const p = Module._malloc(bytes.length + 1);
        if (!p) throw new Error('malloc failed for ' + bytes.length + ' bytes');
        Module.HEAPU8.set(bytes, p);
        Module.HEAPU8[p + bytes.length] = 0;
        return p;
      };
      const pt = put(text), po = put('synthetic ' + k);
      const t0 = performance.now();
      const r = JSON.parse(Module.UTF8ToString(Module._tf_load_snapshot(pt, po)));
      const ms = performance.now() - t0;
      Module._free(pt);
      Module._free(po);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return ms;
    }, [n, fs.readFileSync(path.join(SYNTH, n + '.json'), 'utf8')]);
    // The binary form (`trainfit snapshot pack`, what the page loads for the snapshot it ships): bytes copied
    // into the heap, then tf_load_snapshot_bin, as app.js does for data/snapshot.bin.
    const loadSyntheticBin = async (n, pg = page) => pg.evaluate(([k, b64]) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const p = Module._malloc(bytes.length);
      if (!p) throw new Error('malloc failed for ' + bytes.length + ' bytes');
      Module.HEAPU8.set(bytes, p);
      const t0 = performance.now();
      const r = JSON.parse(Module.ccall('tf_load_snapshot_bin', 'string', ['number', 'number', 'string'], [p, bytes.length, 'synthetic ' + k]));
      const ms = performance.now() - t0;
      Module._free(p);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return ms;
    }, [n, fs.readFileSync(path.join(SYNTH, n + '.bin')).toString('base64')]);
    await loadSynthetic(ROWS_FILE);
    await page.evaluate(() => window.trainfit.setQuery({ filters: { show_all: true } }));
    // ~2 s at 60 Hz before reading the moving average: unchanged frames are no longer redrawn, so frames are
    // short, and 40 of them passed before V8 had optimised the frame's code (the figure is the steady state).
    await waitFrames(page, 120);
    let st = await page.evaluate(() => window.trainfit.state());
    fig.ui_rows_shown = st.rows_shown;
    fig.ui_frame_ms_rows = st.frame_ms_avg;
    try {
      await clickLabel(page, 'Cost vs time');
      await waitFrames(page, 120);
      st = await page.evaluate(() => window.trainfit.state());
      fig.ui_tab = st.tab;
      fig.ui_frame_ms_charts = st.tab === 'chart' ? st.frame_ms_avg : null;
    } catch (e) {
      fig.ui_frame_ms_charts = null;
      fig.ui_charts_error = String(e.message || e).split('\n')[0];
    }
    log(`UI frame (App::frame CPU time, moving average): ${fig.ui_rows_shown} rows ${fig.ui_frame_ms_rows.toFixed(2)} ms;` +
        ` with the cost/time chart open ${fig.ui_frame_ms_charts == null ? 'n/a (' + (fig.ui_charts_error || 'tab ' + fig.ui_tab) + ')' : fig.ui_frame_ms_charts.toFixed(2) + ' ms'}`);

    // 4. A market three times today's (3x.bin): the UI re-rank after a re-planning change, at the steady state as
    // for the bundled snapshot (the same 16 ms budget).
    await page.evaluate(() => window.trainfit.setQuery({}));
    await loadSyntheticBin('3x');
    const batches3x = [await replanBatch(page)];  // more batches in section 7
    fig.wasm_ui_rerank_3x_ms = median(batches3x[0]);
    log(`wasm, 3x the bundled offers: UI re-rank after a re-planning change ${fig.wasm_ui_rerank_3x_ms.toFixed(2)} ms`);

    // 5. 100k offers from their binary form (budgets: load <= 300 ms, heap <= 128 MiB): load, JS API ranking,
    // UI re-rank, heap (Module.HEAPU8.length: the heap grows and never shrinks, so this is the peak so far).
    await page.evaluate(() => window.trainfit.setQuery({}));
    const loads100k = [await loadSyntheticBin('100000')];  // three more loads on fresh pages in section 7
    // The JS API answers from its own module (web/api_module.cpp), which holds its own copy of the snapshot: the
    // page replays into it what its module accepted; here the same bytes go in directly, untimed.
    await page.evaluate(([b64]) => {
      const A = window.trainfitApiModule;
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const p = A._malloc(bytes.length);
      if (!p) throw new Error('malloc failed for ' + bytes.length + ' bytes in the JS API module');
      A.HEAPU8.set(bytes, p);
      const r = JSON.parse(A.ccall('tf_api_load_snapshot_bin', 'string', ['number', 'number', 'string'], [p, bytes.length, 'synthetic 100000']));
      A._free(p);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
    }, [fs.readFileSync(path.join(SYNTH, '100000.bin')).toString('base64')]);
    const bigReps = QUICK ? 3 : 4;
    fig.wasm_api_rank_100k_ms = await timeInPage(page, 'return window.trainfit.call("rank", {"top": 10});', bigReps);
    // One batch of 100k re-ranks on `pg`: a warm-up, as for the bundled snapshot (steady state), then bigReps timed.
    const bigBatch = async (pg) => {
      const t = [];
      await uiRerank(pg, replan(0));
      for (let i = 1; i <= bigReps; ++i) t.push(await uiRerank(pg, replan(i)));
      return t;
    };
    const bigBatches = [await bigBatch(page)];  // three more batches on fresh pages in section 7
    fig.wasm_load_100k_ms = loads100k[0];
    fig.wasm_ui_rerank_100k_ms = median(bigBatches[0]);  // this batch's median; section 7 sets the figure
    fig.heap_100k_bytes = await page.evaluate(() => Module.HEAPU8.length);
    fig.heap_api_100k_bytes = await page.evaluate(() => window.trainfitApiModule.HEAPU8.length);
    log(`wasm, 100k offers: snapshot load ${fig.wasm_load_100k_ms.toFixed(0)} ms, JS API rank ${fig.wasm_api_rank_100k_ms.toFixed(1)} ms,` +
        ` UI re-rank after a re-planning change ${fig.wasm_ui_rerank_100k_ms.toFixed(1)} ms, heap ${(fig.heap_100k_bytes / 2 ** 20).toFixed(1)} MiB` +
        ` (the JS API's module ${(fig.heap_api_100k_bytes / 2 ** 20).toFixed(1)} MiB)`);
    // 6. The same 100k offers as JSON text (a snapshot file a user loads): the text and the parsed document are in
    // the heap with the snapshot while it loads. After the figures above, as the heap never shrinks.
    fig.wasm_load_100k_json_ms = await loadSynthetic('100000');
    await uiRerank(page, { dataset: { tokens: 4e8 } });
    fig.heap_100k_json_bytes = await page.evaluate(() => Module.HEAPU8.length);
    log(`wasm, 100k offers as JSON: snapshot load ${fig.wasm_load_100k_json_ms.toFixed(0)} ms, heap after it and a re-rank` +
        ` ${(fig.heap_100k_json_bytes / 2 ** 20).toFixed(1)} MiB`);
    // 7. The two budgeted re-ranks in six more batches, each on a fresh page, ~15 s apart (~2.5 minutes in all); each
    // figure is the lowest of its batch medians (7 batches), printed beside the median of all its re-ranks and each
    // batch's median.
    // Why not a median of all: this machine is a VM on a shared host whose speed flips between two levels ~1.6x apart,
    // whatever the page does, and stays on the slow one for minutes at a time. The native ranking of the same job
    // (trainfit_bench BM_RankBundled/lora8b, pinned to one core) took 6.4-10.6 ms in back-to-back one-second runs,
    // with or without load on the other core (2026-12-07); in one page the re-ranks run at ~9-10 or ~15-17 ms, with
    // frames drawn between them or none (requestAnimationFrame stubbed out), and a batch's median is whichever level
    // held during its half second: one build's fresh-clone runs measured batch medians of 9.8 / 13.3 and
    // 17.8 / 17.4 ms, and one run's four batches over a minute were all on the slow level (18.2 / 19.5 / 20.1 /
    // 16.7 ms; 2026-12-07). The lowest batch median is the re-rank at the best level the host held in the
    // measurement's minutes; a code change moves both levels, so every batch, the lowest with them.
    // The first page goes first: it holds 100k offers and would go on drawing frames beside the later batches.
    if (problems.length) throw new Error('page errors: ' + problems.join('; '));
    await page.close();
    const FRESH_BATCHES = 6;
    for (let b = 0; b < FRESH_BATCHES; ++b) {
      if (b > 0) await new Promise((r) => setTimeout(r, 15000));
      const again = await openRanked();
      // The default query first: a fresh page restores the last page's query (local storage), which may be the
      // batch's first change.
      await again.evaluate(() => window.trainfit.setQuery({}));
      bundledBatches.push(await replanBatch(again));
      await again.evaluate(() => window.trainfit.setQuery({}));  // the default again: replan(0) is then a change
      await loadSyntheticBin('3x', again);
      batches3x.push(await replanBatch(again));
      if (b % 2 === 1) {
        // The 100k-offer budgets (load, re-rank) on every other fresh page, for the same reason: three more loads and
        // batches over the section's ~2.5 minutes (one run's first two batch medians a minute apart were 213.8 / 203.6
        // ms on a slow stretch, against ~90-130 on the host's fast level).
        await again.evaluate(() => window.trainfit.setQuery({}));
        loads100k.push(await loadSyntheticBin('100000', again));
        bigBatches.push(await bigBatch(again));
      }
      await again.close();
    }
    // The 100k figures: the lowest of the four loads, and the lowest of the four batch medians.
    fig.wasm_load_100k_ms = Math.min(...loads100k);
    fig.wasm_load_100k_runs_ms = loads100k;
    fig.wasm_ui_rerank_100k_ms = Math.min(...bigBatches.map(median));
    fig.wasm_ui_rerank_100k_batches_ms = bigBatches.map(median);
    for (const [name, batches] of [['bundled', bundledBatches], ['3x', batches3x]]) {
      const all = batches.flat();
      fig[`wasm_ui_rerank_${name}_ms`] = Math.min(...batches.map(median));
      fig[`wasm_ui_rerank_${name}_median_ms`] = median(all);
      fig[`wasm_ui_rerank_${name}_batches_ms`] = batches.map(median);
    }
    log(`wasm, the budgeted re-ranks after a re-planning change, ${bundledBatches.length} batches of ${reps} (the last` +
        ` ${bundledBatches.length - 1} on fresh pages) over ~2.5 minutes (the lowest batch median; then the median of all, then each batch's median):` +
        ['bundled', '3x'].map((n) => ` ${n} ${fig[`wasm_ui_rerank_${n}_ms`].toFixed(2)} ms (median` +
          ` ${fig[`wasm_ui_rerank_${n}_median_ms`].toFixed(2)}; batches` +
          ` ${fig[`wasm_ui_rerank_${n}_batches_ms`].map((x) => x.toFixed(1)).join(' / ')})`).join(','));
    log(`wasm, 100k offers over ~3 minutes: snapshot load ${fig.wasm_load_100k_ms.toFixed(0)} ms (the lowest of` +
        ` ${loads100k.map((x) => x.toFixed(0)).join(' / ')}), UI re-rank ${fig.wasm_ui_rerank_100k_ms.toFixed(1)} ms (the lowest` +
        ` batch median of ${bigBatches.length} batches of ${bigReps}: ${fig.wasm_ui_rerank_100k_batches_ms.map((x) => x.toFixed(1)).join(' / ')})`);
    if (problems.length) throw new Error('page errors: ' + problems.join('; '));
  } finally {
    await browser.close();
    fs.rmSync(userDir, { recursive: true, force: true });
    site.close();
    bare.close();
  }
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(fig, null, 1) + '\n');
  log('figures written to ' + path.relative(process.cwd(), OUT));
}

main().catch((e) => { console.error('bench.js: ' + (e.stack || e)); process.exit(1); });
