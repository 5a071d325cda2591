// The describe box in a real browser: `nndna serve` whose designer asks a fake model — an HTTP
// server on loopback in this test, answering in the OpenAI style from a script and recording
// what it was sent. Screenshots go to $NNDNA_OUT. Run by CTest (tests/server/CMakeLists.txt) with
// NNDNA, NNDNA_NODE_MODULES, NNDNA_CACHE and NNDNA_OUT set.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, screenshots, setEditorText, startServer } from './browser_support.mjs';

const OUT = process.env.NNDNA_OUT;
const STEP_TIMEOUT = 120_000;
const KEY = 'sk-browser-test-key-0123456789-SECRET';
const MODEL = 'gpt-4o-mini';

// A small spec that compiles and traces (97 parameters); `hidden` and `label` vary it.
function spec({ hidden = 16, label = 'Tiny regression MLP', member = 'l1' } = {}) {
  return [
    '#include <nndna/nndna.hpp>',
    'using namespace nndna;',
    `constexpr int B = 32, IN = 4, HIDDEN = ${hidden};`,
    'struct Net : Module {',
    '  Linear l1{"l1", IN, HIDDEN};',
    '  Linear l2{"l2", HIDDEN, 1};',
    '};',
    `Tensor forward(const Net& m, Tensor x) { return m.l2(relu(m.${member}(x))); }`,
    'Tensor lossFn(Net& m, const Inputs& in) { return mean(square(sub(forward(m, in["x"]), in["y"]))); }',
    'Tensor predictFn(Net& m, const Inputs& in) { return forward(m, in["x"]); }',
    'NNDNA_SPEC(Net) {',
    `  return {.label = "${label}", .loss = lossFn, .inputs = {{"x", {B, IN}}, {"y", {B, 1}}},`,
    '          .predict = predictFn, .predictInputs = {{"x", {B, IN}}},',
    '          .dims = {{B, "B", "batch"}, {HIDDEN, "H", "hidden"}}};',
    '}',
    '',
  ].join('\n');
}

// The fake model: each request gets the next reply of the script (a function of the request's
// JSON body returning [status, body], or a promise of them: a model still thinking); every
// request body is kept in `seen`.
const fake = { script: [], seen: [] };
function chatAnswer(source) {
  return [200, {
    id: 'chatcmpl-1', object: 'chat.completion', model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify({ source }) }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1200, completion_tokens: 300 },
  }];
}
const lastUserMessage = (body) => body.messages.filter((m) => m.role === 'user').at(-1).content;

let model;
let server;
let base;
let browser;
let page;
let consoleErrors = [];
let foreignRequests = [];
const shoot = screenshots(OUT);
const screenshot = (name) => shoot(page, name);

const designsDone = () => page.evaluate(() => Number(document.body.dataset.designs));
async function waitForDesign(previous) {
  await page.waitForFunction(
    (n) => document.body.dataset.design === 'done' && Number(document.body.dataset.designs) > n,
    previous,
    { timeout: STEP_TIMEOUT },
  );
}
const editorText = () => page.evaluate(() => localStorage.getItem('nndna.source'));
const logLines = () => page.$$eval('#designer-log li', (ls) => ls.map((l) => ({ ...l.dataset, text: l.textContent })));

// A model that answers `source` only when the returned `answer()` is called.
function thinkingModel(source) {
  let answer;
  const answered = new Promise((resolve) => (answer = resolve));
  fake.script = [() => answered.then(() => chatAnswer(source))];
  fake.seen = [];
  return answer;
}

// Starts a design of `text` (Diagram It) and waits until the model was asked.
async function startDesign(text) {
  await page.fill('#designer-text', text);
  await page.click('#designer-submit');
  await page.waitForFunction(() => document.body.dataset.design === 'running');
  while (fake.seen.length === 0) await new Promise((r) => setTimeout(r, 50));
}

async function describe(text, button) {
  await page.fill('#designer-text', text);
  const before = await designsDone();
  await page.click(button);
  await waitForDesign(before);
}

