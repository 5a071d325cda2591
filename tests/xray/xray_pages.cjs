// Drives xray's pages in Debian's Chromium through playwright-core, as a person would: clicks,
// types, zooms, copies; screenshots each view to OUT_DIR; writes what it saw to REPORT as JSON
// (tests/xray/viewer_browser_test.cpp checks it):
//   node xray_pages.cjs OUT_DIR REPORT.json
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

async function open(context, file, hash, errors) {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + file + (hash || ''));
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  return page;
}

const texts = (page, selector) => page.$$eval(selector, (els) => els.map((e) => e.textContent.trim()));

async function viewer(context, dir, errors) {
  const r = {};
  const page = await open(context, path.join(dir, 'viewer.html'), '', errors);
  r.fitZoom = Number(await page.$eval('#graph-canvas', (e) => e.dataset.zoom));
  r.legend = await texts(page, '#legend .lg');
  await page.screenshot({ path: path.join(dir, 'viewer-graph.png') });
  await page.click('#zoom-in');
  r.zoomedIn = Number(await page.$eval('#graph-canvas', (e) => e.dataset.zoom));
  await page.click('#zoom-fit');
  // A box clicked in the graph shows its details.
  await page.click('#graph-canvas g.node >> nth=1');
  r.clickedTitle = await page.$eval('#det .dt', (e) => e.textContent);

  await page.click('nav button[data-view="overview"]');
  r.critical = await texts(page, '#critical-path .link');
  r.models = await page.$$eval('#models tr', (rows) => rows.map((row) => [...row.children].map((c) => c.textContent)));
  r.repeated = await page.$eval('#repeated', (e) => e.textContent);
  r.errorsPanel = await page.$eval('#errors', (e) => e.textContent);
  await page.screenshot({ path: path.join(dir, 'viewer-overview.png') });

  // Search reaches outputs, errors, inputs and metadata; Enter goes to each match.
  await page.click('nav button[data-view="timeline"]');
  await page.fill('#search', 'flight api');
  await page.press('#search', 'Enter');
  r.searchMatches = await page.$eval('#matches', (e) => e.textContent);
  r.searchSelected = await page.$eval('#det .dt', (e) => e.textContent);
  r.searchRows = await page.$$eval('.row', (rows) => rows.length);
  await page.fill('#search', 'temperature');
  await page.press('#search', 'Enter');
  r.metaSearch = await page.$eval('#matches', (e) => e.textContent);
  await page.fill('#search', '');
  await page.press('#search', 'Enter');
  r.ticks = await texts(page, '#tl-axis .tick');
  r.allRows = await page.$eval('#tl-count', (e) => e.textContent);
  await page.check('#f-errors');
  r.errorRows = await page.$eval('#tl-count', (e) => e.textContent);
  await page.uncheck('#f-errors');
  await page.selectOption('#f-kind', { label: 'llm' });
  r.llmRows = await page.$eval('#tl-count', (e) => e.textContent);
  await page.selectOption('#f-kind', { label: 'all' });
  await page.selectOption('#f-thread', { index: 2 });
  r.threadRows = await page.$eval('#tl-count', (e) => e.textContent);
  await page.selectOption('#f-thread', { label: 'all' });
  await page.screenshot({ path: path.join(dir, 'viewer-timeline.png') });

  // Copy a span's raw JSON.
  await page.click('.row >> nth=0');
  await page.click('#copy-json');
  await page.waitForSelector('body[data-copied="1"]');
  r.clipboard = await page.evaluate(() => navigator.clipboard.readText());
  await page.close();
  return r;
}

async function main() {
  const [dir, reportPath] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const report = { errors: [] };
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    report.viewer = await viewer(context, dir, report.errors);

    const picker = JSON.parse(fs.readFileSync(path.join(dir, 'picker.json'), 'utf8'));
    let page = await open(context, path.join(dir, 'picker.html'), '#node=' + picker.id, report.errors);
    report.picker = { value: await page.$eval('#call-number', (e) => e.value), text: await page.$eval('#picker', (e) => e.textContent) };
    await page.click('#picker button >> nth=1');  // next
    report.picker.next = await page.$eval('#call-number', (e) => e.value);
    await page.screenshot({ path: path.join(dir, 'picker.png') });
    await page.close();

    page = await open(context, path.join(dir, 'diff.html'), '', report.errors);
    report.diff = { shown: await page.$$eval('.row:not(.hidden)', (r) => r.length) };
    await page.check('#filters input[data-status="same"]');
    report.diff.withSame = await page.$$eval('.row:not(.hidden)', (r) => r.length);
    await page.screenshot({ path: path.join(dir, 'diff.png'), fullPage: true });
    await page.close();

    page = await open(context, path.join(dir, 'stepper.html'), '#step=1', report.errors);
    report.stepper = { title: await page.title() };
    await page.click('#next');
    report.stepper.titleAfterNext = await page.title();
    await page.screenshot({ path: path.join(dir, 'stepper.png') });
    await page.close();
  } finally {
    await browser.close();
  }
  fs.writeFileSync(reportPath, JSON.stringify(report, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
