// The app in a real browser: `nndna serve` on a free loopback port, driven by Playwright
// (playwright-core from the web app's packages) with Debian's Chromium. Every step writes a
// screenshot to $NNDNA_OUT for review. Run by CTest (tests/server/CMakeLists.txt) with
// NNDNA (the nndna binary), NNDNA_NODE_MODULES, NNDNA_CACHE and NNDNA_OUT set.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, screenshots, setEditorText as pasteIntoEditor, startServer } from './browser_support.mjs';

const OUT = process.env.NNDNA_OUT;
const DOWNLOADS = join(OUT, 'downloads');
const STEP_TIMEOUT = 120_000;

let server;
let base;
let browser;
let page;
let consoleErrors = [];
let foreignRequests = [];
const shoot = screenshots(OUT);
const screenshot = (name) => shoot(page, name);

const diagramsDrawn = () => page.evaluate(() => Number(document.body.dataset.diagrams));

// Waits for the page to finish the request in flight after `count` diagrams were drawn.
async function waitForState(state, previousDiagrams) {
  await page.waitForFunction(
    ([s, n]) => document.body.dataset.state === s && (n === null || Number(document.body.dataset.diagrams) > n),
    [state, previousDiagrams],
    { timeout: STEP_TIMEOUT },
  );
}

// The text the page last sent or saved (the editor draws only the lines in view).
async function editorText() {
  return page.evaluate(() => localStorage.getItem('nndna.source'));
}

const setEditorText = (text) => pasteIntoEditor(page, text);

async function defaultSource() {
  const r = await fetch(`${base}api/examples/diffusion_denoiser`);
  return (await r.json()).source;
}

async function health() {
  return (await fetch(`${base}api/health`)).json();
}

// Processes running a compiled spec of this test's cache (their program lives in it).
function specProcesses() {
  const bin = join(process.env.NNDNA_CACHE, 'bin');
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  // A spec program's argv[0] is its cached binary; the sandbox's init names it as an argument.
  return out.split('\n').filter((l) => (l.trim().split(/\s+/)[1] ?? '').startsWith(bin));
}

