// End-to-end tests of the web app in headless Debian Chromium: load, JS API, real clicks, hash, screenshots.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { serve, openApp, clickLabel, startSite, stopSite, OUT } = require('./harness');

let site, base, ctx;
test.before(async () => {
  site = await startSite();
  ({ base, ctx } = site);
});
test.after(() => stopSite(site));

test('page loads with the bundled snapshot, draws frames and reports no errors', async () => {
  const { page, problems, firstFrameMs } = await openApp(ctx.browser, base, '?nosw=1');
  const state = await page.evaluate(() => window.trainfit.state());
  assert.ok(state.snapshot, 'a snapshot is loaded');
  assert.ok(state.params_total > 1e9, 'the core computed the default model\'s parameter count');
  // The canvas fills the window in device pixels.
  const size = await page.evaluate(() => [Module.canvas.width, Module.canvas.height, innerWidth, innerHeight, devicePixelRatio]);
  assert.strictEqual(size[0], Math.round(size[2] * size[4]));
  assert.strictEqual(size[1], Math.round(size[3] * size[4]));
  await page.screenshot({ path: path.join(OUT, 'first-screen.png') });
  console.log('first interactive frame after ' + firstFrameMs + ' ms');
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('the validation report comes after the first frame: trainfit.call("validate") answers the CLI\'s document', async () => {
  const { page, problems } = await openApp(ctx.browser, base, '?nosw=1');
  await page.waitForFunction(() => window.trainfit.call('validate', {}).ok === true, null, { timeout: 20000 });
  const doc = await page.evaluate(() => window.trainfit.call('validate', {}));
  const file = JSON.parse(require('node:fs').readFileSync(path.join(__dirname, '..', '..', 'data', 'validation.json'), 'utf8'));
  assert.deepStrictEqual(doc, file, 'the page answers validate with data/validation.json, as `trainfit validate --format json`');
  assert.ok(doc.rows.length > 150, doc.rows.length + ' references');
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('the JS API\'s module comes only when a script asks for the API, and writes the Launch section\'s files', async () => {
  // web/api_module.cpp: the facade's documents live in a second module, off the first visit (scripts/bench counts
  // it apart). The page's module asks the page for the Launch section's recipe, which that module writes.
  const page = await ctx.browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  const fetched = [];
  page.on('request', (r) => { if (/trainfit-api\.(js|wasm)$/.test(r.url())) fetched.push(r.url().split('/').pop()); });
  await page.goto(base + '/?nosw=1');
  await page.waitForFunction(() => window.Module && Module.calledRun && Module._tf_drawn_frames() > 0 && Module._tf_frames() > 10,
    null, { timeout: 60000 });
  assert.deepStrictEqual(fetched, [], 'a visit that only uses the page fetches no JS API module');
  const early = await page.evaluate(() => window.trainfit.call('models'));
  assert.strictEqual(early.ok, false);
  assert.match(early.error.message, /trainfit\.ready/, 'before the module is in, the call says what to wait for');
  await page.evaluate(() => window.trainfit.ready);
  assert.deepStrictEqual(fetched.sort(), ['trainfit-api.js', 'trainfit-api.wasm']);
  assert.ok((await page.evaluate(() => window.trainfit.call('models'))).ok, 'after ready the API answers');
  // A snapshot loaded through the page reaches both modules: the API ranks on it.
  const before = await page.evaluate(() => window.trainfit.call('rank', { top: 1 }).snapshot);
  const snap = JSON.parse(require('node:fs').readFileSync(path.join(__dirname, '..', '..', 'data', 'snapshot.json'), 'utf8'));
  snap.id = 'e2e-renamed';
  const r = await page.evaluate((t) => window.trainfit.loadSnapshot(t, 'renamed'), JSON.stringify(snap));
  assert.ok(r.ok, JSON.stringify(r));
  assert.notStrictEqual(before, 'e2e-renamed');
  assert.strictEqual(await page.evaluate(() => window.trainfit.call('rank', { top: 1 }).snapshot), 'e2e-renamed');
  assert.strictEqual(await page.evaluate(() => window.trainfit.state().snapshot), 'e2e-renamed');
  // The Launch section (below the detail's columns: a tall window) shows the recipe the API writes for the selected row.
  await page.setViewportSize({ width: 1600, height: 4000 });
  await page.evaluate(() => { window.trainfitCopy = (t) => { window.__copied = t; }; });
  // The files arrive from the API module a few frames later; a tab bar's tabs have their places from its second frame.
  await page.evaluate(() => Module.ccall('tf_record_items', null, ['number'], [1]));
  await page.waitForFunction(() => {
    const r = JSON.parse(Module.ccall('tf_item_rect', 'string', ['string'], ['torchrun']));
    return r !== null && r.w > 0;
  }, null, { timeout: 30000 });
  const f0 = await page.evaluate(() => Module._tf_frames());
  await page.waitForFunction((n) => Module._tf_frames() > n + 3, f0);
  await clickLabel(page, 'torchrun');
  await clickLabel(page, 'Copy');
  await page.waitForFunction(() => typeof window.__copied === 'string', null, { timeout: 10000 });
  const copied = await page.evaluate(() => window.__copied);
  const st = await page.evaluate(() => window.trainfit.state());
  const q = await page.evaluate(() => window.trainfit.query());
  q.target = Object.assign({}, q.target, { offer: st.selected.offer, pricing: st.selected.option, nodes: st.selected.nodes });
  const doc = await page.evaluate((qq) => window.trainfit.call('recipe', qq), q);
  assert.ok(doc.ok, JSON.stringify(doc.error));
  assert.strictEqual(copied, doc.files.find((f) => f.format === 'torchrun').text, 'the copied file is the recipe verb\'s');
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('the bundled snapshot loads from its binary form, and from the JSON when the binary is missing or damaged', async () => {
  // web/app.js loads data/snapshot.bin (the same data, no JSON to parse at start-up) and falls back to
  // data/snapshot.json when the binary cannot be fetched or is refused; every way gives the same ranking.
  const runs = {};
  for (const mode of ['binary', 'missing', 'damaged']) {
    const route = async (r) => {
      if (mode === 'missing') return r.fulfill({ status: 404, body: 'gone' });
      const res = await r.fetch();
      const body = Buffer.from(await res.body());
      body[body.length - 100] ^= 0x20;  // one flipped bit in the payload: the checksum no longer matches
      return r.fulfill({ response: res, body });
    };
    if (mode !== 'binary') await ctx.browser.route('**/data/snapshot.bin', route);
    const fetched = [];
    const onRequest = (r) => { if (/data\/snapshot\.(bin|json)$/.test(r.url())) fetched.push(r.url().split('/').pop()); };
    ctx.browser.on('request', onRequest);
    try {
      const { page, problems } = await openApp(ctx.browser, base, '?nosw=1');
      const st = await page.evaluate(() => window.trainfit.state());
      const top = await page.evaluate(() => JSON.stringify(window.trainfit.call('rank', { top: 5 })));
      // The lean binary's sources and notes arrive after the first frame (data/snapshot-text.json); the JSON
      // has them already.
      await page.waitForFunction(() => window.trainfit.state().snapshot_text === 'complete', null, { timeout: 30000 });
      runs[mode] = { offers: st.offers, ranked: st.ranked, top, fetched: [...fetched].sort() };
      // The browser's own report of the 404 (mode 'missing') names no file: nothing else may go wrong.
      assert.deepStrictEqual(problems.filter((p) => !/snapshot\.bin|404 \(Not Found\)/.test(p)), [], mode);
      await page.close();
    } finally {
      ctx.browser.off('request', onRequest);
      if (mode !== 'binary') await ctx.browser.unroute('**/data/snapshot.bin', route);
    }
  }
  assert.deepStrictEqual(runs.binary.fetched, ['snapshot.bin'], 'a first visit fetches the binary only');
  for (const mode of ['missing', 'damaged']) {
    assert.deepStrictEqual(runs[mode].fetched, ['snapshot.bin', 'snapshot.json'], mode + ': then the JSON');
    assert.strictEqual(runs[mode].offers, runs.binary.offers, mode);
    assert.strictEqual(runs[mode].ranked, runs.binary.ranked, mode);
    assert.strictEqual(runs[mode].top, runs.binary.top, mode + ': the same ranking from either form');
  }
  assert.ok(runs.binary.offers > 1000 && runs.binary.ranked > 0);
});

test('the lean snapshot\'s text sidecar comes after the first frame; a missing or foreign one changes no answer', async () => {
  // web/app.js fetches data/snapshot-text.json once the first frame is drawn and hands it to the module, which
  // applies it only to the snapshot it belongs to (snapshot_id) and otherwise keeps the lean snapshot as it is.
  const runs = {};
  for (const mode of ['good', 'missing', 'foreign']) {
    const order = [];
    const onRequest = (r) => { if (/data\/snapshot(-text)?\.(bin|json)$/.test(r.url())) order.push(r.url().split('/').pop()); };
    const route = async (r) => {
      if (mode === 'missing') return r.fulfill({ status: 404, body: 'gone' });
      const res = await r.fetch();
      const doc = JSON.parse(await res.text());
      doc.snapshot_id = 'another-snapshot';
      return r.fulfill({ response: res, body: JSON.stringify(doc) });
    };
    if (mode !== 'good') await ctx.browser.route('**/data/snapshot-text.json', route);
    ctx.browser.on('request', onRequest);
    try {
      const { page, problems } = await openApp(ctx.browser, base, '?nosw=1');
      await page.waitForFunction(() => window.trainfit.state().snapshot_text !== 'loading', null, { timeout: 30000 });
      const st = await page.evaluate(() => window.trainfit.state());
      const top = await page.evaluate(() => JSON.stringify(window.trainfit.call('rank', { top: 5 })));
      runs[mode] = { text: st.snapshot_text, ranked: st.ranked, top, order };
      assert.deepStrictEqual(problems.filter((p) => !/snapshot-text|404 \(Not Found\)/.test(p)), [], mode);
      await page.close();
    } finally {
      ctx.browser.off('request', onRequest);
      if (mode !== 'good') await ctx.browser.unroute('**/data/snapshot-text.json', route);
    }
  }
  assert.strictEqual(runs.good.text, 'complete');
  assert.deepStrictEqual(runs.good.order, ['snapshot.bin', 'snapshot-text.json'], 'the sidecar after the binary');
  assert.match(runs.missing.text, /text sidecar refused/);
  assert.match(runs.foreign.text, /snapshot_id.*another snapshot/);
  for (const mode of ['missing', 'foreign']) {
    assert.strictEqual(runs[mode].ranked, runs.good.ranked, mode);
    assert.strictEqual(runs[mode].top, runs.good.top, mode + ': the same answers without the text');
  }
});

test('the WebGL context made while the wasm compiles is the one the module uses, with GLFW\'s attributes', async () => {
  // web/app.js creates the context early (load time) with the attributes emscripten 3.1.6's GLFW asks
  // for with main_web.cpp's hints (opaque, no depth or stencil); a mismatch would silently change how the canvas
  // is drawn, since getContext returns the first context.
  const { page, problems } = await openApp(ctx.browser, base, '?nosw=1');
  const r = await page.evaluate(() => {
    const gl = Module.canvas.getContext('webgl2');
    const a = gl.getContextAttributes();
    return { same: gl === Module.ctx, antialias: a.antialias, alpha: a.alpha, depth: a.depth, stencil: a.stencil,
      premultipliedAlpha: a.premultipliedAlpha, preserveDrawingBuffer: a.preserveDrawingBuffer };
  });
  assert.deepStrictEqual(r, { same: true, antialias: false, alpha: false, depth: false, stencil: false,
    premultipliedAlpha: true, preserveDrawingBuffer: false });
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('an idle page draws its first frame once and redraws only what changes', async () => {
  // web/main_web.cpp lays the first frame out unseen (ImGui fits tables to the first frame's content) and does
  // not draw a frame identical to the canvas: an idle page neither re-composites nor reads the canvas back.
  const { page, problems } = await openApp(ctx.browser, base, '?nosw=1');
  const counts = () => page.evaluate(() => [Module._tf_frames(), Module._tf_drawn_frames()]);
  const [f0, d0] = await counts();
  await page.waitForFunction((f) => Module._tf_frames() >= f + 20, f0);
  const [f1, d1] = await counts();
  assert.ok(f1 >= f0 + 20);
  assert.strictEqual(d1, d0, 'no frame drawn while nothing changes');
  assert.strictEqual(d1, 1, 'the first frame drawn was already the settled one');
  assert.ok((await page.evaluate(() => window.trainfit.setQuery({ seq_len: 4096 }))).ok);
  await page.waitForFunction((d) => Module._tf_drawn_frames() > d, d1);
  const settledAt = (await counts())[1];
  await page.waitForFunction((f) => Module._tf_frames() >= f + 20, (await counts())[0]);
  assert.ok((await counts())[1] <= settledAt + 2, 'the change is drawn, then drawing stops again');
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('the wasm still loads when the server sends it with a wrong content type', async () => {
  // Streaming compilation needs application/wasm; web/app.js falls back to compiling an ArrayBuffer, as
  // emscripten's own loader does.
  const odd = await serve(undefined, { '.wasm': 'application/octet-stream' });
  try {
    const { page, problems } = await openApp(ctx.browser, 'http://127.0.0.1:' + odd.address().port, '?nosw=1');
    const st = await page.evaluate(() => window.trainfit.state());
    assert.ok(st.ranked > 0, 'the app ranked the bundled snapshot');
    assert.deepStrictEqual(problems.filter((p) => !/MIME type/i.test(p)), []);
    await page.close();
  } finally {
    odd.close();
  }
});

test('a real click on the Method combo changes the query and the URL hash', async () => {
  const { page, problems } = await openApp(ctx.browser, base, '?nosw=1#model=llama-3.1-8b&method=lora');
  await clickLabel(page, 'Method');
  await clickLabel(page, 'qlora');
  const state = await page.evaluate(() => window.trainfit.state());
  assert.strictEqual(state.query.method, 'qlora');
  assert.match(await page.evaluate(() => location.hash), /method=qlora/);
  await page.screenshot({ path: path.join(OUT, 'after-click.png') });
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('the canvas follows window resizes', async () => {
  const { page, problems } = await openApp(ctx.browser, base, '?nosw=1');
  await page.setViewportSize({ width: 900, height: 600 });
  await page.waitForFunction(() => Module.canvas.width === Math.round(innerWidth * devicePixelRatio));
  assert.strictEqual(await page.evaluate(() => Module.canvas.height), 600);
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('the JS API rejects a bad query with the field named, and keeps the previous one', async () => {
  const { page, problems } = await openApp(ctx.browser, base, '?nosw=1');
  const before = await page.evaluate(() => window.trainfit.query());
  const r = await page.evaluate(() => window.trainfit.setQuery({ seq_len: -5 }));
  assert.strictEqual(r.ok, false);
  assert.match(r.error.message, /seq_len/);
  assert.deepStrictEqual(await page.evaluate(() => window.trainfit.query()), before);
  assert.deepStrictEqual(problems, []);
  await page.close();
});
