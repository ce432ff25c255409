// trainfit — the page around the wasm module: loading state, snapshot fetch, URL hash <-> query sync,
// localStorage, clipboard, the public JS API (window.trainfit) and embedding. No HTML is ever built from data:
// every text goes through textContent.
'use strict';
(function () {
  const params = new URLSearchParams(location.search);
  const embedded = params.get('embed') === '1';
  const STORAGE_KEY = 'trainfit.lastQuery';
  const THEME_KEY = 'trainfit.theme';
  const listeners = [];
  let readyResolve;
  const ready = new Promise((r) => { readyResolve = r; });
  let lastHash = null;
  // The link's hash as the page was opened: the module reports its (default) query before start() has applied
  // the link, and that report must not overwrite the link.
  const initialHash = location.hash;
  let started = false;
  // The origin of the page that embeds us: given as ?origin=, else the referrer's, else our own.
  const parentOrigin = (function () {
    const asked = params.get('origin');
    try {
      if (asked) return new URL(asked).origin;
      if (document.referrer) return new URL(document.referrer).origin;
    } catch (e) { /* fall through */ }
    return location.origin;
  })();

  function banner(text) {
    const el = document.getElementById('banner');
    el.textContent = text;
    el.hidden = !text;
  }
  function splash(text) {
    const el = document.getElementById('splash-text');
    if (el) el.textContent = text;
  }
  // ccall copies 'string' arguments onto the wasm stack (5 MB): large texts (snapshots) go through the heap.
  const utf8 = new TextEncoder();
  // `M`: the page's module (call) or the JS API's (web/api_module.cpp, below); the same boundary for both.
  function callIn(M, name, types, args) {
    const ptrs = [];
    try {
      const t2 = types.slice(), a2 = args.slice();
      for (let i = 0; i < a2.length; i++) {
        if (t2[i] !== 'string' || typeof a2[i] !== 'string' || a2[i].length < 65536) continue;
        // TextEncoder is native: a 218 KB snapshot is copied in well under a millisecond, where emscripten's
        // stringToUTF8 walks it character by character in JS (~7 ms at page load, measured).
        const bytes = utf8.encode(a2[i]);
        const n = bytes.length + 1;
        const p = M._malloc(n);
        if (!p) return JSON.stringify({ ok: false, error: { message: 'not enough memory for ' + n + ' bytes' } });
        M.HEAPU8.set(bytes, p);
        M.HEAPU8[p + bytes.length] = 0;
        ptrs.push(p);
        t2[i] = 'number';
        a2[i] = p;
      }
      return M.ccall(name, 'string', t2, a2);
    } finally {
      for (const p of ptrs) M._free(p);
    }
  }
  const call = (name, types, args) => callIn(Module, name, types, args);
  function parse(text) {
    try { return JSON.parse(text); } catch (e) { return { ok: false, error: { message: 'bad JSON from the module' } }; }
  }

  // The bundled snapshot is loaded from its compact binary form (docs/snapshot.md, "Binary form"): the same
  // data as the JSON, with no text to tokenise while the wasm still runs in the browser's baseline tier
  // (~35 ms of the first load). The JSON stays the published file, and the fallback.
  const BUNDLED = 'data/snapshot.json', BUNDLED_BIN = 'data/snapshot.bin';
  // The binary is lean: its long text (datasheet and billing sources, notes: only the Snapshot tab and tooltips
  // show them) is in a sidecar fetched after the first frame (docs/snapshot.md, "Lean form and text sidecar").
  const BUNDLED_TEXT = 'data/snapshot-text.json';
  const VALIDATION = 'data/validation.json';
  // Where the snapshot comes from: the bundled one, or ?snapshot=URL when it is same-origin or https.
  function snapshotUrl() {
    const asked = params.get('snapshot');
    if (!asked) return { url: BUNDLED, origin: 'bundled snapshot' };
    let u;
    try { u = new URL(asked, location.href); } catch (e) { return { error: 'the snapshot address is not a URL' }; }
    if (u.origin !== location.origin && u.protocol !== 'https:')
      return { error: 'snapshots load only from this site or over https (' + u.protocol + ' refused)' };
    return { url: u.href, origin: u.href };
  }

  async function fetchSnapshot(url, binary) {
    const res = await fetch(url, { credentials: 'omit' });
    if (!res.ok) throw new Error('HTTP ' + res.status + ' for ' + url);
    const len = Number(res.headers.get('content-length') || 0);
    if (len > 64 * 1024 * 1024) throw new Error('the snapshot is larger than 64 MB');
    return binary ? await res.arrayBuffer() : await res.text();
  }
  const fetchText = (url) => fetchSnapshot(url, false);
  // Binary bytes go through the heap with their length (they may hold zeros, which a C string cannot).
  function loadBinaryIn(M, name, bytes, origin) {
    const n = bytes.byteLength;
    const p = M._malloc(Math.max(1, n));
    if (!p) return { ok: false, error: { message: 'not enough memory for ' + n + ' bytes' } };
    try {
      M.HEAPU8.set(new Uint8Array(bytes), p);
      return parse(M.ccall(name, 'string', ['number', 'number', 'string'], [p, n, origin]));
    } finally {
      M._free(p);
    }
  }

  // ---- The JS API's own module (trainfit-api.js + trainfit-api.wasm, web/api_module.cpp): the facade's documents
  // for trainfit.call, kept out of the page's module and so out of the first visit. It is loaded when a script
  // first asks for trainfit.ready or calls the API, after the page's first frames. It holds its own copy of the
  // snapshot: every load and sidecar the page's module accepts is logged and replayed into it, in order (a whole
  // snapshot starts the log again), so both modules answer on the same prices.
  const apiLog = [];
  let api = null, apiLoading = null, apiFailed = '', apiValidation = '';
  // A replayed load the API module refuses (a module of another build) is said, not silent.
  function replay(M, apply) {
    const r = apply(M);
    if (r && r.ok === false) console.warn('trainfit: the JS API module refused a snapshot the page accepted (' + ((r.error && r.error.message) || '') + ')');
  }
  function mirror(apply, wholeSnapshot) {
    if (wholeSnapshot) apiLog.length = 0;
    apiLog.push(apply);
    if (api) replay(api, apply);
  }
  function setApiValidation(M) {
    if (!apiValidation) return;
    const r = parse(callIn(M, 'tf_api_set_validation', ['string'], [apiValidation]));
    if (!r.ok) console.warn('trainfit: the JS API refused ' + VALIDATION + ' (' + r.error.message + ')');
  }
  // After the page's first frames (or a second, where animation frames are paused: a background tab), so that it
  // never competes with them. A failed load is said by trainfit.call and tried again on the next ask.
  function loadApi() {
    if (apiLoading) return apiLoading;
    const settled = () => new Promise((done) => { afterFirstFrames(done); setTimeout(done, 1000); });
    apiLoading = ready.then(settled).then(() => new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = 'trainfit-api.js';
      s.onerror = () => reject(new Error('trainfit-api.js could not be loaded'));
      s.onload = () => {
        if (typeof window.trainfitApi !== 'function') { reject(new Error('trainfit-api.js is not the JS API module')); return; }
        window.trainfitApi().then((M) => {
          try {
            callIn(M, 'tf_api_set_today', ['string'], [call('tf_today', [], [])]);  // the page module's date
            for (const apply of apiLog) replay(M, apply);
            setApiValidation(M);
          } catch (e) { reject(e); return; }
          api = window.trainfitApiModule = M;  // (the benchmark loads its synthetic markets into both modules)
          apiFailed = '';
          resolve();
        }, reject);
      };
      document.head.appendChild(s);
    }));
    apiLoading.catch((e) => {
      apiFailed = String((e && e.message) || e);
      apiLoading = null;  // the next ask tries again
      console.warn('trainfit: the JS API could not load (' + apiFailed + ')');
    });
    return apiLoading;
  }
  const API_LOADING = JSON.stringify({ ok: false, error: { field: '', message: 'the JS API is loading: call it once trainfit.ready has resolved' } });
  function apiCallText(verb, q) {
    if (!api) {
      loadApi().catch(() => {});
      return apiFailed ? JSON.stringify({ ok: false, error: { field: '', message: 'the JS API could not load (' + apiFailed + '); trying again' } }) : API_LOADING;
    }
    return callIn(api, 'tf_api_call', ['string', 'string'], [verb, q === undefined ? '' : (typeof q === 'string' ? q : JSON.stringify(q))]);
  }

  // The snapshot's loads, each into the page's module and, once accepted there, into the JS API's.
  function loadBinary(bytes, origin) {
    const r = loadBinaryIn(Module, 'tf_load_snapshot_bin', bytes, origin);
    if (r.ok) mirror((M) => loadBinaryIn(M, 'tf_api_load_snapshot_bin', bytes, origin), true);
    return r;
  }
  function loadText(text, origin) {
    const r = parse(call('tf_load_snapshot', ['string', 'string'], [text, origin]));
    if (r.ok) mirror((M) => callIn(M, 'tf_api_load_snapshot', ['string', 'string'], [text, origin]), true);
    return r;
  }
  function applyText(text) {
    const r = parse(call('tf_apply_snapshot_text', ['string'], [text]));
    if (r.ok) mirror((M) => callIn(M, 'tf_api_apply_snapshot_text', ['string'], [text]), false);
    return r;
  }

  // The snapshot download starts with the page, in parallel with the wasm download and compile. The saved
  // query and theme are read now too: the first localStorage access is a synchronous trip to the browser
  // process, cheaper here, while the main thread waits for the wasm, than in start(), on the critical path.
  const canvas = document.getElementById('canvas');
  const early = (() => {
    // The wasm compile starts now, while trainfit.js (emscripten's loader, which would start it) still
    // downloads: streamed from the response index.html preloads, with a fallback to an ArrayBuffer when the
    // server sends the wasm with the wrong MIME type.
    const WASM = 'trainfit.wasm';
    const viaBuffer = () => fetch(WASM, { credentials: 'same-origin' })
      .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + WASM); return r.arrayBuffer(); })
      .then((b) => WebAssembly.compile(b));
    const wasm = WebAssembly.compileStreaming
      ? WebAssembly.compileStreaming(fetch(WASM, { credentials: 'same-origin' })).catch((e) => {
        console.warn('trainfit: streaming wasm compile failed (' + String((e && e.message) || e) + '); retrying from a buffer');
        return viaBuffer();
      })
      : viaBuffer();
    wasm.catch(() => {});  // reported by instantiateWasm
    // The WebGL2 context is created now too, while the main thread waits for trainfit.js, instead of inside
    // the module's start-up (glfwCreateWindow): a synchronous round trip to the GPU process (~7 ms under
    // software WebGL). The attributes are exactly those emscripten 3.1.6's GLFW asks for (library_glfw.js: no
    // antialias; alpha, depth and stencil from the hints web/main_web.cpp sets: none of them), so its later
    // getContext call returns this same context. No extension is enabled: the renderer needs none
    // (GL_SUPPORT_AUTOMATIC_ENABLE_EXTENSIONS=0, web/CMakeLists.txt), and each would cost a synchronous round
    // trip to the GPU process.
    try {
      canvas.getContext('webgl2', { antialias: false, alpha: false, depth: false, stencil: false });
    } catch (e) { /* the module's own attempt reports a missing WebGL2 */ }
    const get = (k) => { try { return localStorage.getItem(k); } catch (e) { return null; } };
    const saved = { query: get(STORAGE_KEY), theme: get(THEME_KEY),
      prefersLight: !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: light)').matches) };
    const src = snapshotUrl();
    if (src.error) return { saved, wasm };
    const binary = src.url === BUNDLED;
    const p = fetchSnapshot(binary ? BUNDLED_BIN : src.url, binary);
    p.catch(() => {});  // reported when start() awaits it
    return { url: src.url, binary: binary, data: p, saved, wasm };
  })();

  async function loadSnapshot(url, origin) {
    if (url === BUNDLED) {
      try {
        const bytes = early.binary ? await early.data : await fetchSnapshot(BUNDLED_BIN, true);
        const r = loadBinary(bytes, origin);
        if (r.ok) { r.lean = true; return r; }
        console.warn('trainfit: ' + BUNDLED_BIN + ' refused (' + r.error.message + '); loading ' + BUNDLED);
      } catch (e) {
        console.warn('trainfit: ' + BUNDLED_BIN + ' unavailable (' + e.message + '); loading ' + BUNDLED);
      }
    }
    const text = early.url === url && !early.binary ? await early.data : await fetchText(url);
    return loadText(text, origin);
  }

  function applyHash(hash, from) {
    const r = parse(call('tf_set_hash', ['string'], [hash]));
    if (!r.ok) banner('The ' + from + ' could not be used: ' + r.error.message + '. Showing the previous inputs.');
    return r.ok;
  }

  // Load milestones as performance marks (tf:*), read by tests/e2e/bench.js for the load breakdown.
  const mark = (name) => { try { performance.mark('tf:' + name); } catch (e) { /* old browsers */ } };

  // After the first frame is drawn: fetch the sidecar and apply it (the module checks that it belongs to the
  // loaded snapshot; a refused or missing one leaves the snapshot as it is and the Snapshot tab says so).
  function loadSnapshotText() {
    const apply = (text) => {
      const r = applyText(text);
      if (!r.ok) console.warn('trainfit: ' + BUNDLED_TEXT + ' refused (' + r.error.message + ')');
    };
    const fail = (e) => {
      console.warn('trainfit: ' + BUNDLED_TEXT + ' unavailable (' + e.message + ')');
      call('tf_apply_snapshot_text', ['string'], ['']);  // the tab then says "not loaded", not "loading"
    };
    return new Promise((done) => afterFirstFrames(() => fetchText(BUNDLED_TEXT).then(apply, fail).then(done)));
  }
  // A published snapshot newer than the bundled one (web/update.js, fetched after the first frame: off the first-visit
  // path): used only when its manifest, SHA-256 and id check out. Not with ?snapshot= (the user chose one).
  function checkUpdate(textDone) {
    if (params.has('snapshot') || params.get('manifest') === 'off') return;
    afterFirstFrames(() => {
      const s = document.createElement('script');
      s.src = 'update.js';
      s.onload = () => window.trainfitCheckUpdate({ params, banner, call, parse, loadBinary, applyText, textDone });
      document.head.appendChild(s);
    });
  }

  // The validation report (the Accuracy tab, trainfit.call('validate')): neither module carries validation tables;
  // the build wrote their document to data/validation.json. Fetched after the first frame, like the sidecar.
  function loadValidation() {
    afterFirstFrames(() => fetchText(VALIDATION).then((text) => {
      const r = parse(call('tf_set_validation', ['string'], [text]));
      if (!r.ok) { console.warn('trainfit: ' + VALIDATION + ' refused (' + r.error.message + ')'); return; }
      apiValidation = text;
      if (api) setApiValidation(api);
    }, (e) => console.warn('trainfit: ' + VALIDATION + ' unavailable (' + e.message + ')')));
  }

  // Work that can wait until the first results are on screen (the sidecar, the screen reader's first summary):
  // run once the module has drawn and two more frames have run, so it never delays the first useful frame.
  function afterFirstFrames(fn) {
    const poll = () => {
      if (Module._tf_drawn_frames() > 0 && Module._tf_frames() >= 3) fn();
      else requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
  }

  async function start() {
    mark('runtime');
    applyViewSettings();
    splash('Loading prices…');
    let src = snapshotUrl();
    if (src.error) { banner(src.error + '; using the bundled snapshot.'); src = { url: BUNDLED, origin: 'bundled snapshot' }; }
    let lean = false;
    try {
      const r = await loadSnapshot(src.url, src.origin);
      lean = !!r.lean;
      if (!r.ok) {
        banner('Snapshot refused (' + r.error.message + '); using the bundled snapshot.');
        if (src.url !== BUNDLED) lean = !!(await loadSnapshot(BUNDLED, 'bundled snapshot')).lean;
      }
    } catch (e) {
      banner('Could not load prices: ' + e.message);
      call('tf_set_banner', ['string'], ['Prices could not be loaded: ' + e.message]);
    }
    mark('snapshot');
    // Inputs: the link's hash wins, then the last query kept in this browser.
    if (initialHash.length > 1) {
      applyHash(initialHash, 'link');
    } else {
      const stored = early.saved.query;
      if (stored && !applyHash(stored, 'saved query')) {
        try { localStorage.removeItem(STORAGE_KEY); } catch (e) { /* storage may be blocked */ }
      }
    }
    window.trainfitBooted = true;  // the module draws its first frame, shows the canvas, removes the splash
    started = true;
    readyResolve();
    afterFirstFrames(scheduleLive);
    checkUpdate(lean ? loadSnapshotText() : Promise.resolve());
    loadValidation();
  }

  // View settings that are not part of the query: embed mode and the theme (remembered in this browser).
  function applyViewSettings() {
    if (embedded) call('tf_call', ['string', 'string'], ['ui.embed', '1']);
    let theme = params.get('theme');
    if (theme !== 'dark' && theme !== 'light') theme = early.saved.theme;
    if (theme !== 'dark' && theme !== 'light') theme = early.saved.prefersLight ? 'light' : 'dark';
    call('tf_call', ['string', 'string'], ['ui.theme', theme]);
    document.documentElement.dataset.theme = theme;
  }

  // Requests from the UI that only the page can carry out (App::take_shell_requests, app/include/trainfit/app/app.h).
  const fileInput = document.getElementById('snapshot-file');
  function handleRequests() {
    if (!window.Module || !Module.calledRun) return;
    let list;
    try { list = JSON.parse(call('tf_call', ['string', 'string'], ['ui.requests', ''])); } catch (e) { return; }
    if (!Array.isArray(list)) return;
    for (const r of list) {
      if (r === 'open_file') fileInput.click();
      else if (typeof r === 'string' && r.startsWith('call:')) answerCall(r.slice(5));
      else if (r === 'open_full_app') {
        const u = new URL(location.href);
        u.searchParams.delete('embed');
        u.hash = lastHash ? '#' + lastHash : location.hash;
        window.open(u.href, '_blank', 'noopener');
      } else if (r === 'theme:dark' || r === 'theme:light') {
        const t = r.slice(6);
        document.documentElement.dataset.theme = t;
        try { localStorage.setItem(THEME_KEY, t); } catch (e) { /* private mode */ }
      }
    }
  }
  // Documents the page's module asks for and does not carry (the Launch section's recipe, a pasted config.json's
  // model): the JS API module's answer for the verb and argument it gives, handed back with the call's number (an
  // answer to a call no longer outstanding is dropped there).
  function answerCall(id) {
    const c = parse(call('tf_call', ['string', 'string'], ['ui.call', id]));
    if (!c.verb) return;
    const answer = (doc) => call('tf_call', ['string', 'string'], ['ui.answer', id + '\n' + doc]);
    const fail = (e) => answer(JSON.stringify({ ok: false, error: { field: '', message: 'the JS API could not load: ' + String((e && e.message) || e) } }));
    loadApi().then(() => {
      let doc;
      try { doc = apiCallText(c.verb, c.arg); } catch (e) { fail(e); return; }
      answer(doc);
    }, fail);
  }
  // A click's frame runs on the next animation frame: look a few frames later, while the click still counts
  // as a user gesture (the file picker and window.open need one); a slow poll catches keyboard activations.
  function pollSoon() {
    let n = 0;
    // The last look also refreshes the live text: a click can change the view without changing the query
    // (a column sorted descending), which trainfitQueryChanged would not report.
    // (8 frames: a click that reached the page in one burst lands in imgui over three, main_web.cpp's MouseTaps.)
    const tick = () => { handleRequests(); if (++n < 8) requestAnimationFrame(tick); else scheduleLive(); };
    requestAnimationFrame(tick);
  }
  window.addEventListener('pointerup', pollSoon, true);
  window.addEventListener('keyup', pollSoon, true);
  setInterval(handleRequests, 500);

  // Load a snapshot file (picker or drag and drop) through the same validation as the bundled one. A refused
  // file leaves the current snapshot in place; the UI shows why.
  const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;
  async function loadFile(file) {
    if (!file) return;
    if (file.size > MAX_SNAPSHOT_BYTES) { banner(file.name + ' is larger than 64 MB; the current prices stay in use.'); return; }
    let text;
    try { text = await file.text(); } catch (e) { banner('Could not read ' + file.name + ': ' + e.message); return; }
    await ready;
    const r = loadText(text, file.name);
    banner(r.ok ? '' : 'Snapshot ' + file.name + ' refused: ' + r.error.message + '. The current prices stay in use.');
  }
  fileInput.addEventListener('change', () => { loadFile(fileInput.files[0]); fileInput.value = ''; });
  window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dropping'); });
  window.addEventListener('dragleave', () => document.body.classList.remove('dropping'));
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dropping');
    const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    loadFile(f);
  });

  // ---- Text for screen readers: an off-screen live region (index.html #live) mirrors the headline. The whole
  // text is built here, from the JS API's documents, so a field is one line to add; it is set with textContent.
  function usdText(v) {
    return v >= 100 ? '$' + Math.round(v).toLocaleString('en-US') : '$' + v.toFixed(2);
  }
  function durationText(s) {
    const h = s / 3600;
    return h < 1 ? Math.round(s / 60) + ' min' : h < 48 ? h.toFixed(1) + ' h' : (h / 24).toFixed(1) + ' days';
  }
  // `st`: trainfit.state(); `rows`: the first rows of trainfit.view() (in table order).
  function headlineText(st, rows) {
    const parts = [st.job + '.'];
    if (typeof st.ranked !== 'number') {
      parts.push(st.snapshot ? 'No ranking: ' + (st.rank_error || 'unknown error') + '.' : 'Prices are loading.');
      return parts.join(' ');
    }
    parts.push(st.ranked > 0 ? 'Fits on ' + st.ranked + ' of ' + st.rows_total + ' offer and pricing rows.'
      : 'No offer both fits and passes the filters (' + st.rows_total + ' checked).');
    rows.filter((r) => r.state === 'ranked').slice(0, 3).forEach((r, i) => {
      parts.push((i + 1) + ': ' + r.offer + ' ' + r.option + ', ' + durationText(r.wall_s) + ', ' + usdText(r.total_usd) + '.');
    });
    // Held back: the rank document's count when it gives one, else every row that is not ranked.
    const c = st.counts || {};
    const held = typeof c.held_back === 'number' ? c.held_back : st.rows_total - st.ranked;
    const why = [['does_not_fit', 'do not fit'], ['filtered', 'filtered out'], ['no_price', 'have no price'],
      ['unsupported', 'unsupported'], ['error', 'failed']]
      .filter(([k]) => c[k] > 0).map(([k, words]) => c[k] + ' ' + words);
    if (held > 0) parts.push(held + ' held back' + (why.length ? ' (' + why.join(', ') + ')' : '') + '.');
    return parts.join(' ');
  }
  const live = document.getElementById('live');
  function updateLive() {
    if (!started || !live) return;
    const st = parse(call('tf_state', [], []));
    const v = parse(call('tf_call', ['string', 'string'], ['ui.view', '3']));
    const text = headlineText(st, (v && v.rows) || []);
    if (live.textContent !== text) live.textContent = text;
  }
  let liveTimer = 0;
  function scheduleLive() {  // after the module's frame that reported the change, not inside it
    if (!liveTimer) liveTimer = setTimeout(() => { liveTimer = 0; updateLive(); }, 0);
  }

  // ---- A phone's keyboard for the canvas's text fields (web/main_web.cpp, NOTE(touch, typing)): the module asks
  // for it when a field becomes active after a touch; what the keyboard types comes back as characters and key
  // taps. The hidden field itself stays empty.
  const ime = document.getElementById('ime');
  const GLFW_KEY = { Backspace: 259, Enter: 257, Delete: 261 };
  window.trainfitTextInput = function (on) {
    if (!ime) return;
    if (on) { ime.value = ''; ime.focus({ preventScroll: true }); } else if (document.activeElement === ime) ime.blur();
  };
  function typed(text) { if (text) Module.ccall('tf_type', null, ['string'], [text]); }
  if (ime) {
    // A hardware keyboard's keys reach the module as before (GLFW's listeners on the window, after this one):
    // only their default action, typing into this field, is cancelled, so nothing arrives twice.
    ime.addEventListener('keypress', (e) => e.preventDefault());
    ime.addEventListener('keydown', (e) => { if (e.key && e.key.length > 1 && e.keyCode !== 229) e.preventDefault(); });
    ime.addEventListener('beforeinput', (e) => {
      if (e.inputType === 'insertText' || e.inputType === 'insertReplacementText') typed(e.data);
      else if (e.inputType === 'deleteContentBackward') Module.ccall('tf_key_tap', null, ['number'], [GLFW_KEY.Backspace]);
      else if (e.inputType === 'deleteContentForward') Module.ccall('tf_key_tap', null, ['number'], [GLFW_KEY.Delete]);
      else if (e.inputType === 'insertLineBreak' || e.inputType === 'insertParagraph') Module.ccall('tf_key_tap', null, ['number'], [GLFW_KEY.Enter]);
      else return;  // composition: its text arrives with compositionend
      e.preventDefault();
    });
    ime.addEventListener('compositionend', (e) => { typed(e.data); ime.value = ''; });
    ime.addEventListener('input', (e) => { if (!e.isComposing) ime.value = ''; });
  }

  // Called by the module whenever the query changes (web/main_web.cpp).
  window.trainfitQueryChanged = function (hash) {
    if (!started) return;  // before the link and the saved query are applied: nothing to mirror yet
    lastHash = hash;
    if (!embedded || params.get('sync') === '1') history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
    try { localStorage.setItem(STORAGE_KEY, hash); } catch (e) { /* private mode */ }
    scheduleLive();
    for (const cb of listeners) { try { cb(hash); } catch (e) { console.warn(e); } }
    if (window.parent !== window) window.parent.postMessage({ type: 'trainfit:change', hash: hash }, parentOrigin);
  };
  window.trainfitCopy = function (text) {
    if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
  };
  window.trainfitFatal = function (text) { splash(text); banner(text); };
  window.trainfitStarted = function () { start(); };

  window.addEventListener('hashchange', () => {
    const h = location.hash.replace(/^#/, '');
    if (h !== lastHash) applyHash(h, 'link');
  });
  document.addEventListener('paste', (e) => {
    const t = e.clipboardData && e.clipboardData.getData('text/plain');
    if (t) Module.ccall('tf_paste', null, ['string'], [t]);
  });
  // Messages from the embedding page only: {type: 'trainfit:set-query', query: {...}}. The sender must be our
  // parent window and come from its origin (?origin=... when the referrer is withheld); the shape is checked.
  window.addEventListener('message', (e) => {
    if (e.source !== window.parent || window.parent === window) return;
    if (parentOrigin !== '*' && e.origin !== parentOrigin) return;
    const m = e.data;
    if (!m || typeof m !== 'object' || m.type !== 'trainfit:set-query') return;
    if (typeof m.query !== 'object' || m.query === null) return;
    ready.then(() => call('tf_set_query', ['string'], [JSON.stringify(m.query)]));
  });

  // emscripten's Module.instantiateWasm hook. The compile itself started when this file ran (early.wasm,
  // above), ~40 ms before trainfit.js runs and calls this: here the compiled module is only instantiated.
  function instantiateWasm(imports, receive) {
    early.wasm
      .then((module) => WebAssembly.instantiate(module, imports).then((instance) => ({ instance, module })))
      .then(({ instance, module }) => receive(instance, module), (e) => {  // compile or instantiation failed
        banner('The calculator could not load: ' + String((e && e.message) || e));
        splash('The calculator could not load.');
      });
    return {};  // exports arrive through receive()
  }
  canvas.addEventListener('webglcontextlost', (e) => { e.preventDefault(); banner('The graphics context was lost; reload the page.'); });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());

  // The public API for pages that embed or script the calculator. Same JSON as the CLI's --format json.
  window.trainfit = {
    // Resolved once the snapshot is loaded, the first frames are drawn and the JS API's module is in: asking for it
    // is what loads that module. It resolves even when that module cannot load: the page works, and trainfit.call
    // then answers an error saying why.
    get ready() { return loadApi().then(() => undefined, () => undefined); },
    state: () => parse(call('tf_state', [], [])),
    query: () => parse(call('tf_query', [], [])),
    setQuery: (q) => parse(call('tf_set_query', ['string'], [typeof q === 'string' ? q : JSON.stringify(q)])),
    setHash: (h) => parse(call('tf_set_hash', ['string'], [h])),
    call: (verb, q) => parse(apiCallText(verb, q)),
    // The same document as the exact text the core wrote: byte for byte what `trainfit VERB --format json` prints.
    callText: (verb, q) => apiCallText(verb, q),
    // A snapshot as JSON (text or object), or in its binary form (an ArrayBuffer or a typed array: `trainfit
    // snapshot pack`); the bytes are copied, so the caller may reuse its buffer.
    loadSnapshot: (data, origin) => {
      origin = origin || 'user file';
      if (data instanceof ArrayBuffer) return loadBinary(data.slice(0), origin);
      if (ArrayBuffer.isView(data)) return loadBinary(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice(), origin);
      return loadText(typeof data === 'string' ? data : JSON.stringify(data), origin);
    },
    // A Hugging Face config.json (text or object) read by the core, every architecture knob derived: the facade's
    // hf_config document ({ok, model, params}), the same reader as the CLI's --hf-config and the page's paste box.
    modelFromHfConfig: (config) => parse(apiCallText('hf_config', typeof config === 'string' ? config : JSON.stringify(config))),
    // ...made the current query's model; on error the query stays and the error names the config field.
    setHfConfig: (config) => {
      const r = window.trainfit.modelFromHfConfig(config);
      if (!r.ok) return r;
      const q = window.trainfit.query();
      q.model = r.model;
      return window.trainfit.setQuery(q);
    },
    onChange: (cb) => { listeners.push(cb); },
    // The rows the table shows (its order and numbers), and selecting one of them by its position.
    view: () => parse(call('tf_call', ['string', 'string'], ['ui.view', ''])),
    select: (i) => parse(call('tf_call', ['string', 'string'], ['ui.select', String(i)])),
    setTheme: (t) => {
      const r = parse(call('tf_call', ['string', 'string'], ['ui.theme', String(t)]));
      if (r.ok) {
        document.documentElement.dataset.theme = t;
        try { localStorage.setItem(THEME_KEY, t); } catch (e) { /* private mode */ }
      }
      return r;
    },
    embedded: embedded,
    // The text the page gives screen readers (its live region), as it is now.
    liveText: () => (live ? live.textContent : ''),
  };

  window.Module = {
    canvas: canvas,
    instantiateWasm: instantiateWasm,
    print: (t) => console.log(t),
    printErr: (t) => console.warn(t),
    onAbort: (what) => banner('The calculator stopped: ' + what),
  };

  if ('serviceWorker' in navigator && location.protocol !== 'file:' && params.get('nosw') !== '1') {
    navigator.serviceWorker.register('sw.js').catch(() => { /* offline cache is optional */ });
  }
})();