before(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(DOWNLOADS, { recursive: true });
  ({ child: server, url: base } = await startServer());
  // Nothing may leave loopback: any other request is refused and recorded.
  ({ browser, page, foreignRequests, consoleErrors } = await openPage(base));
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

test('the page opens on the default model, drawn, offline', { timeout: STEP_TIMEOUT }, async () => {
  await page.goto(base);
  await waitForState('done', 0);
  assert.equal(await page.textContent('#model-title'), 'Iterative diffusion denoiser');
  assert.match(await page.textContent('#views svg'), /×12 \(inference\)/);
  assert.equal(await page.locator('#metrics .metric-chip').count(), 4);
  assert.equal(await page.textContent('#metrics .metric-chip >> nth=0'), '24.9K parameters');
  assert.ok(await page.isVisible('.tab-btn[data-tab="infer"]'));
  assert.ok(await page.isVisible('#designer')); // the describe box (tests: design_browser_test.mjs)
  await screenshot('default-model');
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
});

test('an edit (N_STEPS = 5) redraws with ×5', { timeout: STEP_TIMEOUT }, async () => {
  const source = await defaultSource();
  await setEditorText(source.replace('N_STEPS = 12', 'N_STEPS = 5'));
  const before = await diagramsDrawn();
  await page.keyboard.press('Control+Enter');
  await waitForState('done', before);
  assert.ok(await page.isVisible('#tab-graph'));
  const text = await page.textContent('#views svg');
  assert.match(text, /×5 \(inference\)/);
  assert.doesNotMatch(text, /×12/);
  // The progress shows every stage with its time.
  assert.deepEqual(await page.$$eval('#progress li.done', (ls) => ls.map((l) => l.dataset.stage)), ['compile', 'run', 'diagram', 'layout']);
  await screenshot('edited-five-steps');
});

test('typing on while a diagram is made: every key lands, the Code tab stays', { timeout: STEP_TIMEOUT }, async () => {
  const source = await defaultSource();
  // A spec never compiled before (the cache outlives the test): its answer takes a compile.
  await setEditorText(`${source.replace('N_STEPS = 12', 'N_STEPS = 7')}// ${Date.now()}\n`);
  await page.keyboard.press('Control+End');
  await page.keyboard.type('// asked ');
  const before = await diagramsDrawn();
  await page.keyboard.press('Control+Enter');
  // Type one key at a time until the diagram arrives, then some more.
  let typed = '';
  while ((await diagramsDrawn()) === before) {
    await page.keyboard.type('x', { delay: 30 });
    typed += 'x';
    assert.ok(typed.length < 2000, 'the diagram never arrived');
  }
  await page.keyboard.type(' and after', { delay: 30 });
  const expected = `// asked ${typed} and after`;
  await page.waitForFunction((t) => localStorage.getItem('nndna.source')?.endsWith(t), expected, { timeout: 5_000 });
  assert.equal(await page.getAttribute('.tab-btn[data-tab="code"]', 'aria-selected'), 'true');
  // The new diagram waits on its tab.
  await page.click('.tab-btn[data-tab="train"]');
  assert.match(await page.textContent('#views svg'), /×7 \(inference\)/);
});

// A cached answer comes at once: the diagram shows before the next key. Keys typed then, with
// nothing focused, go back into the editor on the Code tab.
test('keys typed after a diagram hid the editor go into it', { timeout: STEP_TIMEOUT }, async () => {
  const source = await defaultSource();
  await setEditorText(source);
  await page.keyboard.press('Control+End');
  const before = await diagramsDrawn();
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction((n) => Number(document.body.dataset.diagrams) > n, before);
  assert.equal(await page.getAttribute('.tab-btn[data-tab="code"]', 'aria-selected'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement === document.body), true);
  await page.keyboard.type('// kept', { delay: 20 });
  assert.equal(await page.getAttribute('.tab-btn[data-tab="code"]', 'aria-selected'), 'true');
  await page.waitForFunction(() => localStorage.getItem('nndna.source')?.endsWith('// kept'), null, { timeout: 5_000 });
  // A key on a focused control is the control's: Space on a tab button stays there.
  await page.click('.tab-btn[data-tab="train"]');
  await page.keyboard.press('Space');
  assert.equal(await page.getAttribute('.tab-btn[data-tab="train"]', 'aria-selected'), 'true');
  assert.ok((await page.evaluate(() => localStorage.getItem('nndna.source'))).endsWith('// kept'));
});

test('a shape error is marked on its editor line', { timeout: STEP_TIMEOUT }, async () => {
  const source = await defaultSource();
  const bad = source.replace('Linear l2{"l2", HIDDEN, HIDDEN};', 'Linear l2{"l2", HIDDEN + 1, HIDDEN};');
  await setEditorText(bad);
  await page.click('#diagram-it');
  await waitForState('error', null);
  assert.ok(await page.isVisible('#error'));
  assert.match(await page.textContent('#error'), /Linear: layer 'l2': the input's last axis is/);
  assert.equal(await page.getAttribute('#error', 'data-kind'), 'trace_error');
  await page.waitForSelector('.cm-lintRange-error');
  // The marked line is denoise()'s, whose call of l2 fails.
  const marked = await page.$eval('.cm-lintRange-error', (e) => e.closest('.cm-line').textContent);
  assert.match(marked, /^Tensor denoise\(/);
  const expectedLine = bad.split('\n').findIndex((l) => l.startsWith('Tensor denoise(')) + 1;
  assert.equal(await page.textContent('.cm-activeLineGutter'), String(expectedLine));
  await screenshot('shape-error');
});

test('reset, tabs and fading', { timeout: STEP_TIMEOUT }, async () => {
  const before = await diagramsDrawn();
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/diagram') && r.method() === 'POST');
  await page.click('#reset');
  // Reset draws the default spec; the user's saved edit stays (an example is not an edit).
  assert.equal((await sent).postDataJSON().source, await defaultSource());
  await waitForState('done', before);
  assert.ok(await page.isHidden('#error'));
  assert.match(await editorText(), /HIDDEN \+ 1/);
  const opacity = (cls) => page.$eval(`#views svg .${cls}`, (e) => Number(getComputedStyle(e).opacity));
  assert.ok(await page.$eval('#canvas', (c) => c.classList.contains('show-train')));
  assert.ok((await opacity('only-infer')) < 0.5);
  assert.equal(await opacity('only-train'), 1);
  assert.equal(await page.textContent('#faded'), 'Faded parts run only at inference.');
  await screenshot('training-tab');
  await page.click('.tab-btn[data-tab="infer"]');
  // The fade is a CSS transition: wait until it has run its course (a fixed wait read it halfway
  // under load), then check both sides.
  await page.waitForFunction(() => {
    const inferOnly = document.querySelector('#views svg .only-infer');
    return inferOnly !== null && Number(getComputedStyle(inferOnly).opacity) === 1;
  });
  assert.ok(await page.$eval('#canvas', (c) => c.classList.contains('show-infer')));
  assert.ok((await opacity('only-train')) < 0.5);
  assert.equal(await opacity('only-infer'), 1);
  assert.equal(await page.textContent('#faded'), 'Faded parts run only in training.');
  assert.match(await page.textContent('#metrics'), /FLOPs\/forward/);
  await screenshot('inference-tab');
  await page.click('.tab-btn[data-tab="info"]');
  assert.ok(await page.isVisible('#tab-info'));
  assert.ok(await page.isHidden('#tab-graph'));
  await page.click('.tab-btn[data-tab="train"]');
});

test('zoom stops at 5% and 800% of Fit', { timeout: STEP_TIMEOUT }, async () => {
  const svg = '#views .view:not([hidden]) svg';
  const width = () => page.$eval(svg, (s) => s.viewBox.baseVal.width);
  await page.click('[data-zoom="fit"]');
  const fit = await width();
  const shownPx = await page.$eval(svg, (s) => s.getBoundingClientRect().width);
  for (let i = 0; i < 30; i++) await page.click('[data-zoom="out"]');
  assert.ok(Math.abs((await width()) - fit * 20) < 1e-3, `zoomed out to ${await width()} of ${fit}`);
  for (let i = 0; i < 60; i++) await page.click('[data-zoom="in"]');
  const closest = Math.min(fit, shownPx / 1.33) / 8;
  assert.ok(Math.abs((await width()) - closest) < 1e-3, `zoomed in to ${await width()} of ${fit}`);
  await page.click('[data-zoom="fit"]');
  assert.equal(await width(), fit);
});

// How many listeners of `type` the window holds, as Chromium's DevTools count them.
async function windowListeners(type) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'window' });
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
    return listeners.filter((l) => l.type === type).length;
  } finally {
    await cdp.detach();
  }
}

