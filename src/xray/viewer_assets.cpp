// The viewers' CSS and JavaScript. All user text reaches the DOM through textContent, never
// innerHTML; the data comes from a <script type="application/json"> element.
#include "xray/viewer_assets.hpp"

namespace nndna::xray::detail {

std::string_view traceViewerCss() {
  return R"CSS(
*{box-sizing:border-box;margin:0;padding:0}
body{background:#0d1117;color:#c9d1d9;font:13px -apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif;display:flex;flex-direction:column;height:100vh}
header{padding:10px 20px;background:#161b22;border-bottom:1px solid #30363d;display:flex;align-items:center;gap:18px;flex-wrap:wrap}
header h1{font-size:15px;font-weight:600;color:#f0f6fc}
.st{color:#8b949e}.st b{color:#c9d1d9}.st b.err{color:#f85149}.st b.warn{color:#d29922}.st b.open{color:#a371f7}
#searchbox{margin-left:auto;display:flex;gap:4px;align-items:center}
#search{background:#0d1117;color:#c9d1d9;border:1px solid #30363d;border-radius:6px;padding:5px 9px;width:300px}
#matches{color:#8b949e;min-width:90px}
button{background:#21262d;color:#c9d1d9;border:1px solid #30363d;border-radius:6px;padding:3px 9px;cursor:pointer;font:inherit}
button:hover{background:#30363d}
.note{background:#3d1f1f;color:#ffa198;padding:6px 20px;border-bottom:1px solid #30363d}
.note.warning{background:#3b2e0c;color:#e3b341}
nav{display:flex;gap:4px;padding:6px 20px 0;background:#161b22;border-bottom:1px solid #30363d}
nav button{background:none;border:1px solid transparent;border-bottom:none;color:#8b949e;padding:6px 14px;border-radius:6px 6px 0 0}
nav button.on{background:#0d1117;border-color:#30363d;color:#f0f6fc}
#main{display:flex;flex:1;overflow:hidden}
section[hidden]{display:none!important}
#overview-view{flex:1;overflow:auto;padding:18px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:10px;margin-bottom:16px}
.card{border:1px solid #30363d;border-radius:8px;background:#161b22;padding:10px}
.card .k{font-size:11px;text-transform:uppercase;color:#8b949e;margin-bottom:4px}.card .v{font-size:19px;font-weight:700;color:#f0f6fc}
.panel{border:1px solid #30363d;border-radius:8px;background:#161b22;padding:12px;margin-bottom:12px}
.panel h3{font-size:13px;margin-bottom:8px;color:#f0f6fc}
.panel table{border-collapse:collapse;width:100%}.panel td,.panel th{padding:3px 8px;text-align:left;border-bottom:1px solid #21262d}
.panel th{color:#8b949e;font-weight:normal}.panel td.n{text-align:right;font-variant-numeric:tabular-nums}
.chain{display:flex;flex-wrap:wrap;gap:4px;align-items:center}.chain .sep{color:#484f58}
.link{background:#21262d;border:1px solid #30363d;border-radius:6px;padding:2px 7px;cursor:pointer;color:#c9d1d9}
.link.err{border-color:#f85149}
.muted{color:#8b949e}
#graph-view{flex:1;display:flex;flex-direction:column;overflow:hidden}
#graph-tools{display:flex;gap:4px;align-items:center;padding:6px 10px;border-bottom:1px solid #21262d;flex-wrap:wrap}
#legend{display:flex;gap:10px;margin-left:12px;flex-wrap:wrap;color:#8b949e}
.sw{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-2px;margin-right:4px;border:2px solid transparent}
#graph-port{flex:1;overflow:hidden;position:relative;cursor:grab}
#graph-port.drag{cursor:grabbing}
#graph-canvas{position:absolute;left:0;top:0;transform-origin:0 0}
#graph-canvas .msg{color:#8b949e;padding:40px;text-align:center;width:600px}
#graph-view g.node{cursor:pointer}
#graph-view g.node:hover path,#graph-view g.node:hover polygon{stroke:#58a6ff;stroke-width:2}
#graph-view g.node.sel path,#graph-view g.node.sel polygon{stroke:#58a6ff;stroke-width:4}
#graph-view g.node.dim{opacity:.25}
#graph-view g.node.match path,#graph-view g.node.match polygon{stroke:#e3b341;stroke-width:4}
#timeline-view{flex:1;display:flex;flex-direction:column;overflow:hidden}
#tl-filters{display:flex;gap:14px;align-items:center;padding:6px 10px;border-bottom:1px solid #21262d;color:#8b949e}
#tl-filters select{background:#0d1117;color:#c9d1d9;border:1px solid #30363d;border-radius:6px;padding:2px 4px}
#tl-head{display:flex;color:#8b949e;padding:4px 0;border-bottom:1px solid #30363d;height:24px}
#tl-axis{position:relative}.tick{position:absolute;top:0;font-size:11px;border-left:1px solid #30363d;padding-left:3px;white-space:nowrap;height:16px}
#tl-scroll{flex:1;overflow:auto;position:relative}
#tl-inner{position:relative}
.row{position:absolute;left:0;right:0;height:22px;display:flex;align-items:center;cursor:pointer;border-bottom:1px solid #161b22}
.row:hover{background:#161b22}.row.sel{background:#1f2a3a}.row.hit .nm{color:#e3b341}
.nm,.hn{width:300px;flex-shrink:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;padding-right:8px}
.lane,.hl{flex:1;position:relative;height:14px}
.ms,.hm{width:80px;flex-shrink:0;text-align:right;padding-right:10px;color:#8b949e}
.bar{position:absolute;top:0;height:14px;border-radius:3px;min-width:2px;border:2px solid transparent}
.row.err .bar{border-color:#f85149}.row.slow .bar{border-color:#d29922}.row.open .bar{border-style:dashed;border-color:#a371f7}
.row.err .nm{color:#f85149}
#det{width:380px;background:#161b22;border-left:1px solid #30363d;overflow-y:auto;padding:16px;flex-shrink:0}
.hint{color:#6e7681;text-align:center;padding:40px 10px}
.dt{font-size:14px;font-weight:600;margin-bottom:10px;color:#f0f6fc;word-break:break-all}
.ds{margin-bottom:12px}
.dl{font-size:10px;text-transform:uppercase;color:#8b949e;margin-bottom:3px;letter-spacing:.5px}
.dv{background:#0d1117;border:1px solid #30363d;border-radius:6px;padding:7px 9px;font-family:'SF Mono','Fira Code',monospace;font-size:12px;white-space:pre-wrap;word-break:break-all;max-height:240px;overflow-y:auto}
.dv.ok{color:#3fb950}.dv.err{color:#f85149}.dv.slow{color:#d29922}.dv.open{color:#a371f7}
.dv b{color:#79c0ff}
.links button{margin:2px}
#picker{display:flex;gap:4px;align-items:center;margin-bottom:12px;color:#8b949e}
#picker input{width:90px;background:#0d1117;color:#c9d1d9;border:1px solid #30363d;border-radius:6px;padding:3px 6px}
)CSS";
}

std::string_view traceViewerJs() {
  return R"JS(
(async () => {
"use strict";
// Marks of how the page opened (bench/xray/open_viewer.mjs reads them): the HTML read up to this
// script, the data parsed and decoded, the views ready.
performance.mark("xray-script");
// The data is gzip in base64 (trace_html.cpp): the browser decodes and inflates it natively.
const packed = await fetch("data:application/gzip;base64," + document.getElementById("xray-data").textContent);
const D = JSON.parse(await new Response(packed.body.pipeThrough(new DecompressionStream("gzip"))).text());
const N = D.count, G = D.groups;
// The columns arrive encoded (trace_html.cpp): runs of small values, differences, ids as a prefix
// and numbers. They become typed arrays here, so a million spans take a few MB of memory.
function decode(col, Kind) {
  const out = new Kind(N);
  if (Array.isArray(col)) { out.set(col); return out; }
  for (let k = 0, at = 0; k < col.runs.length; k += 2) { out.fill(col.runs[k], at, at + col.runs[k + 1]); at += col.runs[k + 1]; }
  return out;
}
function sums(col) {
  const out = new Float64Array(N);
  for (let i = 0, total = 0; i < N; i++) { total += col[i]; out[i] = total; }
  return out;
}
{
  const start = sums(D.start), lat = new Float64Array(N), parent = new Int32Array(N);
  for (let i = 0; i < N; i++) { start[i] /= 1e4; lat[i] = D.lat[i] / 1e4; parent[i] = D.parent[i] ? i - D.parent[i] : -1; }
  D.start = start; D.lat = lat; D.parent = parent;
  ["name", "kind", "thread", "flags", "group"].forEach((c) => { D[c] = decode(D[c], Int32Array); });
}
performance.mark("xray-data");
const idNumbers = Array.isArray(D.id) ? null : sums(D.id.numbers);
const idOf = (i) => idNumbers ? D.id.prefix + idNumbers[i] : D.id[i];
let byIdMap = null;  // made on first use (a deep link to a span id)
function byId(id) {
  if (!byIdMap) { byIdMap = new Map(); for (let i = 0; i < N; i++) byIdMap.set(idOf(i), i); }
  return byIdMap.get(id);
}
const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function fmtMs(ms) {
  if (ms < 1) return ms.toFixed(2) + " ms";
  if (ms < 100) return ms.toFixed(1) + " ms";
  if (ms < 10000) return Math.round(ms) + " ms";
  return (ms / 1000).toFixed(1) + " s";
}
const nameOf = (i) => D.names[D.name[i]];
const kindOf = (i) => D.kinds[D.kind[i]];
const det = (i) => D.details[i] || {};
const isErr = (i) => (D.flags[i] & 1) !== 0, isOpen = (i) => (D.flags[i] & 2) !== 0;
function status(i) { return isErr(i) ? "err" : isOpen(i) ? "open" : D.lat[i] >= D.slow_ms ? "slow" : "ok"; }
const STATUS_TEXT = {err: "ERROR", open: "UNFINISHED", slow: "SLOW", ok: "OK"};

// ---- structure: children, depth, members of each folded box, subtree totals ----
const childStart = new Int32Array(N + 1), childList = new Int32Array(Math.max(N, 1)), depth = new Int32Array(N);
for (let i = 0; i < N; i++) if (D.parent[i] >= 0) childStart[D.parent[i] + 1]++;
for (let i = 0; i < N; i++) childStart[i + 1] += childStart[i];
{ const fill = childStart.slice(0, N); for (let i = 0; i < N; i++) { const p = D.parent[i]; if (p >= 0) childList[fill[p]++] = i; } }
for (let i = 0; i < N; i++) if (D.parent[i] >= 0) depth[i] = depth[D.parent[i]] + 1;
const members = G.map(() => []);
for (let i = 0; i < N; i++) members[D.group[i]].push(i);
const rollTok = new Float64Array(N), rollCost = new Float64Array(N);
for (const key in D.details) {  // only spans with details can carry tokens and cost
  const m = D.details[key].meta;
  if (!m) continue;
  if (typeof m.total_tokens === "number") rollTok[key] += m.total_tokens;
  if (typeof m.estimated_cost_usd === "number") rollCost[key] += m.estimated_cost_usd;
}
for (let i = N - 1; i >= 0; i--) {
  const p = D.parent[i];
  if (p >= 0) { rollTok[p] += rollTok[i]; rollCost[p] += rollCost[i]; }
}
const threads = [...new Set(D.thread)].sort((a, b) => a - b);

// ---- details panel ----
let selected = -1;
function section(label, value, cls) {
  const s = el("div", "ds");
  s.append(el("div", "dl", label));
  const v = el("div", "dv" + (cls ? " " + cls : ""));
  if (value instanceof Node) v.append(value); else v.textContent = String(value);
  s.append(v);
  return s;
}
function keyValues(obj) {
  const f = document.createDocumentFragment();
  Object.keys(obj).forEach((k, idx) => {
    if (idx) f.append("\n");
    f.append(el("b", null, k), ": " + (typeof obj[k] === "string" ? obj[k] : JSON.stringify(obj[k])));
  });
  return f;
}
function nodeButton(i, text) {
  const b = el("button", "link" + (isErr(i) ? " err" : ""), text);
  b.addEventListener("click", () => select(i, true));
  return b;
}
function rawJson(i) {
  const d = det(i), kids = [];
  for (let c = childStart[i]; c < childStart[i + 1]; c++) kids.push(idOf(childList[c]));
  return JSON.stringify({id: idOf(i), name: nameOf(i), inputs: d.inputs || {}, output: d.output ?? null,
    error: d.error ?? null, start_ms: D.start[i], latency_ms: D.lat[i], kind: kindOf(i) || null, tags: d.tags || [],
    meta: d.meta || {}, open: isOpen(i), thread: D.thread[i], parent: D.parent[i] >= 0 ? idOf(D.parent[i]) : null,
    children: kids}, null, 2);
}
function copyText(text, button) {
  const done = () => { button.textContent = "Copied"; document.body.dataset.copied = "1"; };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text) && done());
  } else if (fallbackCopy(text)) done();
}
function fallbackCopy(text) {
  const area = el("textarea"); area.value = text; document.body.append(area); area.select();
  const ok = document.execCommand("copy"); area.remove(); return ok;
}
function picker(i) {
  const list = members[D.group[i]], k = list.indexOf(i), box = el("div"); box.id = "picker";
  const input = el("input"); input.type = "number"; input.min = 1; input.max = list.length; input.value = k + 1;
  input.id = "call-number";
  const go = (n) => select(list[Math.min(list.length, Math.max(1, n)) - 1], true);
  input.addEventListener("change", () => go(Number(input.value)));
  const prev = el("button", null, "\u25c0"), next = el("button", null, "\u25b6");
  prev.addEventListener("click", () => go(k)); next.addEventListener("click", () => go(k + 2));
  box.append("call", input, el("span", null, "of " + list.length), prev, next);
  const firstErr = list.find(isErr);
  if (firstErr !== undefined) { const b = el("button", null, "first error"); b.addEventListener("click", () => select(firstErr, true)); box.append(b); }
  return box;
}
function showNode(i) {
  const d = det(i), box = $("det");
  box.replaceChildren();
  if (members[D.group[i]].length > 1) box.append(picker(i));
  box.append(el("div", "dt", nameOf(i)));
  const st = status(i);
  box.append(section("Status", STATUS_TEXT[st], st));
  box.append(section("Latency", fmtMs(D.lat[i]) + (isOpen(i) ? " (never finished)" : "")));
  box.append(section("Where", "start +" + fmtMs(D.start[i]) + " \u00b7 thread " + D.thread[i] +
                     (kindOf(i) ? " \u00b7 kind " + kindOf(i) : "") + " \u00b7 id " + idOf(i)));
  if (!D.details[i] && D.details_omitted) box.append(el("p", "muted", "Details of this span are not in the page (it is large): read them in the trace JSON."));
  if (d.tags && d.tags.length) box.append(section("Tags", d.tags.join(", ")));
  if (d.error != null) box.append(section("Error", d.error, "err"));
  if (d.inputs && Object.keys(d.inputs).length) box.append(section("Inputs", keyValues(d.inputs)));
  if (d.output != null) box.append(section("Output", d.output));
  const m = d.meta || {};
  if (m.model) box.append(section("Model", m.model));
  const toks = [];
  if (m.prompt_tokens != null) toks.push("prompt " + m.prompt_tokens);
  if (m.completion_tokens != null) toks.push("completion " + m.completion_tokens);
  if (m.total_tokens != null) toks.push("total " + m.total_tokens);
  if (toks.length) box.append(section("Tokens", toks.join(" \u00b7 ")));
  if (m.estimated_cost_usd != null) box.append(section("Est. cost", "$" + Number(m.estimated_cost_usd).toFixed(6), "slow"));
  const known = ["model", "prompt_tokens", "completion_tokens", "total_tokens", "estimated_cost_usd"];
  const extra = {};
  Object.keys(m).filter((k) => !known.includes(k)).forEach((k) => { extra[k] = m[k]; });
  if (Object.keys(extra).length) box.append(section("Meta", keyValues(extra)));
  if (rollTok[i] || rollCost[i]) box.append(section("Subtree totals", rollTok[i] + " tokens \u00b7 $" + rollCost[i].toFixed(6)));
  const links = el("div", "links");
  if (D.parent[i] >= 0) links.append(nodeButton(D.parent[i], "\u2191 " + nameOf(D.parent[i])));
  for (let c = childStart[i]; c < Math.min(childStart[i + 1], childStart[i] + 50); c++) links.append(nodeButton(childList[c], "\u2193 " + nameOf(childList[c])));
  if (links.childNodes.length) box.append(section("Parent / children", links));
  const copy = el("button", null, "Copy JSON"); copy.id = "copy-json";
  copy.addEventListener("click", () => copyText(rawJson(i), copy));
  const raw = el("details"); raw.append(el("summary", "dl", "Raw JSON"), el("pre", "dv", rawJson(i)));
  box.append(copy, raw);
}

// ---- call graph: boxes, pan, zoom, fit, legend ----
const groupEls = new Map();
document.querySelectorAll("#graph-canvas g.node").forEach((g) => {
  const gi = Number(g.id.slice(1));
  if (!Number.isInteger(gi) || !G[gi]) return;
  groupEls.set(gi, g);
  g.addEventListener("click", (e) => {
    if (dragged) return;
    const list = members[gi], firstError = list.find(isErr);
    select(firstError !== undefined ? firstError : list[0], false);
    e.stopPropagation();
  });
});
const port = $("graph-port"), canvas = $("graph-canvas"), svg = canvas.querySelector("svg");
let zoom = 1, panX = 0, panY = 0, dragged = false;
function apply() { canvas.style.transform = "translate(" + panX + "px," + panY + "px) scale(" + zoom + ")"; canvas.dataset.zoom = zoom.toFixed(3); }
function size() { return svg ? {w: svg.width.baseVal.value, h: svg.height.baseVal.value} : {w: 0, h: 0}; }
function fit() {
  const s = size(), pw = port.clientWidth, ph = port.clientHeight;
  if (!s.w || !pw) return;
  zoom = Math.min(1, (pw - 20) / s.w, (ph - 20) / s.h);
  panX = (pw - s.w * zoom) / 2; panY = Math.max(10, (ph - s.h * zoom) / 2);
  apply();
}
function zoomAt(factor, x, y) {
  const z = Math.min(8, Math.max(0.02, zoom * factor));
  panX = x - (x - panX) * (z / zoom); panY = y - (y - panY) * (z / zoom); zoom = z; apply();
}
$("zoom-in").addEventListener("click", () => zoomAt(1.25, port.clientWidth / 2, port.clientHeight / 2));
$("zoom-out").addEventListener("click", () => zoomAt(0.8, port.clientWidth / 2, port.clientHeight / 2));
$("zoom-fit").addEventListener("click", fit);
$("zoom-reset").addEventListener("click", () => { zoom = 1; panX = 10; panY = 10; apply(); });
port.addEventListener("wheel", (e) => {
  e.preventDefault();
  const r = port.getBoundingClientRect();
  zoomAt(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
}, {passive: false});
let drag = null;
port.addEventListener("mousedown", (e) => { drag = {x: e.clientX, y: e.clientY, px: panX, py: panY}; dragged = false; });
window.addEventListener("mousemove", (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) { dragged = true; port.classList.add("drag"); }
  panX = drag.px + dx; panY = drag.py + dy; apply();
});
window.addEventListener("mouseup", () => { drag = null; port.classList.remove("drag"); setTimeout(() => { dragged = false; }, 0); });
function centerOn(g) {
  // The box's centre in the SVG's own pixels (getCTM stops at the <svg>), then placed mid-port.
  const b = g.getBBox(), m = g.getCTM(), cx = b.x + b.width / 2, cy = b.y + b.height / 2;
  const x = m.a * cx + m.c * cy + m.e, y = m.b * cx + m.d * cy + m.f;
  panX = port.clientWidth / 2 - x * zoom; panY = port.clientHeight / 2 - y * zoom; apply();
}
{
  const legend = $("legend"), used = new Set(D.kind);
  D.kinds.forEach((k, idx) => {
    if (!used.has(idx)) return;
    const item = el("span", "lg"); const sw = el("span", "sw"); sw.style.background = D.kind_colors[idx];
    item.append(sw, k || "(no kind)"); legend.append(item);
  });
  [["#f85149", "solid", "error"], ["#d29922", "solid", "slow"], ["#a371f7", "dashed", "unfinished"]].forEach(([c, style, label]) => {
    const item = el("span", "lg"); const sw = el("span", "sw"); sw.style.borderColor = c; sw.style.borderStyle = style;
    item.append(sw, label); legend.append(item);
  });
}

function select(i, scrollTo) {
  selected = i;
  groupEls.forEach((g) => g.classList.remove("sel"));
  const g = groupEls.get(D.group[i]);
  if (g) { g.classList.add("sel"); if (scrollTo && !$("graph-view").hidden) centerOn(g); }
  showNode(i);
  if (scrollTo && !$("timeline-view").hidden) {
    const r = rows.indexOf(i);
    if (r >= 0) scroller.scrollTop = Math.max(0, r * ROW - scroller.clientHeight / 2);
  }
  renderRows();
}

// ---- search over names, inputs, outputs, errors and metadata ----
let query = "", hits = [], hitSet = new Set(), hitAt = -1;
const namesLower = D.names.map((n) => n.toLowerCase());
function matches(i, q) {
  if (namesLower[D.name[i]].includes(q)) return true;
  const d = D.details[i];
  if (!d) return false;
  if (d.error != null && d.error.toLowerCase().includes(q)) return true;
  if (d.output != null && d.output.toLowerCase().includes(q)) return true;
  if (d.inputs && Object.entries(d.inputs).some(([k, v]) => k.toLowerCase().includes(q) || v.toLowerCase().includes(q))) return true;
  return !!d.meta && JSON.stringify(d.meta).toLowerCase().includes(q);
}
function runSearch() {
  query = $("search").value.trim().toLowerCase();
  hits = []; hitAt = -1;
  if (query) for (let i = 0; i < N; i++) if (matches(i, query)) hits.push(i);
  hitSet = new Set(hits);
  const hitGroups = new Set(hits.map((i) => D.group[i]));
  groupEls.forEach((g, gi) => { g.classList.toggle("match", hitGroups.has(gi)); g.classList.toggle("dim", query !== "" && !hitGroups.has(gi)); });
  $("matches").textContent = query ? hits.length + " match" + (hits.length === 1 ? "" : "es") : "";
  filterRows();
}
function step(delta) {
  if (!hits.length) return;
  hitAt = (hitAt + delta + hits.length) % hits.length;
  $("matches").textContent = (hitAt + 1) + " of " + hits.length + " matches";
  select(hits[hitAt], true);
}
let searchTimer = 0;
$("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, N > 100000 ? 250 : 0); });
$("search").addEventListener("keydown", (e) => { if (e.key === "Enter") { clearTimeout(searchTimer); if (!hits.length || query !== $("search").value.trim().toLowerCase()) runSearch(); step(e.shiftKey ? -1 : 1); } });
$("search-next").addEventListener("click", () => step(1));
$("search-prev").addEventListener("click", () => step(-1));

// ---- timeline: time axis, filters, virtualised rows ----
const ROW = 22;
let rows = [];
const scroller = $("tl-scroll"), inner = $("tl-inner");
const span = Math.max(D.total_ms, 1e-6);
threads.forEach((t) => { const o = el("option", null, "thread " + t); o.value = t; $("f-thread").append(o); });
D.kinds.forEach((k, idx) => { if (k && D.kind.includes(idx)) { const o = el("option", null, k); o.value = idx; $("f-kind").append(o); } });
function filterRows() {
  const errorsOnly = $("f-errors").checked, thread = $("f-thread").value, kind = $("f-kind").value;
  rows = [];
  for (let i = 0; i < N; i++) {
    if (errorsOnly && !isErr(i)) continue;
    if (thread !== "" && D.thread[i] !== Number(thread)) continue;
    if (kind !== "" && D.kind[i] !== Number(kind)) continue;
    if (query && !hitSet.has(i)) continue;
    rows.push(i);
  }
  $("tl-count").textContent = rows.length + " of " + N + " spans";
  renderRows();
}
["f-errors", "f-thread", "f-kind"].forEach((id) => $(id).addEventListener("change", filterRows));
function niceStep(ms) {
  const raw = ms / 6, p = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
}
function drawAxis() {
  const axis = $("tl-axis"); axis.replaceChildren();
  const stepMs = niceStep(span);
  for (let t = 0; t <= span + 1e-9; t += stepMs) {
    const tick = el("div", "tick", fmtMs(t)); tick.style.left = (t / span) * 100 + "%"; axis.append(tick);
  }
}
function renderRows() {
  if ($("timeline-view").hidden) return;
  inner.style.height = rows.length * ROW + "px";
  const first = Math.max(0, Math.floor(scroller.scrollTop / ROW) - 10);
  const last = Math.min(rows.length, first + Math.ceil((scroller.clientHeight || 600) / ROW) + 20);
  const frag = document.createDocumentFragment();
  for (let r = first; r < last; r++) {
    const i = rows[r];
    const row = el("div", "row " + status(i) + (i === selected ? " sel" : "") + (hitSet.has(i) ? " hit" : ""));
    row.style.top = r * ROW + "px";
    row.dataset.index = i;
    const name = el("div", "nm", nameOf(i));
    name.style.paddingLeft = 6 + 12 * Math.min(depth[i], 30) + "px";
    const lane = el("div", "lane"), bar = el("div", "bar");
    bar.style.left = (D.start[i] / span) * 100 + "%";
    bar.style.width = (D.lat[i] / span) * 100 + "%";
    bar.style.background = D.kind_colors[D.kind[i]];
    lane.append(bar);
    row.append(name, lane, el("div", "ms", fmtMs(D.lat[i])));
    row.addEventListener("click", () => select(i, false));
    frag.append(row);
  }
  inner.replaceChildren(frag);
}
let pending = false;
scroller.addEventListener("scroll", () => {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; renderRows(); });
});
window.addEventListener("resize", renderRows);

// ---- overview ----
function overviewTab() {
  const o = D.overview, view = $("overview-view"), cards = el("div", "cards");
  const card = (k, v, id) => { const c = el("div", "card"); c.append(el("div", "k", k)); const b = el("div", "v", v); if (id) b.id = id; c.append(b); cards.append(c); };
  card("Spans", N); card("Errors", o.error_count, "ov-errors"); card("Total", fmtMs(D.total_ms));
  card("Threads", threads.length); card("Tokens", D.tokens); card("Cost", "$" + D.cost.toFixed(6));
  view.append(cards);
  const panel = (title) => { const p = el("div", "panel"); p.append(el("h3", null, title)); view.append(p); return p; };
  if (o.critical.length) {
    const p = panel("Critical path"), chain = el("div", "chain"); chain.id = "critical-path";
    o.critical.forEach((i, k) => { if (k) chain.append(el("span", "sep", "\u203a")); chain.append(nodeButton(i, nameOf(i) + " " + fmtMs(D.lat[i]))); });
    p.append(chain);
  }
  const table = (p, head, list, cells) => {
    const t = el("table"), h = el("tr"); head.forEach((x) => h.append(el("th", null, x))); t.append(h);
    list.forEach((item) => { const tr = el("tr"); cells(item).forEach((c) => { const td = el("td", typeof c === "number" ? "n" : null); if (c instanceof Node) td.append(c); else td.textContent = String(c); tr.append(td); }); t.append(tr); });
    p.append(t);
  };
  table(panel("Slowest spans"), ["span", "latency", "thread"], o.slowest, (i) => [nodeButton(i, nameOf(i)), fmtMs(D.lat[i]), D.thread[i]]);
  const rep = panel("Repeated calls (same name and inputs)"); rep.id = "repeated";
  if (o.repeated.length) table(rep, ["call", "times", "total"], o.repeated, (r) => [nodeButton(r.nodes[0], r.name), r.nodes.length, fmtMs(r.total_ms)]);
  else rep.append(el("p", "muted", "None: no call was made twice with the same inputs."));
  const err = panel("Errors (" + o.error_count + ")"); err.id = "errors";
  if (o.errors.length) table(err, ["span", "error"], o.errors, (i) => [nodeButton(i, nameOf(i)), det(i).error || ""]);
  else err.append(el("p", "muted", "None."));
  if (o.models.length) {
    const p = panel("LLM calls per model"); p.id = "models";
    table(p, ["model", "calls", "prompt", "completion", "cost"], o.models, (m) => [m.model, m.calls, m.prompt_tokens, m.completion_tokens, "$" + m.cost.toFixed(6)]);
  }
}
overviewTab();

// ---- views ----
function show(view) {
  document.querySelectorAll("nav button").forEach((o) => o.classList.toggle("on", o.dataset.view === view));
  ["overview", "graph", "timeline"].forEach((v) => { $(v + "-view").hidden = v !== view; });
  if (view === "timeline") { drawAxis(); renderRows(); }
}
document.querySelectorAll("nav button").forEach((b) => b.addEventListener("click", () => show(b.dataset.view)));

// Deep links: #overview, #timeline, #node=<span id>, #search=<text>, #errors, #thread=<n>, #kind=<kind>
// (combinable with "&").
filterRows();
fit();
for (const part of decodeURIComponent(location.hash.slice(1)).split("&")) {
  const eq = part.indexOf("="), key = eq < 0 ? part : part.slice(0, eq), value = eq < 0 ? "" : part.slice(eq + 1);
  if (key === "overview" || key === "timeline" || key === "graph") show(key);
  if (key === "errors") { $("f-errors").checked = true; filterRows(); }
  if (key === "thread") { $("f-thread").value = value; filterRows(); }
  if (key === "kind") { const k = D.kinds.indexOf(value); if (k >= 0) { $("f-kind").value = k; filterRows(); } }
  if (key === "search") { $("search").value = value; runSearch(); }
  if (key === "node" && byId(value) !== undefined) select(byId(value), true);
}
performance.mark("xray-ready");
document.body.dataset.ready = "1";
})();
)JS";
}

std::string_view diffPageCss() {
  return R"CSS(
*{box-sizing:border-box}
body{background:#0d1117;color:#c9d1d9;font:13px -apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif;margin:0;padding:20px}
h1{font-size:17px;color:#f0f6fc;margin:0 0 6px}
.sides{display:flex;gap:30px;color:#8b949e;margin-bottom:6px}
#summary{color:#c9d1d9;margin-bottom:10px}
#filters{display:flex;gap:14px;margin-bottom:14px;color:#8b949e}
.row{border:1px solid #30363d;border-radius:8px;background:#161b22;padding:10px;margin-bottom:10px}
.row.hidden{display:none}
.head{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.badge{border-radius:4px;font-size:11px;padding:2px 7px;font-weight:600;color:#fff}
.badge.changed{background:#9e6a03}.badge.removed{background:#da3633}.badge.added{background:#238636}.badge.same{background:#30363d}
code{color:#79c0ff;font-family:'SF Mono','Fira Code',monospace;font-size:12px;word-break:break-all}
.what,.delta{color:#8b949e}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:8px}
.col.none{color:#484f58;padding:8px}
.lbl{font-size:10px;text-transform:uppercase;color:#8b949e;margin:4px 0 2px}
pre{background:#0d1117;border:1px solid #30363d;border-radius:6px;padding:6px 8px;margin:0;white-space:pre-wrap;word-break:break-all;max-height:200px;overflow:auto;font-size:12px}
pre.err{color:#f85149}
.meta{color:#8b949e;margin-top:4px}
)CSS";
}

std::string_view diffPageJs() {
  return R"JS(
(() => {
"use strict";
const boxes = document.querySelectorAll("#filters input");
function apply() {
  const on = new Set([...boxes].filter((b) => b.checked).map((b) => b.dataset.status));
  document.querySelectorAll(".row").forEach((r) => r.classList.toggle("hidden", !on.has([...r.classList].find((c) => c !== "row"))));
}
boxes.forEach((b) => b.addEventListener("change", apply));
apply();
document.body.dataset.ready = "1";
})();
)JS";
}

std::string_view stepperCss() {
  return R"CSS(
*{box-sizing:border-box}
body{font:14px system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:0;color:#1f2328;background:#ffffff}
header{padding:12px 20px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
header h1{font-size:16px;margin:0}
#controls{display:flex;gap:10px;align-items:center;padding:10px 20px;border-bottom:1px solid #d0d7de}
#controls button{font:inherit;padding:4px 12px;border:1px solid #d0d7de;border-radius:6px;background:#f6f8fa;cursor:pointer}
#slider{flex:1;max-width:600px}
#state{font-family:'SF Mono','Fira Code',monospace;font-weight:600}
#explain{padding:8px 20px;color:#57606a;min-height:2em}
#graph{padding:10px 20px;overflow:auto}
#graph g.node.current polygon{stroke:#0969da;stroke-width:3;fill:#ddf4ff}
#graph g.node.changed polygon{stroke:#bf8700;stroke-width:2;fill:#fff8c5}
#graph g.node text.grad-hidden{visibility:hidden}
)CSS";
}

std::string_view stepperJs() {
  return R"JS(
(() => {
"use strict";
const D = JSON.parse(document.getElementById("stepper-data").textContent);
const $ = (id) => document.getElementById(id);
// Python-style %g: 6 significant digits, trailing zeros dropped, two-digit exponents.
function g6(x) {
  if (!isFinite(x)) return String(x).replace("Infinity", "inf");
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const e = Math.floor(Math.log10(Math.abs(x)));
  if (e < -4 || e >= 6) {
    let [m, ex] = x.toExponential(5).split("e");
    m = m.replace(/\.?0+$/, "");
    const n = Number(ex);
    return m + "e" + (n < 0 ? "-" : "+") + String(Math.abs(n)).padStart(2, "0");
  }
  return x.toPrecision(6).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
}
const gradText = D.nodes.map((n) => {
  const g = document.getElementById(n.id);
  const texts = g ? g.querySelectorAll("text") : [];
  return {group: g, text: texts.length ? texts[texts.length - 1] : null};
});
const slider = $("slider");
slider.max = D.steps.length;
function grads(state) {
  const v = D.nodes.map(() => 0);
  if (state === 0) return v;
  v[D.root] = D.seed;
  for (let k = 0; k < state; k++) for (const [idx, grad] of D.steps[k].changes) v[idx] = grad;
  return v;
}
function show(state) {
  state = Math.max(0, Math.min(D.steps.length, state));
  slider.value = state;
  const v = grads(state);
  gradText.forEach((t, i) => {
    if (!t.text) return;
    t.text.textContent = "grad: " + g6(v[i]);
    t.text.classList.toggle("grad-hidden", state === 0);
    t.group.classList.remove("current", "changed");
  });
  let name = "forward", explain = "Forward pass: data only. Step through the backward pass with Next.";
  if (state > 0) {
    const step = D.steps[state - 1], n = D.nodes[step.node];
    name = "backward_step_" + (state - 1) + (state === D.steps.length ? " = after_backward" : "");
    if (gradText[step.node].group) gradText[step.node].group.classList.add("current");
    step.changes.forEach(([idx]) => { if (gradText[idx].group) gradText[idx].group.classList.add("changed"); });
    explain = "Local backward of " + n.name + (n.op ? " (" + n.op + ")" : " (leaf: nothing to propagate)") +
              (step.changes.length ? ": updated " + step.changes.map(([idx]) => D.nodes[idx].name).join(", ") : "");
  }
  $("state").textContent = name + "  (" + state + "/" + D.steps.length + ")";
  document.title = name + " (" + state + "/" + D.steps.length + ") \u2014 " + D.title;
  $("explain").textContent = explain;
}
// Deep link: #step=N opens state N (0 = forward).
const linked = /step=(\d+)/.exec(location.hash);
let state = linked ? Math.min(Number(linked[1]), D.steps.length) : D.start;
$("prev").addEventListener("click", () => show(--state < 0 ? (state = 0) : state));
$("next").addEventListener("click", () => show(++state > D.steps.length ? (state = D.steps.length) : state));
slider.addEventListener("input", () => show((state = Number(slider.value))));
document.addEventListener("keydown", (e) => {
  if (e.target === slider) return;  // the slider handles its own arrow keys
  if (e.key === "ArrowRight") $("next").click();
  if (e.key === "ArrowLeft") $("prev").click();
});
show(state);
document.body.dataset.ready = "1";
})();
)JS";
}

}  // namespace nndna::xray::detail
