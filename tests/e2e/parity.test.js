// The CLI (native), the JS API (wasm in the page) and the URL hash must give identical JSON for the same query.
// The CLI is build/native-release/cli/trainfit; the page loads the same bundled snapshot file.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { openApp, startSite, stopSite, ROOT } = require('./harness');

const CLI = process.env.TRAINFIT_CLI || path.join(ROOT, 'build/native-release/cli/trainfit');
// The CLI answers with the page's bundled snapshot, never one `trainfit snapshot update` downloaded on this machine.
process.env.TRAINFIT_DATA_DIR = path.join(ROOT, 'build/e2e/no-downloaded-snapshot');
function cli(args, stdin) {
  return JSON.parse(execFileSync(CLI, args, { input: stdin || '', cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 }));
}

const QUERIES = [
  {},
  { model: 'mistral-7b-v0.1', method: 'qlora', seq_len: 4096, top: 25, filters: { pricing: 'spot' } },
  { model: 'llama-3.1-70b', method: 'full', dataset: { tokens: 2e9 }, filters: { providers: ['aws', 'gcp'], max_nodes: 4 }, sort: 'time', top: 40 },
  { model: { arch: 'llama', hidden_size: 2048, num_layers: 16, num_heads: 32, num_kv_heads: 8, intermediate_size: 8192,
             vocab_size: 128256, tie_embeddings: true }, method: 'full', top: 10 },
  // The dev-cycle sort and the doubtful-price switch give the same document on both surfaces
  { model: 'llama-3.1-8b', method: 'lora', sort: 'dev_cycle', cost: { dev_runs: 40, dev_run_minutes: 10 },
    filters: { show_doubtful: true }, top: 40 },
  // Mixture of experts: the planner's expert-parallel search, and a fixed EP layout (parallel.ep / etp)
  { model: 'qwen3-30b-a3b', method: 'full', framework: 'megatron-core', dataset: { tokens: 1e10 },
    filters: { max_nodes: 2 }, top: 20 },
  { model: 'qwen3-30b-a3b', method: 'full', parallel: { dp: 8, ep: 8, etp: 1, zero: 1 }, micro_batch: 1,
    global_batch: 64, grad_reduce: 'bf16', top: 10 },
  // torchtitan's DeepEP dispatcher on a fixed EP 16 layout over two 8-GPU nodes (moe.dispatcher: once per node)
  { model: 'qwen3-30b-a3b', method: 'full', framework: 'torchtitan', parallel: { dp: 16, ep: 16, etp: 1, zero: 3 },
    micro_batch: 8, global_batch: 128, recompute: 'full', moe: { dispatcher: 'deepep' }, dataset: { tokens: 1e10 },
    filters: { max_nodes: 2 }, top: 10 },
  // torchtitan run eager (compile off): its GEMMs at the eager rate, op-level checkpointing's extra attention inputs
  { model: 'llama-3.1-8b', method: 'full', framework: 'torchtitan', compile: 'off', recompute: 'selective',
    dataset: { tokens: 2e9 }, filters: { max_nodes: 2 }, top: 10 },
  // Megatron-Core's EP all-to-all overlap (moe.a2a_overlap): the search keeps only the layouts Megatron accepts with it
  { model: 'qwen3-30b-a3b', method: 'full', framework: 'megatron-core', moe: { a2a_overlap: true },
    dataset: { tokens: 1e10 }, filters: { max_nodes: 2 }, top: 10 },
  // Long context under both context-parallel schemes: hf-trainer's Ulysses (all-to-all) at 128k, megatron-core's ring
  // at 256k on a fixed CP 8 layout, and the planner's own choice at 64k
  { model: 'qwen3-4b', method: 'full', framework: 'hf-trainer', seq_len: 131072, cp_scheme: 'ulysses',
    parallel: { dp: 1, cp: 4, zero: 3 }, micro_batch: 1, global_batch: 4, recompute: 'full', top: 10 },
  { model: 'llama-3-8b', method: 'full', framework: 'megatron-core', precision: 'fp8-mixed', seq_len: 262144,
    cp_scheme: 'ring', parallel: { tp: 4, cp: 8, dp: 2, zero: 1, sequence_parallel: true }, micro_batch: 1,
    global_batch: 16, dataset: { tokens: 1e10 }, filters: { max_nodes: 8 }, top: 10 },
  { model: 'llama-3.1-8b', method: 'full', seq_len: 65536, dataset: { tokens: 5e9 }, filters: { max_nodes: 4 }, top: 20 },
  // Megatron-Core's module recompute: the MoE block and the norms re-run (a fixed EP layout), and the planner's
  // selective candidate set by the module list
  { model: 'qwen3-30b-a3b', method: 'full', framework: 'megatron-core', seq_len: 16384, recompute: 'selective',
    recompute_modules: ['layernorm', 'moe'], parallel: { tp: 2, dp: 4, ep: 8, etp: 1, zero: 1, sequence_parallel: true },
    micro_batch: 1, global_batch: 64, dataset: { tokens: 1e10 }, top: 10 },
  { model: 'qwen3-30b-a3b', method: 'full', framework: 'megatron-core', seq_len: 8192, recompute_modules: ['moe_act'],
    dataset: { tokens: 1e10 }, filters: { max_nodes: 2 }, top: 10 },
  // Reserved capacity (Capacity Blocks, committed use: whole booked terms) and the "launches now" filter (access facts)
  { model: 'llama-3.1-70b', method: 'full', dataset: { tokens: 2e10 }, filters: { pricing: 'reserved' }, top: 20 },
  { model: 'llama-3.1-8b', method: 'lora', filters: { launchable: true, show_all: true }, top: 30 },
];