test('a new diagram takes the old one\'s window listeners with it; dragging still pans', { timeout: STEP_TIMEOUT }, async () => {
  const counts = async () => [await windowListeners('pointermove'), await windowListeners('pointerup')];
  const first = await counts();
  assert.ok(first[0] >= 1 && first[1] >= 1, `listeners: ${first}`);
  for (let i = 0; i < 3; i++) {
    const before = await diagramsDrawn();
    await page.keyboard.press('Control+Enter');
    await waitForState('done', before);
  }
  assert.deepEqual(await counts(), first);
  const svg = '#views .view:not([hidden]) svg';
  const x = () => page.$eval(svg, (s) => s.viewBox.baseVal.x);
  const box = await page.locator(svg).boundingBox();
  const x0 = await x();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 80, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  assert.ok((await x()) > x0, `dragging left moves the view right: ${x0} -> ${await x()}`);
  await page.click('[data-zoom="fit"]');
});

test('hover and click a box: the panel, its line in the editor, and back', { timeout: STEP_TIMEOUT }, async () => {
  // denoise()'s box: l3(gelu(l2(gelu(l1(x))))), shared by both sides, folded ×12 at inference.
  const box = page.locator('#views svg g.node', { hasText: 'Tensor denoise(' });
  await box.hover();
  assert.ok((await page.locator('#views svg .hi-highlight').count()) >= 2); // the box and its edges
  await box.click();
  await page.waitForSelector('#box-panel:not([hidden])');
  const source = await defaultSource();
  const denoiseLine = source.split('\n').findIndex((l) => l.startsWith('Tensor denoise(')) + 1;
  assert.equal(await page.textContent('#box-panel .box-line'), `model.cpp:${denoiseLine}`);
  assert.equal(await page.textContent('#box-panel .box-shapes'), '[B, D]');
  // Parameters: 32·128+128 + 128·128+128 + 128·32+32 = 24,864 on each side. FLOPs of one call:
  // 2·256·(32·128 + 128·128 + 128·32) = 12,582,912; at inference 12 calls: 150,994,944.
  const row = (side) => page.$$eval(`#box-panel tr[data-side="${side}"] td`, (tds) => tds.map((td) => td.textContent));
  // The panel's FLOPs are the box's forward ones (the header's FLOPs/step adds the backward).
  assert.match(await page.textContent('#box-panel table.box-costs tr:first-child'), /forward FLOPs/);
  assert.deepEqual(await row('train'), ['24.9K', '12.6M', '1 call']);
  assert.deepEqual(await row('infer'), ['24.9K', '151.0M', '×12 iterations']);
  await screenshot('box-panel');
  await page.click('#box-panel .box-line');
  assert.ok(await page.isVisible('#tab-code'));
  assert.equal(await page.textContent('.cm-activeLineGutter'), String(denoiseLine));
  // The cursor's line lights up its box.
  await page.click('.tab-btn[data-tab="train"]');
  assert.equal(await page.locator('#views svg g.node.line-hit').count(), 1);
  assert.match(await page.textContent('#views svg g.node.line-hit'), /Tensor denoise\(/);
  await screenshot('line-highlight');
});

test('a keyboard reaches the boxes: Enter opens the panel, Escape closes it', { timeout: STEP_TIMEOUT }, async () => {
  const box = page.locator('#views svg g.node', { hasText: 'Tensor denoise(' });
  assert.equal(await box.getAttribute('tabindex'), '0');
  assert.match(await box.getAttribute('aria-label'), /^Tensor denoise\(.* \[B, D\]$/);
  // Inputs are not boxes to open.
  assert.equal(await page.locator('#views svg g.node', { hasText: 'input: clean' }).getAttribute('tabindex'), null);
  await box.focus();
  assert.ok((await page.locator('#views svg .hi-highlight').count()) >= 2); // as a hover
  await screenshot('box-focused-by-keyboard');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#box-panel:not([hidden])');
  assert.equal(await page.textContent('#box-panel .box-shapes'), '[B, D]');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#box-panel', { state: 'hidden' });
  assert.equal(await page.locator('#views svg g.node.selected').count(), 0);
  // Tab moves on to the next box.
  await box.focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.matches('g.node')), true);
});