before(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  model = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const body = JSON.parse(text);
      fake.seen.push({ authorization: req.headers.authorization, body });
      const reply = fake.script.length > 1 ? fake.script.shift() : fake.script[0];
      void Promise.resolve(reply ? reply(body) : [500, { error: { message: 'no reply scripted' } }]).then(([status, answer]) => {
        if (res.destroyed || !res.socket || res.socket.destroyed) return; // the designer gave up waiting
        res.on('error', () => {}); // it may go while the answer is written, too
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
  });
  await new Promise((resolve) => model.listen(0, '127.0.0.1', resolve));
  const env = { ...process.env };
  for (const name of ['http_proxy', 'https_proxy', 'HTTPS_PROXY', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY']) delete env[name];
  Object.assign(env, {
    NNDNA_LLM_BASE_URL: `http://127.0.0.1:${model.address().port}/v1`,
    NNDNA_LLM_MODEL: MODEL,
    NNDNA_LLM_API_KEY: KEY,
  });
  ({ child: server, url: base } = await startServer(['--no-warm-up'], env));
  ({ browser, page, foreignRequests, consoleErrors } = await openPage(base));
  await page.goto(base);
  await page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: STEP_TIMEOUT });
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
  model?.closeAllConnections();
  model?.close();
});

test('a description is designed, drawn and put in the editor; the key stays on the server', { timeout: STEP_TIMEOUT }, async () => {
  assert.ok(await page.isVisible('#designer'));
  assert.equal(await page.textContent('#designer h2'), 'Diagram a Neural Network Design');
  assert.equal(await page.textContent('label[for="designer-text"]'), 'What do you want the neural network to do?');
  assert.equal(await page.textContent('#designer-submit'), 'Diagram It');
  // The model quotes the key in its spec: the page gets it scrubbed.
  const answered = `${spec()}// made with ${KEY}\n`;
  fake.script = [() => chatAnswer(answered)];
  fake.seen = [];
  await describe('a tiny regression MLP', '#designer-submit');
  assert.equal(await page.textContent('#model-title'), 'Tiny regression MLP');
  assert.match(await page.textContent('#metrics'), /97 parameters/);
  assert.equal(await editorText(), `${spec()}// made with [REDACTED]\n`);
  const kinds = (await logLines()).map((l) => l.kind);
  assert.deepEqual(kinds, ['asking_model', 'attempt_started', 'llm_answer', 'check_result', 'metrics', 'finished']);
  const answer = (await logLines()).find((l) => l.kind === 'llm_answer');
  assert.match(answer.text, /gpt-4o-mini answered in .*1,200 tokens in, 300 out/);
  assert.equal(fake.seen.length, 1);
  assert.equal(fake.seen[0].authorization, `Bearer ${KEY}`);
  assert.match(lastUserMessage(fake.seen[0].body), /a tiny regression MLP/);
  assert.doesNotMatch(lastUserMessage(fake.seen[0].body), /current nndna spec/); // Diagram It sends no spec
  assert.ok(!(await page.content()).includes(KEY));
  // The progress row shows every stage of the drawn spec with its time (compile and run are the
  // working attempt's).
  assert.deepEqual(await page.$$eval('#progress li.done', (ls) => ls.map((l) => l.dataset.stage)), ['compile', 'run', 'diagram', 'layout']);
  for (const text of await page.$$eval('#progress li', (ls) => ls.map((l) => l.textContent))) {
    assert.match(text, /^(compile|run|diagram|layout) \d/, `a stage without its time: ${text}`);
  }
  await screenshot('designed');
});

test('broken code, then a fix: both attempts in the log, model text shown as text', { timeout: STEP_TIMEOUT }, async () => {
  // The broken spec names a member the model lacks, next to markup the compiler quotes back.
  const broken = spec({ member: 'l3' }).replace('relu(m.l3(x))', 'relu(m.l3(x)) /* <img src=x id=injected> */');
  const fixed = spec({ label: 'Fixed <b>MLP</b>' });
  fake.script = [() => chatAnswer(broken), () => chatAnswer(fixed)];
  fake.seen = [];
  await describe('a tiny regression MLP, again', '#designer-submit');
  const lines = await logLines();
  const first = lines.find((l) => l.kind === 'check_result' && l.attempt === '1');
  const second = lines.find((l) => l.kind === 'check_result' && l.attempt === '2');
  assert.equal(first.ok, 'false');
  assert.match(first.text, /compile_error at line 8/);
  assert.match(first.text, /<img src=x id=injected>/); // the compiler's quote, as text
  // Shown line by line as the compiler wrote it (innerText is what the page renders).
  assert.match(first.text, /\n.*\|/);
  const shown = await page.$eval('#designer-log li[data-kind="check_result"][data-attempt="1"]', (l) => l.innerText);
  assert.equal(shown.trimEnd(), first.text.trimEnd());
  assert.equal(second.ok, 'true');
  assert.equal(await page.locator('#injected').count(), 0);
  assert.equal(await page.textContent('#model-title'), 'Fixed <b>MLP</b>');
  assert.equal(await page.locator('#model-title b').count(), 0);
  assert.equal(await editorText(), fixed);
  assert.equal(fake.seen.length, 2);
  assert.match(lastUserMessage(fake.seen[1].body), /The error is on line 8/);
  await screenshot('repaired');
});

