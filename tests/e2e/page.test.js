// End-to-end tests of the page on phones, tablets and narrow embeds, of quick clicks and taps, and of the text
// for screen readers, in headless Chromium. Screenshots go to build/e2e (docs/ keeps copies).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const zlib = require('node:zlib');
const harness = require('./harness');
const { startSite, stopSite, OUT } = harness;

let site, base, ctx;
test.before(async () => {
  site = await startSite();
  ({ base, ctx } = site);
});
test.after(() => stopSite(site));

const frameCount = (page) => page.evaluate(() => Module.ccall('tf_frames', 'number', [], []));
async function frames(page, n) {
  const f = await frameCount(page);
  await page.waitForFunction((m) => Module.ccall('tf_frames', 'number', [], []) >= m, f + n);
}
const state = (page) => page.evaluate(() => window.trainfit.state());
async function rect(page, label) {
  await page.evaluate(() => Module.ccall('tf_record_items', null, ['number'], [1]));
  await page.waitForFunction((l) => Module.ccall('tf_item_rect', 'string', ['string'], [l]) !== 'null', label, { timeout: 10000 });
  return JSON.parse(await page.evaluate((l) => Module.ccall('tf_item_rect', 'string', ['string'], [l]), label));
}
const center = (r) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
const inside = (r, w, h) => r.x >= 0 && r.y >= 0 && r.x + r.w <= w + 0.5 && r.y + r.h <= h + 0.5;
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

// Opens the page at a device's size: CSS viewport, device pixel ratio, touch (Chrome DevTools Protocol
// emulation: the persistent test browser has one context, whose scale factor is 1).
async function openDevice(query, { width, height, dpr = 1, mobile = false }) {
  const page = await ctx.browser.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  await page.setViewportSize({ width, height });  // (first: it sets a scale factor of its own)
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: dpr, mobile });
  if (mobile) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
  await page.goto(base + '/' + query);
  await page.waitForFunction(() => window.trainfit && window.Module && Module.calledRun, null, { timeout: 60000 });
  await page.evaluate(() => window.trainfit.ready);
  await page.waitForFunction(() => Module.ccall('tf_frames', 'number', [], []) > 3 && window.trainfit.state().ranked > 0,
    null, { timeout: 60000 });
  return { page, cdp, problems, dev: { width, height, dpr } };
}
// A screenshot through the DevTools protocol: page.screenshot would reset the emulated pixel ratio to its own
// (1). `scale` 'css' writes one image pixel per CSS px (what README shows), 'device' one per device pixel.
async function shot(o, file, scale = 'css') {
  const { width, height, dpr } = o.dev;
  const r = await o.cdp.send('Page.captureScreenshot', { format: 'png',
    clip: { x: 0, y: 0, width, height, scale: scale === 'css' ? 1 / dpr : 1 } });
  const buf = Buffer.from(r.data, 'base64');
  if (file) require('node:fs').writeFileSync(path.join(OUT, file), buf);
  return buf;
}

// ---- pixels: a PNG screenshot decoded to RGBA (8-bit RGB/RGBA, non-interlaced: what Chromium writes)
function decodePng(buf) {
  let pos = 8, w = 0, h = 0, channels = 4;
  const idat = [];
  while (pos < buf.length) {
    const n = buf.readUInt32BE(pos);
    const kind = buf.toString('latin1', pos + 4, pos + 8);
    if (kind === 'IHDR') {
      w = buf.readUInt32BE(pos + 8);
      h = buf.readUInt32BE(pos + 12);
      channels = buf[pos + 17] === 6 ? 4 : 3;
    } else if (kind === 'IDAT') idat.push(buf.subarray(pos + 8, pos + 8 + n));
    pos += n + 12;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = w * channels, out = Buffer.alloc(h * stride);
  for (let y = 0; y < h; ++y) {
    const f = raw[y * (stride + 1)], src = y * (stride + 1) + 1, dst = y * stride;
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? out[dst + x - channels] : 0, b = y ? out[dst - stride + x] : 0;
      const c = x >= channels && y ? out[dst - stride + x - channels] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      out[dst + x] = (raw[src + x] + pred) & 255;
    }
  }
  return { w, h, channels, data: out };
}
// Pixels that differ between two screenshots of one size.
function pixelsChanged(a, b) {
  const pa = decodePng(a), pb = decodePng(b);
  assert.strictEqual(pa.w, pb.w);
  let n = 0;
  for (let i = 0; i < pa.data.length; i += pa.channels)
    if (pa.data[i] !== pb.data[i] || pa.data[i + 1] !== pb.data[i + 1] || pa.data[i + 2] !== pb.data[i + 2]) ++n;
  return n;
}