// The tab bar as the WAI-ARIA tabs pattern has it: one Tab stop (the active tab), arrows, Home
// and End move among the shown tabs and show the one reached, as its click does.
test('tab bar by keyboard', { timeout: STEP_TIMEOUT }, async () => {
  // Every tab and the panel it controls.
  const bar = () => page.$$eval('[role="tab"]', (tabs) => tabs.map((t) => {
    const panel = document.getElementById(t.getAttribute('aria-controls'));
    return {
      tab: t.dataset.tab, id: t.id, hidden: t.hidden, selected: t.getAttribute('aria-selected'), tabindex: t.getAttribute('tabindex'),
      panel: panel && { id: panel.id, role: panel.getAttribute('role'), labelledBy: panel.getAttribute('aria-labelledby'), shown: panel.checkVisibility() },
    };
  }));
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('role') === 'tab' ? document.activeElement.dataset.tab : null);
  // `tab` has the focus, is the one selected and the one Tab stops at; its panel shows, named by
  // it, and no other panel does.
  const on = async (tab) => {
    assert.equal(await focused(), tab);
    const tabs = await bar();
    for (const t of tabs) {
      assert.ok(t.panel, `${t.tab}'s aria-controls names no element`);
      assert.equal(t.panel.role, 'tabpanel', t.panel.id);
    }
    assert.deepEqual(tabs.filter((t) => t.selected === 'true').map((t) => t.tab), [tab]);
    assert.deepEqual(tabs.filter((t) => t.tabindex === '0').map((t) => t.tab), [tab]);
    assert.deepEqual(tabs.filter((t) => t.tab !== tab).map((t) => t.tabindex), tabs.filter((t) => t.tab !== tab).map(() => '-1'));
    const active = tabs.find((t) => t.tab === tab);
    assert.equal(active.panel.labelledBy, active.id);
    assert.deepEqual([...new Set(tabs.filter((t) => t.panel.shown).map((t) => t.panel.id))], [active.panel.id]);
  };
  const press = async (key, tab) => {
    await page.keyboard.press(key);
    await on(tab);
  };
  const shownTabs = async () => (await bar()).filter((t) => !t.hidden).map((t) => t.tab);

  // The default model has both graph tabs; the bar is entered at its active tab.
  assert.deepEqual(await shownTabs(), ['train', 'infer', 'code', 'info']);
  await page.click('.tab-btn[data-tab="train"]');
  await page.focus('#download-toggle');
  await press('Tab', 'train');
  await press('ArrowRight', 'infer');
  assert.ok(await page.$eval('#canvas', (c) => c.classList.contains('show-infer'))); // shown as a click shows it
  await screenshot('tab-bar-keyboard');
  await press('ArrowLeft', 'train');
  assert.ok(await page.$eval('#canvas', (c) => c.classList.contains('show-train')));
  await press('End', 'info');
  await press('Home', 'train');
  await press('ArrowLeft', 'info'); // round the ends, both ways
  await press('ArrowRight', 'train');
  await press('ArrowRight', 'infer');
  await press('ArrowRight', 'code');
  // Tab leaves the bar at once, Shift+Tab comes back to the active tab.
  await page.keyboard.press('Tab');
  assert.equal(await focused(), null);
  await page.keyboard.press('Shift+Tab');
  await on('code');

  // A spec without predict: no inference tab, and the keys pass it by.
  const source = await defaultSource();
  const trainOnly = source.replace(/\/\/ Inference:[^]*?\n}\n\n/, '').replace(/ *\.predict(Inputs)? = .*\n/g, '');
  assert.doesNotMatch(trainOnly, /predictFn/);
  await setEditorText(trainOnly);
  let before = await diagramsDrawn();
  await page.keyboard.press('Control+Enter');
  await waitForState('done', before);
  assert.deepEqual(await shownTabs(), ['train', 'code', 'info']);
  await page.focus('.tab-btn[aria-selected="true"]');
  await on('train');
  await press('ArrowRight', 'code');
  await press('ArrowLeft', 'train');
  await press('ArrowLeft', 'info');
  await press('ArrowRight', 'train');
  await press('End', 'info');
  await press('ArrowLeft', 'code');
  await press('Home', 'train');
  await screenshot('tab-bar-keyboard-no-inference');
  before = await diagramsDrawn();
  await page.click('#reset');
  await waitForState('done', before);
  assert.ok(await page.isVisible('.tab-btn[data-tab="infer"]'));
});

test('opening an example by its URL, in another tab, leaves the saved work alone', { timeout: STEP_TIMEOUT }, async () => {
  const mine = `// MY WORK\n${await defaultSource()}`;
  await setEditorText(mine);
  const before = await diagramsDrawn();
  await page.keyboard.press('Control+Enter');
  await waitForState('done', before);
  assert.equal(await editorText(), mine);
  const other = await page.context().newPage();
  await other.goto(`${base}?example=gpt2_small`);
  await other.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: STEP_TIMEOUT });
  await other.close();
  assert.equal(await editorText(), mine);
  await page.reload();
  await waitForState('done', 0);
  assert.equal(await page.textContent('#model-title'), 'Iterative diffusion denoiser');
  assert.equal(await editorText(), mine);
});