test('Change it… sends the editor\'s content with the instruction', { timeout: STEP_TIMEOUT }, async () => {
  const mine = `// my own spec\n${spec({ hidden: 24, label: 'Mine' })}`;
  await setEditorText(page, mine);
  // The fake model refuses unless the editor's spec came with the instruction.
  fake.script = [(body) => {
    const asked = lastUserMessage(body);
    return asked.includes(mine) && asked.includes('make it wider')
      ? chatAnswer(spec({ hidden: 32, label: 'Wider' }))
      : [400, { error: { message: 'the editor\'s spec did not arrive' } }];
  }];
  fake.seen = [];
  await describe('make it wider', '#designer-change');
  assert.equal(fake.seen.length, 1);
  assert.ok(lastUserMessage(fake.seen[0].body).includes(mine));
  assert.equal(await page.textContent('#model-title'), 'Wider');
  assert.match(await editorText(), /HIDDEN = 32;/);
  assert.ok(!(await logLines()).some((l) => l.kind === 'fallback_offline'));
  await screenshot('changed');
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
});

test('Ctrl+Enter in the description designs, and does not redraw the editor\'s spec', { timeout: STEP_TIMEOUT }, async () => {
  fake.script = [() => chatAnswer(spec({ label: 'By keyboard' }))];
  fake.seen = [];
  await page.fill('#designer-text', 'a tiny regression MLP, by keyboard');
  const before = await designsDone();
  const drawn = await page.evaluate(() => Number(document.body.dataset.diagrams));
  await page.focus('#designer-text');
  await page.keyboard.press('Control+Enter');
  await waitForDesign(before);
  assert.equal(fake.seen.length, 1);
  assert.equal(await page.textContent('#model-title'), 'By keyboard');
  assert.equal(await page.evaluate(() => Number(document.body.dataset.diagrams)), drawn + 1); // the design's only
});

test('Diagram it cancels a running design; so does an edit, which the design never overwrites', { timeout: STEP_TIMEOUT }, async () => {
  const drawn = () => page.evaluate(() => Number(document.body.dataset.diagrams));
  let answer = thinkingModel(spec({ label: 'Late design' }));
  await startDesign('a model that takes its time');
  let before = await drawn();
  await page.click('#diagram-it');
  await page.waitForFunction((n) => document.body.dataset.state === 'done' && Number(document.body.dataset.diagrams) > n, before);
  assert.equal(await page.evaluate(() => document.body.dataset.design), 'cancelled');
  assert.match((await logLines()).at(-1).text, /Design cancelled: Diagram it draws the spec in the editor/);
  answer();

  answer = thinkingModel(spec({ label: 'Late design' }));
  await startDesign('a model that takes its time, again');
  const mine = `// my own edit\n${spec({ hidden: 20, label: 'Mine meanwhile' })}`;
  await setEditorText(page, mine);
  assert.equal(await page.evaluate(() => document.body.dataset.design), 'cancelled');
  assert.equal((await logLines()).at(-1).kind, 'cancelled');
  assert.match((await logLines()).at(-1).text, /the spec in the editor changed/);
  before = await drawn();
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction((n) => document.body.dataset.state === 'done' && Number(document.body.dataset.diagrams) > n, before);
  // The model answers late: nothing of it reaches the page.
  answer();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await editorText(), mine);
  assert.equal(await page.textContent('#model-title'), 'Mine meanwhile');
  assert.equal(await page.evaluate(() => document.body.dataset.design), 'cancelled');
  await screenshot('design-cancelled-by-edit');
});