// A click with no frame between its press and its release, nor between the move and the press: the three
// events are dispatched in one task, so no animation frame can run between them (a fast mouse, a tap, a script).
function zeroDelayClick(page, x, y) {
  return page.evaluate(([cx, cy]) => {
    const c = Module.canvas, r = c.getBoundingClientRect();
    const init = { bubbles: true, cancelable: true, clientX: r.left + cx, clientY: r.top + cy, button: 0, view: window };
    c.dispatchEvent(new MouseEvent('mousemove', init));
    c.dispatchEvent(new MouseEvent('mousedown', Object.assign({ buttons: 1 }, init)));
    c.dispatchEvent(new MouseEvent('mouseup', Object.assign({ buttons: 0 }, init)));
  }, [x, y]);
}
// A slow, ordinary hover: the mouse rests on a point for a few frames.
async function hover(page, p) {
  await page.mouse.move(p.x, p.y);
  await frames(page, 3);
}

const DEVICES = [
  { name: 'phone', width: 390, height: 844, dpr: 3, mobile: true, query: '?nosw=1', file: 'ui-phone.png' },
  { name: 'tablet', width: 768, height: 1024, dpr: 2, mobile: true, query: '?nosw=1', file: 'ui-tablet.png' },
  { name: 'embed 360 px', width: 360, height: 640, dpr: 2, mobile: true, query: '?nosw=1&embed=1#model=llama-3.1-8b&method=lora',
    file: 'ui-embed-360.png' },
];

for (const dev of DEVICES) {
  test(`${dev.name} (${dev.width} x ${dev.height} at DPR ${dev.dpr}): one column, headline and first card on screen, no overlap, 44 px targets`, async () => {
    const o = await openDevice(dev.query, dev);
    const { page, problems } = o;
    await frames(page, 3);
    const s = await state(page);
    assert.strictEqual(s.narrow, true, 'the one-column layout');
    assert.strictEqual(s.ui_scale, dev.dpr, 'drawn at the device pixel ratio');
    const labels = ['headline', 'card:1', 'card:2', 'Cards', 'Table', dev.query.includes('embed') ? 'Open full calculator' : 'job summary'];
    const r = {};
    for (const l of labels) r[l] = await rect(page, l);
    for (const l of ['headline', 'card:1']) assert.ok(inside(r[l], dev.width, dev.height), l + ' inside the viewport: ' + JSON.stringify(r[l]));
    for (let i = 0; i < labels.length; ++i)
      for (let j = i + 1; j < labels.length; ++j)
        assert.ok(!overlap(r[labels[i]], r[labels[j]]), labels[i] + ' and ' + labels[j] + ' do not overlap');
    for (const l of labels.filter((x) => x !== 'headline'))
      assert.ok(r[l].h >= 44 - 0.5, l + ' is a touch-size target: ' + r[l].h.toFixed(1) + ' CSS px high');
    await shot(o, dev.file);
    assert.deepStrictEqual(problems, []);
    await page.close();
  });
}

