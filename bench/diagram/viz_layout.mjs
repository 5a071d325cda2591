// Lays out a DOT file with the original NN DNA app's renderer, @viz-js/viz (Graphviz compiled to
// WebAssembly; the app calls it in the browser, here it runs in node) and prints one JSON line:
//   {"init_ms", "first_ms", "render_ms", "cpu_ms", "svg_bytes"}
// init_ms: loading and compiling the WebAssembly module (the app pays it once per page);
// first_ms: the first render (the engine still warming up, what the app's first diagram pays);
// render_ms / cpu_ms: wall and CPU time of the fastest of the next `repeats` renders (default 2),
// what the app pays for each later diagram. The figure to beat is render_ms.
// Run by diagram_bench's BM_LayoutAgainstViz:
//   NNDNA_VIZ_NODE_MODULES=DIR node viz_layout.mjs GRAPH.dot
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(join(process.env.NNDNA_VIZ_NODE_MODULES, '/'));
const { instance } = require('@viz-js/viz');

const dot = readFileSync(process.argv[2], 'utf8');
const repeats = Number(process.argv[3] ?? 2);
const started = performance.now();
const viz = await instance();
const initMs = performance.now() - started;

function render() {
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  const svg = viz.renderString(dot, { format: 'svg' });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpuBefore);
  if (!svg.includes('<svg')) throw new Error('viz produced no SVG');
  return { ms, cpuMs: (cpu.user + cpu.system) / 1e3, bytes: svg.length };
}

const first = render();
let best = first;
for (let i = 0; i < repeats; ++i) {
  const r = render();
  if (best === first || r.ms < best.ms) best = r;
}
console.log(JSON.stringify({
  init_ms: Math.round(initMs),
  first_ms: Math.round(first.ms),
  render_ms: Math.round(best.ms),
  cpu_ms: Math.round(best.cpuMs),
  svg_bytes: best.bytes,
}));
