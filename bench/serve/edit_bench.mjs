// From Diagram it (Ctrl+Enter) after a one-character edit to the new diagram drawn, in Chromium
// against the real `nndna serve` (a fresh compile cache: every edit compiles). Run by serve_bench.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(join(process.env.NNDNA_NODE_MODULES, '/'));
const { chromium } = require('playwright-core');

const cache = mkdtempSync(join(tmpdir(), 'nndna-edit-bench-'));
const server = spawn(process.env.NNDNA, ['serve', '--port', '0', '--cache-dir', cache, '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
    if (m) resolve(m[0]);
  });
  server.on('exit', () => reject(new Error(out)));
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
  const page = await context.newPage();
  await page.goto(base);
  await page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: 300_000 });
  const source = await (await fetch(`${base}api/examples/diffusion_denoiser`)).json().then((j) => j.source);
  const times = [];
  for (let steps = 3; steps <= 9; steps++) {
    await page.click('.tab-btn[data-tab="code"]');
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.evaluate((t) => navigator.clipboard.writeText(t), source.replace('N_STEPS = 12', `N_STEPS = 1${steps}`));
    await page.keyboard.press('Control+V');
    const drawn = await page.evaluate(() => Number(document.body.dataset.diagrams));
    const t0 = performance.now();
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction((n) => Number(document.body.dataset.diagrams) > n && document.body.dataset.state === 'done', drawn, { timeout: 300_000 });
    times.push((performance.now() - t0) / 1000);
    const text = await page.textContent('#views svg');
    if (!text.includes(`×1${steps} (inference)`)) throw new Error(`wrong diagram for N_STEPS = 1${steps}`);
  }
  times.sort((a, b) => a - b);
  const fmt = (s) => `${s.toFixed(3)} s`;
  console.log(`  ${times.length} edits, each a fresh compile: median ${fmt(times[Math.floor(times.length / 2)])}, min ${fmt(times[0])}, max ${fmt(times.at(-1))} (aim: <= 1.0 s)`);
} finally {
  await browser.close();
  server.kill('SIGTERM');
  rmSync(cache, { recursive: true, force: true });
}