test('phone: a tap on a card selects it, a drag scrolls the page and selects nothing, the table is one tap away', async () => {
  const o = await openDevice('?nosw=1', DEVICES[0]);
  const { page, cdp, problems } = o;
  const touch = (type, points) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points });
  const view = await page.evaluate(() => window.trainfit.view());
  const card2 = center(await rect(page, 'card:2'));
  await touch('touchStart', [card2]);
  await touch('touchEnd', []);  // a quick tap: both touch events arrive with no frame between
  await page.waitForFunction((o) => window.trainfit.state().selected.offer === o, view.rows[1].offer, { timeout: 10000 });

  // A drag up over the cards: the column scrolls, the card under the finger is not selected.
  const before = await rect(page, 'headline');
  const selected = (await state(page)).selected;
  const p = center(await rect(page, 'card:3'));
  await touch('touchStart', [p]);
  for (let k = 1; k <= 8; ++k) {
    await touch('touchMove', [{ x: p.x, y: p.y - k * 30 }]);
    await frames(page, 1);
  }
  await touch('touchEnd', []);
  await frames(page, 4);
  const after = await rect(page, 'headline');
  assert.ok(after.y < before.y - 100, 'the page scrolled with the finger: headline at ' + before.y + ' then ' + after.y);
  assert.deepStrictEqual((await state(page)).selected, selected, 'a drag is not a tap');
  await shot(o, 'ui-phone-scrolled.png');

  // Back to the top (a drag down), then the full table: one tap on "Table".
  await touch('touchStart', [{ x: 200, y: 200 }]);
  for (let k = 1; k <= 8; ++k) {
    await touch('touchMove', [{ x: 200, y: 200 + k * 60 }]);
    await frames(page, 1);
  }
  await touch('touchEnd', []);
  await frames(page, 4);
  const back = await rect(page, 'headline');
  assert.ok(Math.abs(back.y - before.y) < 1, 'scrolled back to the top: ' + before.y + ' ' + after.y + ' ' + back.y);
  const t = center(await rect(page, 'Table'));
  await touch('touchStart', [t]);
  await touch('touchEnd', []);
  await page.waitForFunction(() => Module.ccall('tf_item_rect', 'string', ['string'], ['header:Total cost']) !== 'null', null, { timeout: 10000 });
  await frames(page, 3);
  await shot(o, 'ui-phone-table.png');
  await shot(o, 'ui-phone-table-dpr3.png', 'device');  // to judge how the text reads at the device's resolution

  // A drag inside the table scrolls the table's rows, not the page, and selects nothing.
  const head0 = await rect(page, 'headline'), row0 = await rect(page, '#6'), sel0 = (await state(page)).selected;
  const grab = { x: row0.x + 60, y: center(row0).y };  // (a row's rectangle spans every column, off screen too)
  await touch('touchStart', [grab]);
  for (let k = 1; k <= 5; ++k) {
    await touch('touchMove', [{ x: grab.x, y: grab.y - k * 30 }]);
    await frames(page, 1);
  }
  await touch('touchEnd', []);
  await frames(page, 4);
  const row1 = await rect(page, '#6');
  assert.ok(row1.y < row0.y - 100, 'the rows moved with the finger: ' + row0.y + ' then ' + row1.y);
  assert.strictEqual((await rect(page, 'headline')).y, head0.y, 'the page itself did not scroll');
  assert.deepStrictEqual((await state(page)).selected, sel0, 'a drag in the table selects nothing');

  // The job's inputs open under its summary line: fields are touch targets and stay on screen.
  const j = center(await rect(page, 'job summary'));
  await touch('touchStart', [j]);
  await touch('touchEnd', []);
  await page.waitForFunction(() => Module.ccall('tf_item_rect', 'string', ['string'], ['Seq len']) !== 'null', null, { timeout: 10000 });
  await frames(page, 3);
  for (const l of ['Model', 'Method']) {
    const r = await rect(page, l);
    assert.ok(r.h >= 43.5 && r.x >= 0 && r.x + r.w <= 390, l + ': ' + JSON.stringify(r));
  }
  await shot(o, 'ui-phone-job.png');

  // Typing on the phone's keyboard: a tap on a number field focuses the page's hidden text field (which is
  // what brings the keyboard up); what the keyboard sends reaches the canvas's field.
  const seq = center(await rect(page, 'Seq len'));
  await touch('touchStart', [seq]);
  await touch('touchEnd', []);
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'ime', null, { timeout: 10000 });
  await cdp.send('Input.insertText', { text: '4096' });  // the field's text was selected on activation: replaced
  await page.evaluate(() => document.getElementById('ime').dispatchEvent(new InputEvent('beforeinput',
    { inputType: 'deleteContentBackward', bubbles: true, cancelable: true })));
  await cdp.send('Input.insertText', { text: '5' });
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.trainfit.query().seq_len === 4095, null, { timeout: 10000 });
  assert.strictEqual(await page.evaluate(() => document.getElementById('ime').value), '', 'the hidden field stays empty');
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('a zero-delay click on each view tab and on a table row switches it (state and pixels)', async () => {
  const o = await openDevice('?nosw=1#model=llama-3.1-8b&method=full&filters.max_nodes=4', { width: 1280, height: 800 });
  const { page, problems } = o;
  const tabs = [['Cost vs time', 'chart'], ['Memory curves', 'memory'], ['Accuracy', 'accuracy'], ['Snapshot', 'snapshot'], ['Detail', 'detail']];
  // The mouse rests on the current tab first: imgui then hovers it, the case where a click elsewhere within
  // one frame was lost (overlapping widgets are hovered only after a frame).
  await hover(page, center(await rect(page, 'Detail')));
  for (const [label, tab] of tabs) {
    const target = center(await rect(page, label));
    const shotBefore = await shot(o);
    await zeroDelayClick(page, target.x, target.y);
    await page.waitForFunction((t) => window.trainfit.state().tab === t, tab, { timeout: 5000 });
    await frames(page, 3);
    const changed = pixelsChanged(shotBefore, await shot(o));
    assert.ok(changed > 2000, label + ': the view on screen changed (' + changed + ' pixels)');
  }
  // A table row: the mouse rests on row #1, then a zero-delay click on row #3.
  const v = await page.evaluate(() => window.trainfit.view());
  await hover(page, center(await rect(page, '#1')));
  const row3 = center(await rect(page, '#3'));
  const shotBefore = await shot(o);
  await zeroDelayClick(page, row3.x, row3.y);
  await page.waitForFunction((off) => window.trainfit.state().selected.offer === off, v.rows[2].offer, { timeout: 5000 });
  await frames(page, 3);
  assert.ok(pixelsChanged(shotBefore, await shot(o)) > 500, 'the selection and its detail changed on screen');
  assert.deepStrictEqual(problems, []);
  await page.close();
});