test('a design refused before it begins leaves the diagram, the editor and a running draw alone', { timeout: STEP_TIMEOUT }, async () => {
  const drawn = () => page.evaluate(() => Number(document.body.dataset.diagrams));
  const refusals = [
    ['rate limited', /try again in 58 s/, (route) => route.fulfill({
      status: 429,
      contentType: 'application/json',
      headers: { 'Retry-After': '58' },
      body: JSON.stringify({ ok: false, error: { kind: 'rate_limited', message: 'at most 10 designs a minute from one address; try again in 58 s' } }),
    })],
    ['unreachable', /could not be reached/, (route) => route.abort('connectionrefused')],
  ];
  for (const [what, said, refuse] of refusals) {
    await page.route('**/api/design', refuse);
    // A spec never compiled before (the cache outlives the test): its draw takes a compile.
    const mine = `${spec({ label: `Drawn while refused: ${what}` })}// ${Date.now()}\n`;
    await setEditorText(page, mine);
    const before = await drawn();
    await page.click('#diagram-it');
    await page.fill('#designer-text', 'anything at all');
    await page.click('#designer-submit');
    await page.waitForFunction(() => document.body.dataset.design === 'error');
    await page.waitForFunction((n) => document.body.dataset.state === 'done' && Number(document.body.dataset.diagrams) > n, before);
    assert.match((await logLines()).at(-1).text, said, what);
    assert.equal(await page.textContent('#model-title'), `Drawn while refused: ${what}`);
    assert.ok(await page.isHidden('#error'), what);
    assert.ok(!(await page.$eval('#canvas', (c) => c.classList.contains('stale'))), what);
    assert.equal(await editorText(), mine);
    await page.unroute('**/api/design');
  }
  await screenshot('design-refused');
});

test('a design that ends with no spec (past its deadline) leaves the diagram, the editor and the error box alone', { timeout: STEP_TIMEOUT }, async () => {
  const drawn = () => page.evaluate(() => Number(document.body.dataset.diagrams));
  const mine = `${spec({ label: 'Drawn before the deadline' })}// ${Date.now()}\n`;
  await setEditorText(page, mine);
  const before = await drawn();
  await page.click('#diagram-it');
  await page.waitForFunction((n) => document.body.dataset.state === 'done' && Number(document.body.dataset.diagrams) > n, before);
  // The server's answer to a design past --design-timeout (docs/serve.md): taken on (a stream),
  // one attempt reported, then the 504 result with no source.
  const deadline = 'the design took longer than 600 s (--design-timeout) and was stopped';
  const stream = [
    { type: 'design', event: { kind: 'asking_model', message: 'Asking gpt-4o-mini for a spec (attempt 1 of 3)…', attempt: 1 } },
    { type: 'result', status: 504, body: { ok: false, error: { kind: 'deadline', message: deadline } } },
  ];
  await page.route('**/api/design', (route) => route.fulfill({
    status: 200,
    contentType: 'application/x-ndjson',
    body: stream.map((line) => JSON.stringify(line)).join('\n') + '\n',
  }));
  await page.fill('#designer-text', 'a model the model thinks about for too long');
  await page.click('#designer-submit');
  await page.waitForFunction(() => document.body.dataset.design === 'error');
  await page.unroute('**/api/design');
  const lines = await logLines();
  assert.equal(lines.at(-2).kind, 'asking_model');
  assert.deepEqual([lines.at(-1).kind, lines.at(-1).text], ['error', deadline]);
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'done'); // as before the design
  assert.ok(await page.isHidden('#error'));
  assert.ok(!(await page.$eval('#canvas', (c) => c.classList.contains('stale'))));
  assert.equal(await page.textContent('#model-title'), 'Drawn before the deadline');
  assert.equal(await editorText(), mine);
  assert.equal(await drawn(), before + 1);
  await screenshot('design-past-deadline');
});

test('a running design shows its seconds and can be cancelled, on the server too', { timeout: STEP_TIMEOUT }, async () => {
  const answer = thinkingModel(spec({ label: 'Never shown' }));
  await startDesign('a model that thinks for minutes');
  assert.ok(await page.isVisible('#designer-cancel'));
  assert.match(await page.textContent('#designer-elapsed'), /^designing… \d+ s$/);
  await page.waitForFunction(() => /… [1-9]\d* s$/.test(document.getElementById('designer-elapsed').textContent));
  await screenshot('design-running');
  const running = async () => (await (await fetch(`${base}api/health`)).json()).jobs.running;
  assert.equal(await running(), 1);
  await page.click('#designer-cancel');
  assert.equal(await page.evaluate(() => document.body.dataset.design), 'cancelled');
  assert.equal((await logLines()).at(-1).text, 'Design cancelled.');
  assert.ok(await page.isHidden('#designer-cancel'));
  assert.ok(await page.isHidden('#designer-elapsed'));
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'done'); // as before the design
  const deadline = Date.now() + 10_000;
  while ((await running()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await running(), 0);
  answer();
});