test('typing just before a reload survives it', { timeout: STEP_TIMEOUT }, async () => {
  await page.click('.tab-btn[data-tab="code"]');
  await page.click('.cm-content');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('// LAST WORDS');
  await page.reload();
  await waitForState('done', 0);
  assert.match(await editorText(), /\/\/ LAST WORDS$/);
});

test('an example loads, and the URL can name one', { timeout: STEP_TIMEOUT }, async () => {
  // The menu names each example by its spec's label (GET /api/examples: the program serving the
  // page must hold the built-in specs).
  assert.equal(await page.textContent('#examples option[value="mlp_sin"]'), 'MLP fits sin(x) (mlp_sin)');
  const before = await diagramsDrawn();
  await page.selectOption('#examples', 'mlp_sin');
  await waitForState('done', before);
  assert.match(page.url(), /\?example=mlp_sin$/);
  assert.match(await editorText(), /NNDNA_SPEC/);
  const title = await page.textContent('#model-title');
  await screenshot('example-mlp-sin');
  // A reload keeps the editor's content.
  await page.reload();
  await waitForState('done', 0);
  assert.equal(await page.textContent('#model-title'), title);
  await page.goto(`${base}?example=gpt2_small`);
  await waitForState('done', 0);
  assert.equal(await page.textContent('#model-title'), 'GPT-2 small (124M)');
  await screenshot('example-gpt2-small');
});

test('of two examples chosen quickly, the last stays even when the first answers last', { timeout: STEP_TIMEOUT }, async () => {
  // The first choice's text is held back until the second's has been placed.
  let releaseFirst;
  const firstHeld = new Promise((resolve) => (releaseFirst = resolve));
  await page.route('**/api/examples/cnn_digits', async (route) => {
    await firstHeld;
    await route.continue();
  });
  try {
    const before = await diagramsDrawn();
    await page.selectOption('#examples', 'cnn_digits');
    await page.selectOption('#examples', 'mlp_sin');
    await waitForState('done', before);
    assert.equal(await page.textContent('#model-title'), 'MLP fits sin(x)');
    releaseFirst();
    const drawn = await diagramsDrawn();
    await page.waitForTimeout(1000); // time for the held answer to arrive and be dropped
    assert.equal(await diagramsDrawn(), drawn);
    assert.equal(await page.textContent('#model-title'), 'MLP fits sin(x)');
    assert.match(await editorText(), /sin/);
    assert.doesNotMatch(await editorText(), /convolutional/);
    assert.equal(await page.isVisible('#error'), false);
  } finally {
    releaseFirst();
    await page.unroute('**/api/examples/cnn_digits');
  }
  // Back to the example the tests after this one start from.
  await page.goto(`${base}?example=gpt2_small`);
  await waitForState('done', 0);
});

test('the Download menu works from the keyboard: arrows, Escape, focus leaving', { timeout: STEP_TIMEOUT }, async () => {
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset.format);
  await page.focus('#download-toggle');
  await page.keyboard.press('Enter');
  assert.ok(await page.isVisible('#download-menu'));
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'cpp');
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(), 'html');
  await page.keyboard.press('Escape');
  assert.ok(await page.isHidden('#download-menu'));
  assert.equal(await focused(), 'download-toggle');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab'); // into the menu: it stays
  assert.ok(await page.isVisible('#download-menu'));
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab'); // out of it, to the examples
  assert.ok(await page.isHidden('#download-menu'));
});

test('every download produces a valid file', { timeout: STEP_TIMEOUT }, async () => {
  const files = {};
  for (const format of ['cpp', 'svg', 'png', 'dot', 'json', 'html']) {
    await page.click('#download-toggle');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: STEP_TIMEOUT }), page.click(`#download-menu [data-format="${format}"]`)]);
    const path = join(DOWNLOADS, download.suggestedFilename());
    await download.saveAs(path);
    assert.equal(download.suggestedFilename(), `gpt2_small.${format}`);
    files[format] = path;
  }
  assert.match(readFileSync(files.cpp, 'utf8'), /NNDNA_SPEC/);
  const png = readFileSync(files.png);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.readUInt32BE(16) > 100 && png.readUInt32BE(20) > 100); // IHDR width, height
  execFileSync('dot', ['-Tsvg', '-o', '/dev/null', files.dot]); // Graphviz reads it
  const json = JSON.parse(readFileSync(files.json, 'utf8'));
  assert.equal(json.format, 'nndna-diagram');
  assert.equal(json.label, 'GPT-2 small (124M)');
  assert.equal(json.layer_count, json.nodes.filter((n) => !n.input).length);
  for (const key of ['clusters', 'edges', 'legend', 'metrics', 'dot']) assert.ok(key in json, key);
  // The SVG parses as XML with an <svg> root; the page opens offline with its script run.
  const svgOk = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return doc.documentElement.nodeName === 'svg' && doc.getElementsByTagName('parsererror').length === 0;
  }, readFileSync(files.svg, 'utf8'));
  assert.ok(svgOk);
  const html = readFileSync(files.html, 'utf8');
  assert.ok(html.startsWith('<!doctype html>'));
  const offline = await browser.newPage();
  const errors = [];
  offline.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await offline.goto(`file://${files.html}`);
  await offline.waitForSelector('body[data-ready="true"]');
  assert.equal(await offline.textContent('.model-title'), 'GPT-2 small (124M)');
  assert.deepEqual(errors, []);
  await offline.close();
});

