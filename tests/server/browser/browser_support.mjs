// What the browser tests share: `nndna serve` on a free loopback port, and Chromium (Debian's,
// driven by playwright-core from the web app's packages) that may reach nothing but loopback.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(join(process.env.NNDNA_NODE_MODULES, '/'));
const { chromium } = require('playwright-core');

const CHROMIUM = '/usr/bin/chromium';

// Starts `nndna serve --port 0 ...extraArgs` (environment `env`) and reads the URL it prints.
export function startServer(extraArgs = [], env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.NNDNA, ['serve', '--port', '0', '--cache-dir', process.env.NNDNA_CACHE, ...extraArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) resolve({ child, url: m[0] });
    });
    child.stderr.on('data', (d) => process.stderr.write(`[serve] ${d}`));
    child.on('exit', (code) => reject(new Error(`nndna serve exited with ${code}: ${out}`)));
  });
}

// Chromium and one page on `base`: any request leaving loopback is refused and recorded in
// `foreignRequests`, console errors and warnings in `consoleErrors`.
export async function openPage(base) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
  const foreignRequests = [];
  const consoleErrors = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    foreignRequests.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  return { browser, page, foreignRequests, consoleErrors };
}

// Replaces the editor's text (on the Code tab) with `text`, as a user pasting it would.
export async function setEditorText(page, text) {
  await page.click('.tab-btn[data-tab="code"]');
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.keyboard.press('Control+V');
}

// Numbered full-page screenshots of `page` into `dir` ("01-name.png", ...), for review.
export function screenshots(dir) {
  let shot = 0;
  return async (page, name) => {
    shot += 1;
    await page.screenshot({ path: join(dir, `${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
}
