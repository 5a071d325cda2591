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
#search{margin-left:auto;background:#0d1117;color:#c9d1d9;border:1px solid #30363d;border-radius:6px;padding:5px 9px;width:240px}
#matches{color:#8b949e;min-width:80px}
#note{background:#3d1f1f;color:#ffa198;padding:6px 20px;border-bottom:1px solid #30363d}
nav{display:flex;gap:4px;padding:6px 20px 0;background:#161b22;border-bottom:1px solid #30363d}
nav button{background:none;border:1px solid transparent;border-bottom:none;color:#8b949e;padding:6px 14px;cursor:pointer;border-radius:6px 6px 0 0;font:inherit}
nav button.on{background:#0d1117;border-color:#30363d;color:#f0f6fc}
#main{display:flex;flex:1;overflow:hidden}
#graph-view{flex:1;overflow:auto;padding:20px}
#graph-view .msg{color:#8b949e;padding:40px;text-align:center}
#graph-view g.node{cursor:pointer}
#graph-view g.node:hover path,#graph-view g.node:hover polygon{stroke:#58a6ff;stroke-width:2}
#graph-view g.node.sel path,#graph-view g.node.sel polygon{stroke:#58a6ff;stroke-width:3}
#graph-view g.node.dim{opacity:.25}
#graph-view g.node.match path,#graph-view g.node.match polygon{stroke:#e3b341;stroke-width:3}
#timeline-view{flex:1;display:flex;flex-direction:column;overflow:hidden}
#timeline-view[hidden],#graph-view[hidden]{display:none}
#tl-head{display:flex;color:#8b949e;padding:4px 0;border-bottom:1px solid #30363d}
#tl-scroll{flex:1;overflow:auto;position:relative}
#tl-inner{position:relative}
.row{position:absolute;left:0;right:0;height:22px;display:flex;align-items:center;cursor:pointer;border-bottom:1px solid #161b22}
.row:hover{background:#161b22}.row.sel{background:#1f2a3a}
.nm,.hn{width:300px;flex-shrink:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;padding-right:8px}
.lane,.hl{flex:1;position:relative;height:14px}
.ms,.hm{width:80px;flex-shrink:0;text-align:right;padding-right:10px;color:#8b949e}
.bar{position:absolute;top:0;height:14px;border-radius:3px;min-width:2px;background:#238636}
.row.err .bar{background:#da3633}.row.slow .bar{background:#9e6a03}.row.open .bar{background:#8957e5}
.row.err .nm{color:#f85149}
#det{width:380px;background:#161b22;border-left:1px solid #30363d;overflow-y:auto;padding:16px;flex-shrink:0}
.hint{color:#6e7681;text-align:center;padding:40px 10px}
.dt{font-size:14px;font-weight:600;margin-bottom:10px;color:#f0f6fc;word-break:break-all}
.ds{margin-bottom:12px}
.dl{font-size:10px;text-transform:uppercase;color:#8b949e;margin-bottom:3px;letter-spacing:.5px}
.dv{background:#0d1117;border:1px solid #30363d;border-radius:6px;padding:7px 9px;font-family:'SF Mono','Fira Code',monospace;font-size:12px;white-space:pre-wrap;word-break:break-all;max-height:240px;overflow-y:auto}
.dv.ok{color:#3fb950}.dv.err{color:#f85149}.dv.slow{color:#d29922}.dv.open{color:#a371f7}
.dv b{color:#79c0ff}
.links button,#det select{background:#21262d;color:#c9d1d9;border:1px solid #30363d;border-radius:6px;padding:3px 8px;margin:2px;cursor:pointer;font:inherit}
#det select{width:100%;margin:0 0 12px}
)CSS";
}

std::string_view traceViewerJs() {
  return R"JS(
(() => {
"use strict";
const D = JSON.parse(document.getElementById("xray-data").textContent);
const N = D.nodes, G = D.groups;
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
function status(n) {
  return n.error != null ? "err" : n.open ? "open" : n.latency_ms >= D.slow_ms ? "slow" : "ok";
}
const STATUS_TEXT = {err: "ERROR", open: "UNFINISHED", slow: "SLOW", ok: "OK"};

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
  const b = el("button", null, text);
  b.addEventListener("click", () => select(i, true));
  return b;
}
function showNode(i) {
  const n = N[i], det = $("det");
  det.replaceChildren();
  const g = G[n.group];
  if (g.members.length > 1) {
    const sel = el("select");
    g.members.slice(0, 1000).forEach((m, k) => {
      const o = el("option", null, "call " + (k + 1) + " of " + g.members.length + " \u00b7 " +
                   fmtMs(N[m].latency_ms) + (N[m].error != null ? " \u00b7 error" : ""));
      o.value = m;
      if (m === i) o.selected = true;
      sel.append(o);
    });
    sel.addEventListener("change", () => select(Number(sel.value), true));
    det.append(sel);
  }
  det.append(el("div", "dt", n.name));
  const st = status(n);
  det.append(section("Status", STATUS_TEXT[st], st));
  det.append(section("Latency", fmtMs(n.latency_ms) + (n.open ? " (never finished)" : "")));
  const where = "start +" + fmtMs(n.start_ms - D.origin_ms) + " \u00b7 thread " + n.thread +
                (n.kind ? " \u00b7 kind " + n.kind : "") + " \u00b7 id " + n.id;
  det.append(section("Where", where));
  if (n.tags.length) det.append(section("Tags", n.tags.join(", ")));
  if (n.error != null) det.append(section("Error", n.error, "err"));
  if (Object.keys(n.inputs).length) det.append(section("Inputs", keyValues(n.inputs)));
  if (n.output != null) det.append(section("Output", n.output));
  const m = n.meta || {};
  if (m.model) det.append(section("Model", m.model));
  const toks = [];
  if (m.prompt_tokens != null) toks.push("prompt " + m.prompt_tokens);
  if (m.completion_tokens != null) toks.push("completion " + m.completion_tokens);
  if (m.total_tokens != null) toks.push("total " + m.total_tokens);
  if (toks.length) det.append(section("Tokens", toks.join(" \u00b7 ")));
  if (m.estimated_cost_usd != null) det.append(section("Est. cost", "$" + Number(m.estimated_cost_usd).toFixed(6), "slow"));
  const known = ["model", "prompt_tokens", "completion_tokens", "total_tokens", "estimated_cost_usd"];
  const extra = {};
  Object.keys(m).filter((k) => !known.includes(k)).forEach((k) => { extra[k] = m[k]; });
  if (Object.keys(extra).length) det.append(section("Meta", keyValues(extra)));
  if (n.rollup_tokens || n.rollup_cost)
    det.append(section("Subtree totals", n.rollup_tokens + " tokens \u00b7 $" + n.rollup_cost.toFixed(6)));
  const links = el("div", "links");
  if (n.parent >= 0) links.append(nodeButton(n.parent, "\u2191 " + N[n.parent].name));
  n.children.slice(0, 50).forEach((c) => links.append(nodeButton(c, "\u2193 " + N[c].name)));
  if (links.childNodes.length) det.append(section("Parent / children", links));
}

// ---- call graph ----
const groupEls = new Map();
document.querySelectorAll("#graph-view g.node").forEach((g) => {
  const gi = Number(g.id.slice(1));
  if (!Number.isInteger(gi) || !G[gi]) return;
  groupEls.set(gi, g);
  g.addEventListener("click", () => {
    const members = G[gi].members;
    const firstError = members.find((m) => N[m].error != null);
    select(firstError !== undefined ? firstError : members[0], false);
  });
});

function select(i, scrollTo) {
  selected = i;
  groupEls.forEach((g) => g.classList.remove("sel"));
  const g = groupEls.get(N[i].group);
  if (g) {
    g.classList.add("sel");
    if (scrollTo && !$("graph-view").hidden) g.scrollIntoView({block: "nearest", inline: "nearest"});
  }
  showNode(i);
  if (scrollTo && !$("timeline-view").hidden) {
    const r = rows.indexOf(i);
    if (r >= 0) $("tl-scroll").scrollTop = Math.max(0, r * ROW - 100);
  }
  renderRows();
}

// ---- timeline (virtualised: only visible rows are in the DOM) ----
const ROW = 22;
let rows = N.map((_, i) => i);
const scroller = $("tl-scroll"), inner = $("tl-inner");
const span = Math.max(D.total_ms, 1e-6);
function renderRows() {
  if ($("timeline-view").hidden) return;
  inner.style.height = rows.length * ROW + "px";
  const first = Math.max(0, Math.floor(scroller.scrollTop / ROW) - 10);
  const last = Math.min(rows.length, first + Math.ceil((scroller.clientHeight || 600) / ROW) + 20);
  const frag = document.createDocumentFragment();
  for (let r = first; r < last; r++) {
    const i = rows[r], n = N[i];
    const row = el("div", "row " + status(n) + (i === selected ? " sel" : ""));
    row.style.top = r * ROW + "px";
    row.dataset.index = i;
    const name = el("div", "nm", n.name);
    name.style.paddingLeft = 6 + 12 * Math.min(n.depth, 30) + "px";
    const lane = el("div", "lane"), bar = el("div", "bar");
    bar.style.left = ((n.start_ms - D.origin_ms) / span) * 100 + "%";
    bar.style.width = (n.latency_ms / span) * 100 + "%";
    lane.append(bar);
    row.append(name, lane, el("div", "ms", fmtMs(n.latency_ms)));
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

// ---- views ----
document.querySelectorAll("nav button").forEach((b) => {
  b.addEventListener("click", () => {
    document.querySelectorAll("nav button").forEach((o) => o.classList.toggle("on", o === b));
    $("graph-view").hidden = b.dataset.view !== "graph";
    $("timeline-view").hidden = b.dataset.view !== "timeline";
    renderRows();
  });
});

// ---- search by name ----
$("search").addEventListener("input", () => {
  const q = $("search").value.trim().toLowerCase();
  rows = q ? N.map((_, i) => i).filter((i) => N[i].name.toLowerCase().includes(q)) : N.map((_, i) => i);
  groupEls.forEach((g, gi) => {
    const hit = q !== "" && G[gi].name.toLowerCase().includes(q);
    g.classList.toggle("match", hit);
    g.classList.toggle("dim", q !== "" && !hit);
  });
  $("matches").textContent = q ? rows.length + " match" + (rows.length === 1 ? "" : "es") : "";
  renderRows();
});

// Deep links: #timeline, #node=<span id>, #search=<text> (combinable with "&").
for (const part of decodeURIComponent(location.hash.slice(1)).split("&")) {
  const eq = part.indexOf("="), key = eq < 0 ? part : part.slice(0, eq), value = eq < 0 ? "" : part.slice(eq + 1);
  if (key === "timeline") document.querySelector('nav button[data-view="timeline"]').click();
  if (key === "search") { $("search").value = value; $("search").dispatchEvent(new Event("input")); }
  if (key === "node") { const i = N.findIndex((n) => n.id === value); if (i >= 0) select(i, true); }
}
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
