// trainfit e2e harness: a static server for build/web-release/site on an ephemeral loopback port, and a
// Debian-chromium page that fails the test on any console error, page error or failed request.
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

const ROOT = path.resolve(__dirname, '../..');
const SITE = process.env.TRAINFIT_SITE || path.join(ROOT, 'build/web-release/site');
const OUT = process.env.TRAINFIT_E2E_OUT || path.join(ROOT, 'build/e2e');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json',
  '.css': 'text/css', '.png': 'image/png' };

// `types` overrides content types by extension (a test serves the wasm with a wrong one).
function serve(dir = SITE, types = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let p = path.normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    if (p === '' || p.endsWith('/')) p += 'index.html';
    const file = path.join(dir, p);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404); res.end('not found'); return;
    }
    const ext = path.extname(file);
    res.writeHead(200, { 'content-type': types[ext] || TYPES[ext] || 'application/octet-stream', 'cache-control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function launch() {
  const userDir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'trainfit-chromium-'));
  const browser = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--disable-quic'],
  });
  return { browser, userDir };
}

// Open the app and wait until the snapshot is loaded and a few frames are drawn.
async function openApp(context, base, query = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('requestfailed', (r) => problems.push('request failed: ' + r.url() + ' ' + (r.failure() || {}).errorText));
  page.on('response', (r) => { if (r.status() >= 400) problems.push('HTTP ' + r.status() + ' ' + r.url()); });
  const t0 = Date.now();
  await page.goto(base + '/' + query);
  await page.waitForFunction(() => window.trainfit && window.Module && Module.calledRun, null, { timeout: 60000 });
  await page.evaluate(() => window.trainfit.ready);
  await page.waitForFunction(() => Module.ccall('tf_frames', 'number', [], []) > 3, null, { timeout: 60000 });
  const firstFrameMs = Date.now() - t0;
  return { page, problems, firstFrameMs };
}

// Click a widget by its label: the app reports where it is (test-engine hooks), the mouse clicks there.
async function clickLabel(page, label) {
  await page.evaluate(() => Module.ccall('tf_record_items', null, ['number'], [1]));
  await page.waitForFunction((l) => Module.ccall('tf_item_rect', 'string', ['string'], [l]) !== 'null', label,
    { timeout: 10000 });
  const r = JSON.parse(await page.evaluate((l) => Module.ccall('tf_item_rect', 'string', ['string'], [l]), label));
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  // Let the click's frame and the next run.
  const f = await page.evaluate(() => Module.ccall('tf_frames', 'number', [], []));
  await page.waitForFunction((n) => Module.ccall('tf_frames', 'number', [], []) > n + 2, f);
  return r;
}

// One served site and one browser for a test file: `site = await startSite()` in test.before (site.base,
// site.ctx.browser), `await stopSite(site)` in test.after (it tolerates a before hook that failed half way).
async function startSite() {
  fs.mkdirSync(OUT, { recursive: true });
  const site = { server: await serve() };
  site.base = 'http://127.0.0.1:' + site.server.address().port;
  site.ctx = await launch();
  return site;
}
async function stopSite(site) {
  if (!site) return;
  if (site.ctx) {
    await site.ctx.browser.close();
    fs.rmSync(site.ctx.userDir, { recursive: true, force: true });
  }
  if (site.server) site.server.close();
}

module.exports = { serve, launch, openApp, clickLabel, startSite, stopSite, OUT, SITE, ROOT };