test('the SVG and PNG downloaded on a graph tab show that tab\'s view', { timeout: STEP_TIMEOUT }, async () => {
  const labelsIn = (text) => page.evaluate((svg) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    return Array.from(doc.querySelectorAll('svg g.cluster > text'), (t) => `${t.parentElement.id}: ${t.textContent}`);
  }, text);
  const shownLabels = () => page.evaluate(() => Array.from(
    document.querySelectorAll('#views .view:not([hidden]) svg g.cluster > text'), (t) => `${t.parentElement.id}: ${t.textContent}`));
  const shown = {};
  const files = {};
  for (const side of ['train', 'infer']) {
    await page.click(`.tab-btn[data-tab="${side}"]`);
    shown[side] = await shownLabels();
    for (const format of ['svg', 'png']) {
      await page.click('#download-toggle');
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: STEP_TIMEOUT }), page.click(`#download-menu [data-format="${format}"]`)]);
      files[`${side}.${format}`] = join(DOWNLOADS, `${side}-${download.suggestedFilename()}`);
      await download.saveAs(files[`${side}.${format}`]);
    }
  }
  await page.click('.tab-btn[data-tab="train"]');
  // GPT-2 small's outermost wrapper is paired: "Tensor logits = gpt(...)" in training, predictFn
  // at inference.
  assert.notDeepEqual(shown.train, shown.infer);
  const svg = { train: readFileSync(files['train.svg'], 'utf8'), infer: readFileSync(files['infer.svg'], 'utf8') };
  assert.deepEqual(await labelsIn(svg.train), shown.train);
  assert.deepEqual(await labelsIn(svg.infer), shown.infer);
  assert.match(svg.train, /svg \.only-infer \{ opacity: 0\.18; \}/);
  assert.doesNotMatch(svg.train, /\.only-train \{/);
  assert.match(svg.infer, /svg \.only-train \{ opacity: 0\.18; \}/);
  assert.doesNotMatch(svg.infer, /\.only-infer \{/);
  assert.notEqual(readFileSync(files['train.png']).compare(readFileSync(files['infer.png'])), 0);
});

test('the theme toggle switches and is remembered', { timeout: STEP_TIMEOUT }, async () => {
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await theme(), 'light');
  assert.equal(await background(), 'rgb(255, 255, 255)');
  await page.click('#theme-toggle');
  assert.equal(await theme(), 'dark');
  assert.equal(await background(), 'rgb(12, 12, 14)');
  await page.reload();
  await waitForState('done', 0);
  assert.equal(await theme(), 'dark');
  await screenshot('dark-theme');
  await page.click('#theme-toggle');
  assert.equal(await theme(), 'light');
});