// The live text as the test expects it from the JS API's documents (state and the first rows of the view):
// written independently of web/app.js's headlineText, to the same rules.
function expectedLive(st, rows) {
  const usd = (v) => (v >= 100 ? '$' + Math.round(v).toLocaleString('en-US') : '$' + v.toFixed(2));
  const dur = (s) => (s < 3600 ? Math.round(s / 60) + ' min' : s < 48 * 3600 ? (s / 3600).toFixed(1) + ' h' : (s / 86400).toFixed(1) + ' days');
  let t = st.job + '. ' + (st.ranked > 0 ? `Fits on ${st.ranked} of ${st.rows_total} offer and pricing rows.` : `No offer both fits and passes the filters (${st.rows_total} checked).`);
  rows.filter((r) => r.state === 'ranked').slice(0, 3).forEach((r, i) => { t += ` ${i + 1}: ${r.offer} ${r.option}, ${dur(r.wall_s)}, ${usd(r.total_usd)}.`; });
  const c = st.counts;
  const held = typeof c.held_back === 'number' ? c.held_back : st.rows_total - st.ranked;
  const why = [];
  if (c.does_not_fit) why.push(c.does_not_fit + ' do not fit');
  if (c.filtered) why.push(c.filtered + ' filtered out');
  if (c.no_price) why.push(c.no_price + ' have no price');
  if (c.unsupported) why.push(c.unsupported + ' unsupported');
  if (c.error) why.push(c.error + ' failed');
  if (held > 0) t += ` ${held} held back${why.length ? ' (' + why.join(', ') + ')' : ''}.`;
  return t;
}

