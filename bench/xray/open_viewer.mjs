// How long Chromium takes to open an xray viewer page, and where the time goes: prints one JSON
// line {"ready_ms", "script_ms", "data_ms", "views_ms"} (ms from navigation: the page's own
// performance marks, the HTML read up to the viewer's script, its data parsed and decoded, the
// views ready). Run by bench_xray's BM_Html1MSpans:
//   NNDNA_NODE_MODULES=DIR node open_viewer.mjs PAGE.html
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(join(process.env.NNDNA_NODE_MODULES, '/'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const started = Date.now();
  await page.goto('file://' + process.argv[2], { waitUntil: 'commit', timeout: 300_000 });
  await page.waitForSelector('body[data-ready="1"]', { state: 'attached', timeout: 300_000 });
  const ready = Date.now() - started;
  const marks = await page.evaluate(() =>
    Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)])));
  if (errors.length) throw new Error(errors.join('\n'));
  console.log(JSON.stringify({ ready_ms: ready, script_ms: marks['xray-script'], data_ms: marks['xray-data'],
                               views_ms: marks['xray-ready'] }));
} finally {
  await browser.close();
}
