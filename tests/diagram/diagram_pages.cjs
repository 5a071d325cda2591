// Opens diagram pages (.html) and standalone diagrams (.svg) in Debian's Chromium through
// playwright-core, writes a screenshot of each beside it (FILE.png; a page with a side toggle also
// FILE.infer.png, its Inference view), and reports what the browser tests check, as JSON:
//   node diagram_pages.cjs REPORT.json FILE...
// Per file: console errors, whether the page script ran to its end, the text of every box by id,
// every cluster's label (text, anchor, x), the collision note, and the computed opacity of a training-only, an inference-only and a shared
// box (in a page: in the Training view, then in the Inference view); a page's Summary tab (the
// rows of its modules table and memory items, FILE.summary.png).
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

// In the browser: what the checks read from the document as it is shown.
function probe() {
  const opacityOf = (selector) => {
    const el = document.querySelector(selector);
    return el ? Number(getComputedStyle(el).opacity) : null;
  };
  const note = document.getElementById('collisions');
  return {
    ready: document.body ? document.body.dataset.ready === 'true' : false,
    boxes: Object.fromEntries(Array.from(document.querySelectorAll('g.node')).map((g) =>
      [g.id, Array.from(g.querySelectorAll('text')).map((t) => t.textContent).join(' ')])),
    collisionNote: note && !note.hidden ? note.textContent : null,
    // Each cluster's label as drawn: its text, anchor and x.
    clusterLabels: Object.fromEntries(Array.from(document.querySelectorAll('g.cluster')).map((g) => {
      const t = g.querySelector(':scope > text');
      return [g.id, t ? { text: t.textContent, anchor: t.getAttribute('text-anchor'), x: Number(t.getAttribute('x')) } : null];
    })),
    opacity: {
      onlyTrain: opacityOf('g.node.only-train'),
      onlyInfer: opacityOf('g.node.only-infer'),
      shared: opacityOf('g.node:not(.only-train):not(.only-infer)'),
    },
  };
}

// In the browser: the Summary tab as shown (rows of the modules table, memory items), and
// whether the diagram is hidden behind it.
function summaryProbe() {
  const cells = (tr) => Array.from(tr.cells).map((td) => td.textContent);
  const canvas = document.getElementById('canvas');
  const box = document.getElementById('summary');
  return {
    shown: !box.hidden && getComputedStyle(box).display !== 'none',
    canvasShown: getComputedStyle(canvas).display !== 'none',
    heading: box.querySelector('h2') ? box.querySelector('h2').textContent : null,
    rows: Array.from(box.querySelectorAll('table.summary-modules tr[data-path]')).map((tr) =>
      ({ path: tr.dataset.path, cells: cells(tr) })),
    memory: Array.from(box.querySelectorAll('table.summary-memory tr[data-key]')).map((tr) =>
      ({ key: tr.dataset.key, cells: cells(tr) })),
  };
}

async function main() {
  const [reportPath, ...files] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const report = {};
  try {
    for (const file of files) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto('file://' + path.resolve(file));
      const base = file;
      const entry = { errors };
      if (file.endsWith('.html')) {
        await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
        entry.train = await page.evaluate(probe);
        await page.screenshot({ path: base + '.png', fullPage: true });
        const inferTab = await page.$('.tab-btn[data-side="infer"]');
        if (inferTab) {
          // The check is the state the toggle leads to, not the fade on its way there.
          await page.addStyleTag({ content: '* { transition: none !important; }' });
          await inferTab.click();
          await page.waitForSelector('#canvas.show-infer');
          entry.infer = await page.evaluate(probe);
          await page.screenshot({ path: base + '.infer.png', fullPage: true });
        }
        // The Summary tab (FILE.summary.png): the training table, at depth 0, then the inference
        // table when the page has both sides.
        const summaryTab = await page.$('.view-btn[data-view="summary"]');
        if (summaryTab) {
          const trainTab = await page.$('.tab-btn[data-side="train"]');
          if (trainTab) await trainTab.click();
          await summaryTab.click();
          await page.waitForSelector('#summary table.summary-modules');
          entry.summary = await page.evaluate(summaryProbe);
          await page.screenshot({ path: base + '.summary.png', fullPage: true });
          await page.selectOption('#summary-depth', '0');
          entry.summaryDepth0 = await page.evaluate(summaryProbe);
          if (inferTab) {
            await inferTab.click();
            entry.summaryInfer = await page.evaluate(summaryProbe);
          }
        }
      } else {
        entry.svg = await page.evaluate(probe);
        // An SVG document has no page to scroll (a full-page screenshot never ends): the viewport
        // takes the drawing's natural size instead.
        const size = await page.evaluate(() => {
          const r = document.documentElement.getBoundingClientRect();
          return { width: Math.ceil(r.width), height: Math.ceil(r.height) };
        });
        await page.setViewportSize({ width: Math.min(size.width, 4000), height: Math.min(size.height, 8000) });
        await page.screenshot({ path: base + '.png' });
      }
      report[path.basename(file)] = entry;
      await page.close();
    }
  } finally {
    await browser.close();
  }
  fs.writeFileSync(reportPath, JSON.stringify(report, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