test('the off-screen live region reads the headline: the job, fits or not, the top three, how many were held back', async () => {
  const { page, problems } = await openDevice('?nosw=1', { width: 1280, height: 800 });
  const attrs = await page.evaluate(() => {
    const el = document.getElementById('live');
    const r = el.getBoundingClientRect();
    return { live: el.getAttribute('aria-live'), w: r.width, h: r.height, lang: document.documentElement.lang, title: document.title };
  });
  assert.strictEqual(attrs.live, 'polite');
  assert.ok(attrs.w <= 1 && attrs.h <= 1, 'off-screen');
  assert.strictEqual(attrs.lang, 'en');
  assert.match(attrs.title, /trainfit .*GPU/);
  const read = () => page.evaluate(() => ({ text: window.trainfit.liveText(), st: window.trainfit.state(), rows: window.trainfit.view().rows.slice(0, 3),
    elements: document.getElementById('live').children.length }));
  for (const q of [{ model: 'mistral-7b-v0.1', method: 'qlora', seq_len: 4096 }, { model: 'llama-3.1-70b', method: 'full', filters: { providers: ['aws'] } },
    { model: 'llama-3.1-8b', method: 'lora', filters: { max_usd_per_h: 0.01 } }]) {
    assert.ok((await page.evaluate((x) => window.trainfit.setQuery(x), q)).ok);
    // The region follows within a frame or two of the change (and never changes markup).
    let r;
    for (let tries = 0; tries < 50; ++tries) {
      r = await read();
      if (r.text === expectedLive(r.st, r.rows)) break;
      await frames(page, 1);
    }
    assert.strictEqual(r.text, expectedLive(r.st, r.rows), 'after ' + JSON.stringify(q));
    assert.strictEqual(r.elements, 0, 'plain text (textContent), no markup');
    console.log('[live] ' + r.text);
  }
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('keyboard navigation: the arrow keys move a visible (amber) focus outline', async () => {
  // (A link's hash: the query the previous test left in localStorage fits nowhere.)
  const o = await openDevice('?nosw=1&theme=dark#method=lora', { width: 1280, height: 800 });
  const { page, problems } = o;
  // The focus outline is amber (app.cpp, rebuild_fonts): count such pixels before and after a Tab.
  const amber = (png) => {
    const p = decodePng(png);
    let n = 0;
    for (let i = 0; i < p.data.length; i += p.channels)
      if (p.data[i] > 230 && p.data[i + 1] > 150 && p.data[i + 1] < 200 && p.data[i + 2] < 80) ++n;
    return n;
  };
  await page.mouse.move(640, 400);
  await frames(page, 2);
  const before = amber(await shot(o));
  for (const key of ['ArrowDown', 'ArrowDown']) {
    await page.keyboard.down(key);
    await frames(page, 2);
    await page.keyboard.up(key);
    await frames(page, 3);
  }
  const png = await shot(o);
  require('node:fs').writeFileSync(path.join(OUT, 'ui-keyboard-focus.png'), png);
  const after = amber(png);
  assert.ok(after > before + 40, 'a focus outline appeared: ' + before + ' -> ' + after + ' amber pixels');
  assert.deepStrictEqual(problems, []);
  await page.close();
});

test('the first theme follows prefers-color-scheme when nothing is saved', async () => {
  for (const scheme of ['light', 'dark']) {
    const page = await ctx.browser.newPage();
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(base + '/?nosw=1');
    await page.evaluate(() => localStorage.removeItem('trainfit.theme'));
    await page.reload();
    await page.waitForFunction(() => window.trainfit && window.Module && Module.calledRun, null, { timeout: 60000 });
    await page.evaluate(() => window.trainfit.ready);
    assert.strictEqual((await state(page)).theme, scheme);
    await page.close();
  }
});