test('dark theme: every coloured letter in a box is readable (4.5:1)', { timeout: STEP_TIMEOUT }, async () => {
  await page.click('#theme-toggle');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  await page.click('.tab-btn[data-tab="train"]');
  const worst = await page.evaluate(() => {
    const luminance = (rgb) => {
      const [r, g, b] = rgb.match(/\d+/g).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const box = document.createElement('div');
    box.style.color = 'var(--bg-node)';
    document.body.appendChild(box);
    const background = luminance(getComputedStyle(box).color);
    box.remove();
    const found = [];
    for (const text of document.querySelectorAll('#views svg g.node text[fill^="#"]')) {
      const l = luminance(getComputedStyle(text).fill);
      found.push({ fill: text.getAttribute('fill'), ratio: (Math.max(l, background) + 0.05) / (Math.min(l, background) + 0.05) });
    }
    return found.sort((a, b) => a.ratio - b.ratio);
  });
  await page.click('#theme-toggle');
  assert.ok(worst.some((t) => t.fill === '#8c564b'), 'GPT-2 small has a brown dim'); // the darkest of them
  assert.ok(worst[0].ratio >= 4.5, `${worst[0].fill}: ${worst[0].ratio.toFixed(2)}:1`);
});

test('a new Diagram it cancels the running one and kills its process', { timeout: STEP_TIMEOUT }, async () => {
  const endless = (await defaultSource()).replace(
    'Tensor lossFn(Denoiser& m, const Inputs& in) {',
    'Tensor lossFn(Denoiser& m, const Inputs& in) {\n  for (volatile bool forever = true; forever;) {}',
  );
  await setEditorText(endless);
  await page.keyboard.press('Control+Enter');
  // Its compile done, its program runs (and would for a minute).
  const deadline = Date.now() + 60_000;
  while (specProcesses().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(specProcesses().length, 1, 'the spec program runs');
  assert.equal((await health()).jobs.running, 1);
  await screenshot('running');
  const before = await diagramsDrawn();
  await page.click('#reset');
  await waitForState('done', before);
  const gone = Date.now() + 5_000;
  while (specProcesses().length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(specProcesses(), []);
  // The cancelled job counts as running until its sandbox is torn down (its groups removed),
  // which can end a little after its processes are gone.
  while ((await health()).jobs.running > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
  assert.equal((await health()).jobs.running, 0);
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
  await screenshot('after-cancel');
});

// Loading an example (the menu, Reset, an arrow key on the focused menu) is not an edit: the
// user's saved spec stays, and the menu's "Your spec" brings it back.
test('an example keeps the saved spec, and the menu brings it back', { timeout: STEP_TIMEOUT }, async () => {
  await setEditorText((await defaultSource()).replace('N_STEPS = 12', 'N_STEPS = 7'));
  await page.waitForFunction(() => localStorage.getItem('nndna.source')?.includes('N_STEPS = 7'), null, { timeout: 5_000 });
  let before = await diagramsDrawn();
  await page.selectOption('#examples', 'mlp_sin');
  await waitForState('done', before);
  assert.equal(await page.textContent('#model-title'), 'MLP fits sin(x)');
  assert.ok((await editorText()).includes('N_STEPS = 7'));
  before = await diagramsDrawn();
  await page.click('#reset');
  await waitForState('done', before);
  assert.ok((await editorText()).includes('N_STEPS = 7'));
  before = await diagramsDrawn();
  await page.selectOption('#examples', 'saved-spec');
  await waitForState('done', before);
  assert.doesNotMatch(page.url(), /example=/);
  assert.equal(await page.$eval('#examples', (s) => s.value), '');
  await page.click('.tab-btn[data-tab="train"]');
  assert.match(await page.textContent('#views svg'), /×7 \(inference\)/);
  await screenshot('saved-spec-restored');
});

// A request waiting for a worker shows "queued" before the other stages: the server's stream is
// replayed with the queue's events in front (the real answer, so only the wait is made up).
test('a request that waits for a worker says so', { timeout: STEP_TIMEOUT }, async () => {
  const source = await defaultSource();
  const answer = await (
    await fetch(`${base}api/diagram`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ source }) })
  ).json();
  const stream = (events) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const waiting = { type: 'stage', stage: 'queue', state: 'start', ahead: 2 };
  // Still waiting when the stream ends: the count ahead is shown.
  await page.route('**/api/diagram', (route) =>
    route.fulfill({ status: 200, contentType: 'application/x-ndjson', body: stream([waiting]) }),
  );
  await page.click('#diagram-it');
  await page.waitForSelector('#progress li[data-stage="queued"]');
  await page.waitForFunction(() => document.body.dataset.state !== 'running');
  assert.match(await page.textContent('#progress li[data-stage="queued"]'), /^queued \d+ ms \(2 ahead\)$/);
  await screenshot('queued-two-ahead');
  await page.unroute('**/api/diagram');
  // Taken by a worker after 1.5 s, then drawn.
  const before = await diagramsDrawn();
  await page.route('**/api/diagram', (route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/x-ndjson',
      body: stream([waiting, { type: 'stage', stage: 'queue', state: 'done', seconds: 1.5 }, { type: 'result', status: 200, body: answer }]),
    }),
  );
  await page.click('#diagram-it');
  await waitForState('done', before);
  assert.equal(await page.textContent('#progress li[data-stage="queued"]'), 'queued 1.50 s');
  assert.equal(await page.locator('#progress li').first().getAttribute('data-stage'), 'queued');
  await page.unroute('**/api/diagram');
  // Without a wait there is no such stage.
  const again = await diagramsDrawn();
  await page.click('#diagram-it');
  await waitForState('done', again);
  assert.equal(await page.locator('#progress li[data-stage="queued"]').count(), 0);
});

// A spec that ran out of time (an endless loop) is remembered, and a reload opens on it without
// running it for the whole time limit again.
test('a saved spec that ran out of time is not run again on opening', { timeout: STEP_TIMEOUT }, async () => {
  const looping = `${await defaultSource()}\n// runs out of time`;
  await setEditorText(looping);
  await page.waitForFunction((t) => localStorage.getItem('nndna.source') === t, looping, { timeout: 5_000 });
  // The server's answer to a spec past its time limit (replayed: the real one takes a minute).
  await page.route('**/api/diagram', (route) =>
    route.fulfill({
      status: 422,
      contentType: 'application/json',
      body: JSON.stringify({ ok: false, error: { kind: 'timeout', message: 'the spec ran past its 60 s limit', diagnostics: [] } }),
    }),
  );
  await page.click('#diagram-it');
  await page.waitForFunction(() => document.body.dataset.state === 'error');
  await page.unroute('**/api/diagram');
  assert.equal(await page.evaluate(() => localStorage.getItem('nndna.timedOutSource')), looping);
  let posts = 0;
  const count = (r) => {
    if (r.url().endsWith('/api/diagram') && r.method() === 'POST') posts++;
  };
  page.on('request', count);
  await page.goto(base);
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /ran out of time when it was last drawn, so it was not run on opening/);
  assert.equal(await page.getAttribute('.tab-btn[data-tab="code"]', 'aria-selected'), 'true');
  await screenshot('timed-out-spec-not-run');
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(posts, 0);
  // Asked, it runs; drawn, it is no longer marked.
  await page.click('#diagram-it');
  await waitForState('done', 0);
  page.off('request', count);
  assert.equal(posts, 1);
  assert.equal(await page.evaluate(() => localStorage.getItem('nndna.timedOutSource')), null);
});

