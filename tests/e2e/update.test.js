// The page and a published snapshot (web/update.js): after the first frame it reads the manifest (same origin), and
// loads the published snapshot only when its size, SHA-256 and id check out; a tampered file, a wrong id or a bad
// manifest leave the bundled snapshot on screen with a banner saying why (set as text, never as HTML); nothing
// published, or the bundled snapshot's own manifest, changes nothing. The published cases are made by
// tests/snapshot/make_update_fixtures.py with the native CLI (build/native-release/cli/trainfit) and served from a
// copy of the site under t/.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { serve, launch, openApp, SITE, ROOT } = require('./harness');

const CLI = process.env.TRAINFIT_CLI || path.join(ROOT, 'build/native-release/cli/trainfit');
let dir, server, base, ctx, bundledId;

test.before(async () => {
  assert.ok(fs.existsSync(CLI), 'build the native CLI first: ' + CLI);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trainfit-update-site-'));
  fs.cpSync(SITE, dir, { recursive: true });
  const t = path.join(dir, 't');
  execFileSync('python3', [path.join(ROOT, 'tests/snapshot/make_update_fixtures.py'), CLI, ROOT, t]);
  // A manifest whose id is markup: it must reach the page as text.
  const html = path.join(t, 'html');
  fs.cpSync(path.join(t, 'newer'), html, { recursive: true });
  const m = JSON.parse(fs.readFileSync(path.join(html, 'snapshot-manifest.json'), 'utf8'));
  m.snapshot_id = '<b>bold</b><img>';
  fs.writeFileSync(path.join(html, 'snapshot-manifest.json'), JSON.stringify(m));
  bundledId = JSON.parse(fs.readFileSync(path.join(ROOT, 'data/snapshot-manifest.json'), 'utf8')).snapshot_id;
  server = await serve(dir);
  base = 'http://127.0.0.1:' + server.address().port;
  ctx = await launch();
});
test.after(async () => {
  if (ctx) { await ctx.browser.close(); fs.rmSync(ctx.userDir, { recursive: true, force: true }); }
  if (server) server.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

// Opens the page with ?manifest=M and waits until update.js has finished (window.trainfitUpdateResult).
async function open(manifest) {
  const q = '?nosw=1' + (manifest === undefined ? '' : '&manifest=' + encodeURIComponent(manifest));
  const r = await openApp(ctx.browser, base, q);
  await r.page.waitForFunction(() => window.trainfitUpdateResult !== undefined, null, { timeout: 30000 });
  const requests = await r.page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
  const state = await r.page.evaluate(() => window.trainfit.state());
  const banner = await r.page.evaluate(() => { const b = document.getElementById('banner'); return { hidden: b.hidden, text: b.textContent, children: b.children.length }; });
  return Object.assign(r, { state, banner, requests });
}

test('the bundled snapshot\'s own manifest: nothing downloaded, nothing changed', async () => {
  const { page, problems, state, banner, requests } = await open();
  assert.strictEqual(state.snapshot, bundledId);
  assert.ok(banner.hidden, banner.text);
  assert.ok(requests.includes('/updates/snapshot-manifest.json'), requests.join(' '));
  assert.ok(!requests.some((p) => p.startsWith('/updates/snapshot.') || p.startsWith('/updates/snapshot-text')), requests.join(' '));
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('a good published snapshot is checked and loaded, its sidecar applied, and the page says where it came from', async () => {
  const { page, problems } = await open('t/good/snapshot-manifest.json');
  await page.waitForFunction(() => window.trainfit.state().snapshot === 'publish-test-2026-12-05', null, { timeout: 20000 });
  const state = await page.evaluate(() => window.trainfit.state());
  assert.match(state.snapshot_origin, /^published snapshot publish-test-2026-12-05 \(\/t\/good\/snapshot-manifest\.json, SHA-256 checked\)$/);
  assert.strictEqual(state.snapshot_text, 'complete');
  const rank = await page.evaluate(() => window.trainfit.call('rank', { model: 'llama-3.1-8b', method: 'lora', top: 1 }));
  assert.ok(rank.ok, JSON.stringify(rank.error));
  assert.ok(await page.evaluate(() => document.getElementById('banner').hidden));
  assert.deepStrictEqual(problems, []);
  await page.close();
});

for (const [name, manifest, words] of [
  ['a tampered file', 't/tampered/snapshot-manifest.json', /snapshot\.bin does not match its SHA-256/],
  ['a wrong id', 't/wrongid/snapshot-manifest.json', /holds "publish-test-another-id", the manifest names "publish-test-2026-12-06"/],
  ['a bad manifest', 't/badmanifest/snapshot-manifest.json', /bad manifest: \/files\/0\/sha256/],
  ['a manifest that is not JSON', 't/good/snapshot.bin', /bad manifest/],
]) {
  test(name + ' is refused with its reason; the bundled snapshot stays', async () => {
    const { page, problems, state, banner } = await open(manifest);
    assert.strictEqual(state.snapshot, bundledId);
    assert.ok(!banner.hidden);
    assert.match(banner.text, words);
    assert.match(banner.text, /The bundled snapshot stays in use\.$/);
    assert.deepStrictEqual(problems, []);
    await page.close();
  });
}

test('text from a manifest reaches the page as text, never as markup', async () => {
  const { page, problems, state, banner } = await open('t/html/snapshot-manifest.json');
  assert.strictEqual(state.snapshot, bundledId);
  assert.strictEqual(banner.children, 0, 'no element was made from the manifest');
  assert.match(banner.text, /the manifest names "<b>bold<\/b><img>"/);
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('nothing published (HTTP 404) or offline: the bundled snapshot, no banner', async () => {
  const { page, problems, state, banner } = await open('t/none/snapshot-manifest.json');
  assert.strictEqual(state.snapshot, bundledId);
  assert.ok(banner.hidden, banner.text);
  // The expected 404 of the manifest, as the harness and the browser's console report it.
  assert.deepStrictEqual(problems.filter((p) => !p.includes('/t/none/snapshot-manifest.json') && !/status of 404/.test(p)), []);
  await page.close();
});

test('a manifest from another origin is refused', async () => {
  const { page, state, banner } = await open('https://example.org/snapshot-manifest.json');
  assert.strictEqual(state.snapshot, bundledId);
  assert.match(banner.text, /manifests load only from this site/);
  await page.close();
});
