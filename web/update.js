// trainfit — the published price snapshot, checked before the page uses it (docs/snapshot.md, "Publishing and
// updating"). Loaded by web/app.js after the first frame, never on the first-visit path: the bundled snapshot is
// on screen first. When online it reads the manifest (same origin; default updates/snapshot-manifest.json,
// ?manifest=PATH to choose another), and only when the manifest names another snapshot does it download the files,
// check each one's size and SHA-256 (crypto.subtle) and the id and build date inside the binary, and then load
// them. Any problem keeps the bundled snapshot: offline or nothing published quietly (a console note), a bad
// manifest, a tampered file or a wrong id with a banner saying why. Text from the manifest reaches the page only
// through textContent (the banner) and the module's origin string.
'use strict';
// The outcome ({ok, current | id | why}) is kept in window.trainfitUpdateResult for tests and scripts.
window.trainfitCheckUpdate = (shell) => check(shell).then((r) => { window.trainfitUpdateResult = r; return r; });
async function check(shell) {
  const MAX_MANIFEST = 1 << 20, MAX_FILE = 64 * 1024 * 1024;
  const note = (m) => console.warn('trainfit: snapshot update: ' + m);
  const refuse = (why) => {
    note(why + '; the bundled snapshot stays in use');
    shell.banner('A published price snapshot was refused: ' + why + '. The bundled snapshot stays in use.');
    return { ok: false, why: why };
  };
  let url;
  try { url = new URL(shell.params.get('manifest') || 'updates/snapshot-manifest.json', location.href); } catch (e) {
    return refuse('the manifest address is not a URL');
  }
  if (url.origin !== location.origin) return refuse('manifests load only from this site (' + url.origin + ' refused)');
  const get = async (u, max) => {
    const res = await fetch(u, { cache: 'no-store', credentials: 'omit' });
    if (!res.ok) throw Object.assign(new Error('HTTP ' + res.status + ' for ' + u), { status: res.status });
    if (Number(res.headers.get('content-length') || 0) > max) throw Object.assign(new Error(u + ' is larger than ' + max + ' bytes'), { tooBig: true });
    const bytes = await res.arrayBuffer();
    if (bytes.byteLength > max) throw Object.assign(new Error(u + ' is larger than ' + max + ' bytes'), { tooBig: true });
    return bytes;
  };
  let m;
  try {
    m = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await get(url.href, MAX_MANIFEST)));
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof TypeError || e.tooBig) return refuse('bad manifest (' + e.message + ')');
    note('no manifest (' + e.message + '): offline or nothing published; the bundled snapshot stays in use');
    return { ok: false, why: 'unreachable' };
  }
  const bad = checkManifest(m);
  if (bad) return refuse('bad manifest: ' + bad);
  await shell.textDone;  // the bundled sidecar first: the module applies a sidecar to the snapshot it has now
  const st = shell.parse(shell.call('tf_state', [], []));
  if (st.snapshot === m.snapshot_id) return { ok: true, current: true };
  const files = {};
  for (const f of m.files) {
    const u = new URL(f.name, url).href;
    let bytes;
    try {
      bytes = await get(u, f.bytes);
    } catch (e) {
      if (e.tooBig) return refuse(f.name + ' is larger than the manifest says (tampered or mismatched file)');
      note('cannot download ' + u + ' (' + e.message + '); the bundled snapshot stays in use');
      return { ok: false, why: 'unreachable' };
    }
    if (bytes.byteLength !== f.bytes) return refuse(f.name + ' is ' + bytes.byteLength + ' bytes, the manifest says ' + f.bytes);
    const hash = await sha256hex(bytes);
    if (hash !== f.sha256) return refuse(f.name + ' does not match its SHA-256 in the manifest (tampered or damaged file)');
    files[f.role] = bytes;
  }
  const head = binaryHead(files.snapshot);
  if (!head) return refuse('the snapshot file is not a trainfit binary snapshot');
  if (head.id !== m.snapshot_id) return refuse('the snapshot file holds "' + head.id + '", the manifest names "' + m.snapshot_id + '"');
  if (head.created !== m.created) return refuse('the snapshot file was built ' + head.created + ', the manifest says ' + m.created);
  const origin = 'published snapshot ' + m.snapshot_id + ' (' + url.pathname + ', SHA-256 checked)';
  const r = shell.loadBinary(files.snapshot, origin);
  if (!r.ok) return refuse('the published snapshot does not load (' + ((r.error && r.error.message) || 'unknown error') + ')');
  if (files.text) {
    const t = shell.applyText(new TextDecoder().decode(files.text));
    if (!t.ok) note('its text sidecar was refused (' + t.error.message + ')');
  }
  return { ok: true, id: m.snapshot_id };

  // The fields this page relies on, checked as the core's reader checks them (core manifest.h).
  function checkManifest(x) {
    const date = /^\d{4}-\d{2}-\d{2}$/, hex = /^[0-9a-f]{64}$/, name = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
    if (!x || typeof x !== 'object' || Array.isArray(x)) return 'not a JSON object';
    if (x.format !== 'trainfit-snapshot-manifest') return '/format is not "trainfit-snapshot-manifest"';
    if (x.version !== 1) return '/version is not 1 (this page reads version 1)';
    if (typeof x.snapshot_id !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(x.snapshot_id) || /["\\]/.test(x.snapshot_id))
      return '/snapshot_id is missing or not a plain id';
    if (typeof x.created !== 'string' || !date.test(x.created)) return '/created is not a date';
    if (typeof x.lean !== 'boolean') return '/lean is not true or false';
    if (!Array.isArray(x.files) || x.files.length !== (x.lean ? 2 : 1)) return '/files must list the binary' + (x.lean ? ' and its text sidecar' : '');
    for (let i = 0; i < x.files.length; i++) {
      const f = x.files[i], at = '/files/' + i;
      if (!f || typeof f !== 'object') return at + ' is not an object';
      if (f.role !== (i === 0 ? 'snapshot' : 'text')) return at + '/role must be ' + (i === 0 ? '"snapshot"' : '"text"');
      if (typeof f.name !== 'string' || !name.test(f.name)) return at + '/name is not a plain file name';
      if (!Number.isInteger(f.bytes) || f.bytes < 1 || f.bytes > MAX_FILE) return at + '/bytes is not a size from 1 byte to 64 MB';
      if (typeof f.sha256 !== 'string' || !hex.test(f.sha256)) return at + '/sha256 is not 64 lowercase hex digits';
    }
    return '';
  }
  async function sha256hex(bytes) {
    const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
  }
  // The binary's header ("TFSB", docs/snapshot.md "Binary form") and the payload's first strings: id, currency,
  // created (u32 little-endian length + UTF-8 bytes each). Read before loading, so a wrong id never replaces the
  // snapshot on screen.
  function binaryHead(buf) {
    const v = new DataView(buf);
    if (buf.byteLength < 44 || v.getUint32(0, true) !== 0x42534654) return null;  // "TFSB"
    let pos = 32;
    const str = () => {
      if (pos + 4 > buf.byteLength) return null;
      const n = v.getUint32(pos, true);
      if (n > 1000 || pos + 4 + n > buf.byteLength) return null;
      const s = new TextDecoder().decode(new Uint8Array(buf, pos + 4, n));
      pos += 4 + n;
      return s;
    };
    const id = str(), currency = str(), created = str();
    return id === null || currency === null || created === null ? null : { id: id, created: created };
  }
}