test('an example that cannot be fetched says so', { timeout: STEP_TIMEOUT }, async () => {
  await page.route('**/api/examples/vae', (route) => route.abort('connectionrefused'));
  const errorsBefore = consoleErrors.length;
  await page.selectOption('#examples', 'vae');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /^Could not load the example "vae": the server could not be reached/);
  assert.equal(await page.$eval('#examples', (s) => s.value), '');
  assert.deepEqual(consoleErrors.slice(errorsBefore).filter((e) => e.startsWith('pageerror')), []);
  await page.unroute('**/api/examples/vae');
});

test('a phone-wide screen: no sideways scrolling, tooltips inside, zoom buttons off the boxes, carets in place', { timeout: STEP_TIMEOUT }, async () => {
  await page.setViewportSize({ width: 375, height: 740 });
  try {
    const drawn = await diagramsDrawn();
    await page.click('#reset');
    await waitForState('done', drawn);
    const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(await sideways(), 0);
    // Each metric's tooltip: its box on screen from its ::after style and its containing block.
    for (const chip of await page.$$('#metrics .metric-chip')) {
      await chip.hover();
      const [left, right] = await chip.evaluate((c) => {
        let host = c;
        while (host !== document.body && getComputedStyle(host).position === 'static') host = host.parentElement;
        const st = getComputedStyle(c, '::after');
        const px = (v) => parseFloat(v) || 0;
        const shift = new DOMMatrix(st.transform === 'none' ? undefined : st.transform).e;
        const l = host.getBoundingClientRect().left + host.clientLeft + px(st.left) + shift;
        return [l, l + px(st.width) + px(st.paddingLeft) + px(st.paddingRight) + px(st.borderLeftWidth) + px(st.borderRightWidth)];
      });
      assert.ok(left >= 0 && right <= 375, `tooltip from ${left} to ${right}`);
    }
    const controls = await page.$eval('.zoom-controls', (e) => e.getBoundingClientRect().bottom);
    const diagram = await page.$eval('#views svg', (e) => e.getBoundingClientRect().top);
    assert.ok(controls <= diagram, `zoom buttons end at ${controls}, the diagram starts at ${diagram}`);
    await screenshot('phone-wide');
    // A diagram wider than the phone opens readable (half its natural 1.33 px a point or more) on
    // its top, not shrunk to the width (GPT-2 opened at 0.41 px a point).
    await page.goto(`${base}?example=gpt2_small`);
    await waitForState('done', 0);
    const svg = '#views .view:not([hidden]) svg';
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const [pxPerPoint, top, homeWidth, shownWidth] = await page.$eval(svg, (s) => [
      s.getBoundingClientRect().width / s.viewBox.baseVal.width,
      s.viewBox.baseVal.y,
      s.getBBox().width,
      s.viewBox.baseVal.width,
    ]);
    assert.ok(pxPerPoint >= 1.33 / 2 - 1e-6, `opened at ${pxPerPoint} px a point`);
    assert.ok(shownWidth < homeWidth, `shows ${shownWidth} of ${homeWidth} points across`);
    assert.equal(top, 0, 'opened on its top');
    assert.equal(await sideways(), 0);
    await screenshot('phone-wide-gpt2');
    // A compile error on a long line: the compiler's caret line is not wrapped, the box scrolls.
    const source = await defaultSource();
    await setEditorText(`${source}int a_long_line_that_does_not_compile_at_all(int first, int second) { return first + secnd; }\n`);
    await page.keyboard.press('Control+Enter');
    await waitForState('error', null);
    assert.equal(await page.getAttribute('#error', 'data-kind'), 'compile_error');
    assert.match(await page.textContent('#error'), /\^/);
    assert.equal(await page.$eval('#error', (e) => getComputedStyle(e).whiteSpace), 'pre');
    assert.ok(await page.$eval('#error', (e) => e.scrollWidth > e.clientWidth));
    assert.equal(await sideways(), 0);
    await screenshot('phone-wide-compile-error');
  } finally {
    await page.setViewportSize({ width: 1400, height: 1000 });
  }
  const before = await diagramsDrawn();
  await page.click('#reset');
  await waitForState('done', before);
});