let site, base, ctx, page;
test.before(async () => {
  assert.ok(fs.existsSync(CLI), 'build the native CLI first: ' + CLI);
  site = await startSite();
  ({ base, ctx } = site);
  ({ page } = await openApp(ctx.browser, base, '?nosw=1'));
});
test.after(() => stopSite(site));

for (const [i, q] of QUERIES.entries()) {
  test('rank and estimate JSON are identical in the CLI and the JS API (query ' + i + ')', async () => {
    const text = JSON.stringify(q);
    for (const verb of ['rank', 'estimate']) {
      const fromCli = cli([verb, '--query', '-', '--format', 'json'], text);
      const fromPage = await page.evaluate(([v, t]) => window.trainfit.call(v, t), [verb, text]);
      assert.strictEqual(fromPage.ok, true, JSON.stringify(fromPage.error));
      assert.deepStrictEqual(fromPage, fromCli);
    }
  });
}

// One query, one answer, byte for byte: seeded random queries through every verb, the CLI's JSON text
// against the JS API's document serialised the same way (key order and number text included).
function lcg(seed) { let x = seed >>> 0; return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 4294967296; }
test('estimate, rank, plan and cost are byte-identical in the CLI and the JS API for random queries', async () => {
  const rnd = lcg(20261202);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  for (let i = 0; i < 12; ++i) {
    const q = { model: pick(['qwen2.5-0.5b', 'llama-3.2-3b', 'llama-3.1-8b', 'mistral-7b-v0.1', 'qwen2.5-14b']),
                method: pick(['full', 'lora', 'qlora']), precision: pick(['auto', 'bf16-mixed', 'fp16-mixed']),
                seq_len: pick([1024, 2048, 4096]), micro_batch: pick([1, 2]), global_batch: pick([0, 32, 64]),
                filters: { must_fit: rnd() < 0.3, max_nodes: pick([1, 2, 4]) }, top: 5 };
    const rankRun = spawnSync(CLI, ['rank', '--query', '-', '--format', 'json'],
                              { input: JSON.stringify(q), cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
    const rank = JSON.parse(rankRun.stdout);
    const row = rank.rows.find((r) => r.state === 'ranked');
    const verbs = [['rank', q], ['estimate', Object.assign({}, q, { target: { gpu: row ? row.gpu : 'h100-sxm' } })]];
    if (row) {
      const t = Object.assign({}, q, { target: { offer: row.offer, nodes: row.nodes } });
      verbs.push(['plan', t], ['cost', t]);
    }
    for (const [verb, query] of verbs) {
      const text = JSON.stringify(query);
      const args = [verb, '--query', '-', '--format', 'json'];
      if (verb === 'plan' || verb === 'cost') args.push('--offer', query.target.offer);
      // Exit status 1 ("nothing matched", e.g. a job that fits nowhere) still prints the document.
      const run = spawnSync(CLI, args, { input: text, cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
      assert.ok(run.status === 0 || run.status === 1, verb + ' exit ' + run.status + ': ' + run.stderr);
      const fromCli = run.stdout.trim();
      const fromPage = await page.evaluate(([v, t]) => window.trainfit.callText(v, t), [verb, text]);
      assert.strictEqual(fromPage, fromCli, verb + ' ' + text);
    }
  }
});

// The launch recipe and the calibration document, byte for byte (what the UI copies is this text).
test('recipe and calibrate are byte-identical in the CLI and the JS API', async () => {
  const offer = 'lambda/gpu_1x_h100_pcie/us-east-1';
  const text = JSON.stringify({ model: 'llama-3.1-8b', method: 'lora', target: { offer, pricing: 'on-demand' },
                                calibration: { offer, step_time_s: 15, peak_GiB: 60 } });
  for (const verb of ['recipe', 'calibrate']) {
    const run = spawnSync(CLI, [verb, '--query', '-', '--format', 'json'],
                          { input: text, cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.strictEqual(run.status, 0, verb + ' exit ' + run.status + ': ' + run.stderr);
    const fromPage = await page.evaluate(([v, t]) => window.trainfit.callText(v, t), [verb, text]);
    assert.strictEqual(fromPage, run.stdout.trim(), verb);
  }
});

test('a link hash reproduces the same query in the page and on the command line', async () => {
  const hash = 'model=qwen2.5-7b&method=lora&lora_rank=32&seq_len=4096&dataset.tokens=5e8&filters.providers=lambda,aws&sort=time';
  const fromCli = cli(['query', '--hash', '#' + hash, '--format', 'json']);
  await page.evaluate((h) => { location.hash = h; }, hash);
  // The page rewrites the hash in the core's canonical form (defaults dropped, numbers normalised): wait for
  // it to equal the CLI's canonical hash of the same link.
  await page.waitForFunction((h) => window.trainfit.state().hash === h, fromCli.hash);
  const pageQuery = await page.evaluate(() => window.trainfit.query());
  const fromPage = await page.evaluate((q) => window.trainfit.call('query', q), JSON.stringify(pageQuery));
  assert.deepStrictEqual(fromPage, fromCli);
  const rankCli = cli(['rank', '--hash', '#' + hash, '--format', 'json']);
  const rankPage = await page.evaluate((q) => window.trainfit.call('rank', q), JSON.stringify(pageQuery));
  assert.deepStrictEqual(rankPage, rankCli);
});

test('a Hugging Face config.json gives the same model and estimate in the CLI and the JS API', async () => {
  const file = 'tests/fixtures/hf_configs/gpt-oss-20b.json';
  const config = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const fromCli = cli(['estimate', '--hf-config', file, '--format', 'json']);
  const doc = await page.evaluate((c) => window.trainfit.modelFromHfConfig(c), config);
  assert.strictEqual(doc.ok, true, JSON.stringify(doc.error));
  const fromPage = await page.evaluate((m) => window.trainfit.call('estimate', { model: m }), doc.model);
  assert.deepStrictEqual(fromPage, fromCli);
  const bad = await page.evaluate(() => window.trainfit.modelFromHfConfig('{"model_type": "t5"}'));
  assert.strictEqual(bad.error.field, 'hf_config.model_type');
});
