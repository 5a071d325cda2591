#include "diagram/html_assets.hpp"

namespace nndna::diagram::detail {

const std::string_view kPageCss = R"CSS(
:root { color-scheme: light; --bg: #ffffff; --canvas: #fafbfc; --text: #1a1a1a; --muted: #666666;
  --border: #dddddd; --strong: #888888; --accent: #6366f1; --node: #ffffff; }
@media (prefers-color-scheme: dark) {
  :root { color-scheme: dark; --bg: #0c0c0e; --canvas: #0c0c0e; --text: #e5e5e5; --muted: #9ca3af;
    --border: #2e2e34; --strong: #555560; --node: #1f1f24; }
}
body { font-family: ui-sans-serif, system-ui, sans-serif; margin: 0; padding: 0 1rem 1rem;
  background: var(--bg); color: var(--text); }
.panel { border: 1px solid var(--border); border-radius: 8px; margin-top: 1rem; overflow: hidden; }
.model-header { padding: 0.9rem 1rem 0.75rem; background: var(--canvas); text-align: center; }
.model-title { font-size: 1.18rem; margin: 0 0 0.3rem; font-weight: 600; }
.model-stats { font-size: 0.88rem; font-weight: 600; margin: 0 0 0.6rem; display: flex;
  flex-wrap: wrap; justify-content: center; gap: 0.15rem 0.45rem; }
.metric-sep { color: var(--muted); user-select: none; }
.metric-chip { position: relative; padding: 0.05rem 0.2rem; border-bottom: 1px dotted var(--strong);
  cursor: help; }
.metric-chip::after { content: attr(data-tooltip); position: absolute; top: calc(100% + 0.45rem);
  left: 50%; transform: translateX(-50%); background: var(--bg); color: var(--text);
  border: 1px solid var(--border); border-radius: 6px; padding: 0.4rem 0.65rem; font-size: 0.78rem;
  font-weight: 400; line-height: 1.4; width: max-content; max-width: 32ch; text-align: left;
  box-shadow: 0 4px 12px rgba(0, 0, 0, 0.08); opacity: 0; pointer-events: none;
  transition: opacity 0.12s; z-index: 20; }
.metric-chip:hover::after, .metric-chip:focus::after { opacity: 1; }
.model-description { margin: 0 auto; color: var(--muted); font-size: 0.9rem; line-height: 1.5;
  max-width: 72ch; }
.tabs { display: flex; gap: 1.2rem; justify-content: center; padding: 0.4rem 0 0;
  border-bottom: 1px solid var(--border); background: var(--canvas); }
.tab-btn { padding: 0.4rem 0.1rem 0.35rem; margin-bottom: -1px; border: none;
  border-bottom: 2px solid transparent; background: transparent; font: inherit; font-size: 0.9rem;
  cursor: pointer; color: var(--muted); }
.tab-btn.active { color: var(--text); border-bottom-color: var(--accent); font-weight: 600; }
.diagram-legend { display: flex; flex-wrap: wrap; justify-content: center; align-items: center;
  gap: 0.35rem 0.95rem; font-size: 0.83rem; padding: 0.85rem 1rem; background: var(--canvas); }
.legend-item { display: inline-flex; align-items: center; gap: 0.3rem; }
.legend-label { color: var(--muted); font-size: 0.82rem; }
.dim-chip { padding: 0.05rem 0.45rem; border-radius: 4px; color: #ffffff;
  font-family: ui-monospace, monospace; font-size: 0.72rem; line-height: 1.4; }
.diagram-legend-note, .diagram-faded-note { color: var(--muted); font-size: 0.8rem;
  text-align: center; padding: 0 1rem 0.6rem; background: var(--canvas); }
.canvas { position: relative; background: var(--canvas); padding: 0.85rem 0.5rem; }
.canvas .view > svg { display: block; margin: 0 auto; width: 100%; cursor: grab; }
.canvas .view > svg.panning { cursor: grabbing; }
.zoom-controls { position: absolute; top: 0.5rem; right: 0.5rem; display: flex; gap: 0.25rem; }
.zoom-controls button { font: inherit; font-size: 0.8rem; min-width: 2rem; padding: 0.15rem 0.4rem;
  border: 1px solid var(--border); border-radius: 4px; background: var(--bg); color: var(--text);
  cursor: pointer; }
.canvas svg [class*="ti-"] { transition: filter 0.1s ease; }
.canvas svg .hi-highlight { filter: drop-shadow(0 0 4px #f5a623); }
.canvas svg .only-train, .canvas svg .only-infer { opacity: 1; transition: opacity 0.15s ease; }
.canvas.show-train svg .only-infer, .canvas.show-infer svg .only-train { opacity: 0.18; }
.canvas svg g.cluster > text { fill: var(--text); }
.canvas svg polygon[fill="white"], .canvas svg polygon[fill="#ffffff"] { fill: var(--node); }
.canvas svg text[fill="#000000"], .canvas svg text:not([fill]) { fill: var(--text); }
.tooltip { position: fixed; z-index: 30; max-width: 46ch; background: var(--bg); color: var(--text);
  border: 1px solid var(--border); border-radius: 6px; padding: 0.45rem 0.65rem; font-size: 0.78rem;
  line-height: 1.45; box-shadow: 0 4px 12px rgba(0, 0, 0, 0.12); pointer-events: none; }
.tooltip .tt-code { font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
.tooltip .tt-muted { color: var(--muted); }
.tab-sep { width: 1px; background: var(--border); margin: 0.35rem 0.2rem 0.45rem; }
.panel.show-summary .canvas, .panel.show-summary .diagram-legend,
.panel.show-summary .diagram-legend-note, .panel.show-summary .diagram-faded-note { display: none; }
.summary { padding: 0.85rem 1rem 1rem; background: var(--canvas); font-size: 0.84rem; overflow-x: auto; }
.summary h2 { font-size: 0.95rem; margin: 0.9rem 0 0.4rem; font-weight: 600; }
.summary h2:first-child { margin-top: 0; }
.summary table { border-collapse: collapse; margin: 0 auto 0 0; }
.summary th, .summary td { padding: 0.18rem 0.7rem; border-bottom: 1px solid var(--border);
  white-space: nowrap; text-align: right; }
.summary th { color: var(--muted); font-weight: 600; }
.summary th:first-child, .summary td:first-child, .summary td.text { text-align: left; }
.summary td.shape { font-family: ui-monospace, monospace; font-size: 0.78rem; text-align: left; }
.summary td.derivation { color: var(--muted); text-align: left; }
.summary tr.total td { font-weight: 600; border-bottom: none; }
.summary tr.model td { font-weight: 600; }
.summary-controls { color: var(--muted); margin-bottom: 0.5rem; }
.summary table.summary-memory { margin-bottom: 0.7rem; }
.summary-controls select { font: inherit; }
)CSS";

// Every string from the spec reaches the page through textContent or setAttribute, never as
// markup; the data arrives as JSON in a non-executable <script type="application/json">.
const std::string_view kPageScript = R"JS(
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('nndna-data').textContent);
  const $ = (id) => document.getElementById(id);
  const make = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const SIDE_NAME = { train: 'training', infer: 'inference' };
  const canvas = $('canvas');
  const views = Array.from(canvas.querySelectorAll('.view'));
  let side = 'train';

  const scaled = (n, units) => {
    let v = n, mag = 0;
    while (v >= 1000 && mag < units.length - 1) { v /= 1000; mag++; }
    return mag === 0 ? String(n) + units[0] : v.toFixed(mag >= 3 ? 2 : 1) + units[mag];
  };
  const fmtCount = (n) => scaled(n, ['', 'K', 'M', 'B', 'T']);
  const fmtFlops = (n) => scaled(n, ['', 'K', 'M', 'G', 'T', 'P', 'E']);

  const diagramOf = (view) => view.dataset.view === 'infer' ? data.infer_alone : data;
  // Binary units, named as such (the header's activations and `nndna summary` use the same).
  const fmtBytes = (n) => {
    const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let v = n, mag = 0;
    while (v >= 1024 && mag < units.length - 1) { v /= 1024; mag++; }
    return mag === 0 ? n + ' bytes' : v.toFixed(mag >= 3 ? 2 : 1) + ' ' + units[mag];
  };
  const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

  // The Summary tab: the side's table of modules (rows down to the chosen depth), then memory.
  let summaryDepth = 3;
  function renderSummary() {
    const box = $('summary');
    box.textContent = '';
    const s = data.summary;
    if (!s) return;
    const table = s[side] || s.train;
    const maxDepth = Math.max(...table.rows.map((r) => r.depth));
    const controls = make('div', 'summary-controls', 'Depth ');
    const select = make('select');
    select.id = 'summary-depth';
    for (let d = 0; d <= maxDepth; d++) {
      const o = make('option', '', String(d));
      o.value = String(d);
      if (d === Math.min(summaryDepth, maxDepth)) o.selected = true;
      select.appendChild(o);
    }
    select.addEventListener('change', () => { summaryDepth = Number(select.value); renderSummary(); });
    controls.appendChild(select);
    box.appendChild(make('h2', '', (side === 'infer' && s.infer ? 'Inference graph' : 'Training graph (forward of the loss)') + ': modules'));
    box.appendChild(controls);
    const t = make('table', 'summary-modules');
    const head = make('tr');
    for (const h of ['Module', 'Output shape', 'Params', 'FLOPs/forward', 'Activations']) head.appendChild(make('th', '', h));
    t.appendChild(head);
    for (const r of table.rows) {
      if (r.depth > summaryDepth) continue;
      const tr = make('tr', r.depth === 0 ? 'model' : '');
      tr.dataset.path = r.path;
      const name = make('td', 'text', r.depth === 0 ? '(model)' : r.name);
      name.style.paddingLeft = (0.7 + 1.1 * Math.max(0, r.depth - 1)) + 'rem';
      tr.appendChild(name);
      tr.appendChild(make('td', 'shape', r.output ? '[' + r.output.join(', ') + ']' : '—'));
      tr.appendChild(make('td', '', grouped(r.params)));
      tr.appendChild(make('td', '', fmtFlops(r.flops)));
      tr.appendChild(make('td', '', fmtBytes(r.activation_bytes)));
      t.appendChild(tr);
    }
    box.appendChild(t);
    const m = s.memory;
    box.appendChild(make('h2', '', 'Memory (' + m.dtype + (m.mixed_precision ? ', mixed precision' : '') + ')'));
    for (const [title, part] of [['Training step', m.training], ['Inference', m.inference]]) {
      const mt = make('table', 'summary-memory');
      const caption = make('tr');
      caption.appendChild(make('th', '', title));
      caption.appendChild(make('th', '', ''));
      caption.appendChild(make('th', '', ''));
      mt.appendChild(caption);
      for (const i of part.items) {
        const tr = make('tr');
        tr.dataset.key = i.key;
        tr.appendChild(make('td', 'text', i.key.replace(/_/g, ' ')));
        tr.appendChild(make('td', '', fmtBytes(i.bytes)));
        tr.appendChild(make('td', 'derivation', i.derivation));
        mt.appendChild(tr);
      }
      const total = make('tr', 'total');
      total.appendChild(make('td', 'text', 'total'));
      total.appendChild(make('td', '', fmtBytes(part.total)));
      total.appendChild(make('td', 'derivation', grouped(part.total) + ' bytes'));
      mt.appendChild(total);
      box.appendChild(mt);
    }
  }

  let view = 'diagram';
  function showView(v) {
    view = v;
    for (const b of document.querySelectorAll('.view-btn')) b.classList.toggle('active', b.dataset.view === v);
    document.querySelector('.panel').classList.toggle('show-summary', v === 'summary');
    $('summary').hidden = v !== 'summary';
    if (v === 'summary') renderSummary();
  }

  function renderMetrics() {
    const box = $('metrics');
    box.textContent = '';
    const metrics = data.metrics[side] || data.metrics.train || [];
    metrics.forEach((m, i) => {
      if (i) box.appendChild(make('span', 'metric-sep', '·'));
      const chip = make('span', 'metric-chip', m.display);
      chip.setAttribute('data-tooltip', m.tooltip);
      chip.tabIndex = 0;
      box.appendChild(chip);
    });
  }

  function renderLegend() {
    const box = $('legend');
    for (const d of data.legend) {
      const item = make('span', 'legend-item');
      const chip = make('span', 'dim-chip', d.name);
      chip.style.background = d.color;
      item.appendChild(chip);
      item.appendChild(make('span', 'legend-label', (d.desc ? d.desc + ' = ' : '= ') + d.size));
      box.appendChild(item);
    }
    box.hidden = data.legend.length === 0;
    const note = $('collisions');
    if (data.collisions.length) {
      note.textContent = 'The IR tracks dim sizes, not names. When dims share a size and cannot be ' +
        'told apart by position, the diagram joins the candidates with a slash. Affected: ' +
        data.collisions.map((c) => c.names.join('/') + ' = ' + c.size).join(', ') + '.';
    }
    note.hidden = data.collisions.length === 0;
  }

  function show(s) {
    side = s;
    canvas.classList.toggle('show-train', s === 'train');
    canvas.classList.toggle('show-infer', s === 'infer');
    for (const b of document.querySelectorAll('.tab-btn[data-side]')) b.classList.toggle('active', b.dataset.side === s);
    for (const view of views) view.hidden = data.infer_alone ? (view.dataset.view === 'infer') !== (s === 'infer') : false;
    for (const view of views) {
      for (const c of diagramOf(view).clusters) {
        if (!c.labels) continue;
        const text = view.querySelector('g[id="c' + c.id + '"] > text');
        if (text) text.textContent = c.labels[s];
      }
    }
    const faded = $('faded');
    faded.textContent = !data.merged ? ''
      : s === 'train' && data.has_infer_only ? 'Faded parts run only at inference.'
      : s === 'infer' && data.has_train_only ? 'Faded parts run only in training.' : '';
    faded.hidden = faded.textContent === '';
    renderMetrics();
    if (view === 'summary') renderSummary();
  }

  // Hover: a node or an edge lights up with everything sharing its ti- class.
  function attachHover(view) {
    const svg = view.querySelector('svg');
    if (!svg) return;
    const clear = () => { for (const e of svg.querySelectorAll('.hi-highlight')) e.classList.remove('hi-highlight'); };
    for (const el of svg.querySelectorAll('[class*="ti-"]')) {
      const cls = Array.from(el.classList).find((c) => c.startsWith('ti-'));
      if (!cls) continue;
      el.addEventListener('mouseenter', () => { for (const m of svg.querySelectorAll('.' + cls)) m.classList.add('hi-highlight'); });
      el.addEventListener('mouseleave', clear);
    }
  }

  // Tooltips: the box's line, what it computes, its shapes, parameters and FLOPs per side (per
  // cluster likewise).
  const tooltip = $('tooltip');
  function costLines(cost, into) {
    for (const s of ['train', 'infer']) {
      const c = cost[s];
      if (!c) continue;
      const prefix = data.merged || data.infer_alone ? SIDE_NAME[s] + ': ' : '';
      into.appendChild(make('div', '', prefix + fmtCount(c.params) + ' params · ' + fmtFlops(c.flops) + ' forward FLOPs'));
    }
  }
  // Every distinct shape of the box (sides, folded iterations), one per line.
  function fillNode(n) {
    tooltip.textContent = '';
    tooltip.appendChild(make('div', 'tt-code', n.label));
    if (n.file) tooltip.appendChild(make('div', 'tt-muted', n.file + ':' + n.line));
    if (n.computes) tooltip.appendChild(make('div', 'tt-muted', n.computes));
    for (const s of n.shapes) tooltip.appendChild(make('div', 'tt-code', s));
    costLines(n.cost, tooltip);
  }
  function fillCluster(c) {
    tooltip.textContent = '';
    const label = c.labels ? c.labels[side] : c.label;
    tooltip.appendChild(make('div', 'tt-code', label));
    tooltip.appendChild(make('div', 'tt-muted', c.kind === 'loop' ? 'loop' : 'call'));
    costLines(c.cost, tooltip);
  }
  function attachTooltips(view) {
    const svg = view.querySelector('svg');
    if (!svg) return;
    const d = diagramOf(view);
    svg.addEventListener('mousemove', (ev) => {
      const node = ev.target.closest('g.node');
      const cluster = node ? null : ev.target.closest('g.cluster');
      const id = (node || cluster) ? (node || cluster).id : '';
      const idx = Number(id.slice(1));
      if (node && id.startsWith('n') && d.nodes[idx]) fillNode(d.nodes[idx]);
      else if (cluster && id.startsWith('c') && d.clusters[idx]) fillCluster(d.clusters[idx]);
      else { tooltip.hidden = true; return; }
      tooltip.hidden = false;
      const x = Math.min(ev.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
      const y = Math.min(ev.clientY + 14, window.innerHeight - tooltip.offsetHeight - 8);
      tooltip.style.left = Math.max(0, x) + 'px';
      tooltip.style.top = Math.max(0, y) + 'px';
    });
    svg.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  }

  // Pan (drag) and zoom (wheel, buttons) by moving the SVG's viewBox.
  function attachPanZoom(view) {
    const svg = view.querySelector('svg');
    if (!svg || !svg.viewBox || !svg.viewBox.baseVal) return;
    const base = svg.viewBox.baseVal;
    const home = { x: base.x, y: base.y, w: base.width, h: base.height };
    svg.removeAttribute('width');
    svg.style.height = Math.min(home.h * 1.33, window.innerHeight * 0.85) + 'px';
    const apply = () => svg.setAttribute('viewBox', vb.x + ' ' + vb.y + ' ' + vb.w + ' ' + vb.h);
    // The first view: the whole diagram when it fits at a readable size (half of natural size or
    // more); otherwise a large diagram would open as a speck, so it opens at natural size (or the
    // width, if narrower), on its top, where the inputs are. Fit shows the whole.
    const start = () => {
      const r = svg.getBoundingClientRect();
      const natural = 1.33;  // px per point at 100%
      if (r.width <= 0 || r.height <= 0) return Object.assign({}, home);
      if (Math.min(r.width / home.w, r.height / home.h) >= natural / 2) return Object.assign({}, home);
      const k = Math.min(natural, r.width / home.w);
      const w = r.width / k, h = r.height / k;
      return { x: home.x + (home.w - w) / 2, y: home.y, w, h };
    };
    let vb = start();
    apply();
    const toSvg = (cx, cy) => {
      const r = svg.getBoundingClientRect();
      const k = Math.max(vb.w / r.width, vb.h / r.height);
      const ox = (r.width * k - vb.w) / 2, oy = (r.height * k - vb.h) / 2;
      return { x: vb.x - ox + (cx - r.left) * k, y: vb.y - oy + (cy - r.top) * k, k };
    };
    const zoom = (factor, cx, cy) => {
      const p = toSvg(cx, cy);
      vb = { x: p.x - (p.x - vb.x) * factor, y: p.y - (p.y - vb.y) * factor, w: vb.w * factor, h: vb.h * factor };
      apply();
    };
    svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, ev.clientX, ev.clientY);
    }, { passive: false });
    let drag = null;
    svg.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, y: ev.clientY, vb: Object.assign({}, vb) }; svg.classList.add('panning'); });
    window.addEventListener('mousemove', (ev) => {
      if (!drag) return;
      const k = toSvg(0, 0).k;
      vb = Object.assign({}, drag.vb, { x: drag.vb.x - (ev.clientX - drag.x) * k, y: drag.vb.y - (ev.clientY - drag.y) * k });
      apply();
    });
    window.addEventListener('mouseup', () => { drag = null; svg.classList.remove('panning'); });
    view.zoomBy = (f) => { const r = svg.getBoundingClientRect(); zoom(f, r.left + r.width / 2, r.top + r.height / 2); };
    view.zoomReset = () => { vb = Object.assign({}, home); apply(); };
  }

  renderLegend();
  for (const view of views) { attachHover(view); attachTooltips(view); attachPanZoom(view); }
  for (const b of document.querySelectorAll('.tab-btn[data-side]')) b.addEventListener('click', () => show(b.dataset.side));
  for (const b of document.querySelectorAll('.view-btn')) b.addEventListener('click', () => showView(b.dataset.view));
  for (const b of document.querySelectorAll('[data-zoom]')) {
    b.addEventListener('click', () => {
      const view = views.find((v) => !v.hidden);
      if (!view || !view.zoomBy) return;
      if (b.dataset.zoom === 'in') view.zoomBy(1 / 1.25);
      else if (b.dataset.zoom === 'out') view.zoomBy(1.25);
      else view.zoomReset();
    });
  }
  show('train');
  document.body.dataset.ready = 'true';
})();
)JS";

}  // namespace nndna::diagram::detail
