// The NN DNA app: the editor, the diagram and everything between them. The page's state is
// mirrored on <body> for tests and scripts: data-state (idle | running | done | error) and
// data-diagrams (how many diagrams were drawn).
import './app.css';
import { fetchExample, fetchExamples, requestDiagram, type ExampleList } from './api';
import { Designer } from './designer';
import { DiagramView } from './diagram_view';
import { download, type DownloadFormat } from './downloads';
import { SpecEditor } from './editor';
import { renderHeader } from './header';
import { Progress } from './progress';
import { BoxPanel } from './side_panel';
import { setUpTheme } from './theme';
import type { DesignAnswer, DesignErrorAnswer, DiagramAnswer, ErrorAnswer, Side } from './types';

const SOURCE_KEY = 'nndna.source';
// The saved spec whose last request ran out of time: not run again when the page opens.
const TIMED_OUT_KEY = 'nndna.timedOutSource';
const SAVED_OPTION = 'saved-spec'; // the examples menu's entry for the user's own spec (no example has this name)
const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

type Tab = 'train' | 'infer' | 'code' | 'info';

// A random id for this page: the server cancels this page's running request when a newer one
// arrives (crypto.randomUUID needs a secure context; a LAN address over http is not one).
function newClientId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

class App {
  private readonly client = newClientId();
  private readonly editor: SpecEditor;
  private readonly view: DiagramView;
  private readonly panel: BoxPanel;
  private readonly designer: Designer;
  private readonly progress = new Progress($('progress'));
  private examples: ExampleList = { default: '', examples: [] };
  private defaultSource = '';
  private exampleName: string | null = null; // the example the editor holds unchanged
  private exampleSource = '';
  private answer: DiagramAnswer | null = null;
  private drawnSource: string | null = null;
  private running: AbortController | null = null;
  private tab: Tab = 'train';
  private side: Side = 'train';
  private saveTimer = 0;
  private unsaved: string | null = null; // the editor's text, edited and not saved yet
  private stateBeforeDesign = 'idle'; // body's data-state when the running design began
  private placingText = false; // the page, not the user, is changing the editor's text
  // Counts example choices and edits: an example whose text arrives after a later choice or an
  // edit is dropped (two fetches may answer out of order; the user's typing is never replaced).
  private exampleChoice = 0;

  constructor(initialText: string) {
    this.editor = new SpecEditor($('editor'), initialText, {
      onRun: () => void this.diagramIt(),
      onChange: (text) => this.edited(text),
      onCursorLine: (line) => this.view.highlightLine(line),
    });
    this.view = new DiagramView($('canvas'), $('views'), {
      onSelect: (node, model) => (node && model ? this.panel.show(node, model) : this.panel.hide()),
    });
    this.panel = new BoxPanel($('box-panel'), (line) => {
      this.showTab('code');
      this.editor.goToLine(line);
    });
    for (const b of document.querySelectorAll<HTMLButtonElement>('.tab-btn')) {
      b.addEventListener('click', () => this.showTab(b.dataset.tab as Tab));
    }
    moveAmongTabsByKeys(document.querySelector<HTMLElement>('[role="tablist"]')!);
    $('diagram-it').addEventListener('click', () => void this.diagramIt());
    $('reset').addEventListener('click', () => this.openExample(this.examples.default));
    $<HTMLSelectElement>('examples').addEventListener('change', (ev) => {
      const name = (ev.target as HTMLSelectElement).value;
      if (name === SAVED_OPTION) this.restoreSaved();
      else if (name) this.openExample(name);
    });
    this.setUpDownloads();
    // An edit made just before a reload or a closed tab would wait for the save's timer in vain.
    window.addEventListener('pagehide', () => this.save());
    this.designer = new Designer(this.client, {
      editorText: () => this.editor.text,
      onStart: () => this.designStarted(),
      onStage: (e) => this.progress.stage(e),
      onDesigned: (answer) => this.designed(answer),
      onFailed: (status, answer) => this.designFailed(status, answer),
      onCancelled: () => this.designCancelled(),
    });
    document.addEventListener('keydown', (ev) => {
      // Taken already: the editor's own key binding, or the designer's description box.
      if (ev.defaultPrevented) return;
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey) && !this.editor.view.hasFocus) {
        ev.preventDefault();
        void this.diagramIt();
        return;
      }
      // A character typed with nothing focused goes to the spec: the diagram drawn (a cached one
      // comes at once) has hidden the editor while the user kept typing, and the key would be
      // lost. The editor takes the focus now, before the key's text is inserted.
      const nothingFocused = document.activeElement === null || document.activeElement === document.body;
      if (this.tab !== 'code' && nothingFocused && ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
        this.showTab('code');
        this.editor.view.focus();
      }
    });
    document.body.dataset.state = 'idle';
    document.body.dataset.diagrams = '0';
  }

  setExamples(list: ExampleList, defaultSource: string): void {
    this.examples = list;
    this.defaultSource = defaultSource;
    const select = $<HTMLSelectElement>('examples');
    select.textContent = '';
    const placeholder = new Option('Load an example…', '');
    select.appendChild(placeholder);
    // An example never replaces the user's saved spec (only edits are saved): this brings it back.
    select.appendChild(new Option('Your spec (the last edit)', SAVED_OPTION));
    for (const e of list.examples) select.appendChild(new Option(e.label ? `${e.label} (${e.name})` : e.name, e.name));
    this.updateSavedOption();
  }

  private updateSavedOption(): void {
    const option = $<HTMLSelectElement>('examples').querySelector<HTMLOptionElement>(`option[value="${SAVED_OPTION}"]`);
    if (option) option.disabled = localStorage.getItem(SOURCE_KEY) === null;
  }

  // Text the page puts in the editor (an example, the saved spec) is not an edit: it is not
  // saved over the user's work.
  private placeText(text: string): void {
    this.placingText = true;
    try {
      this.editor.text = text;
    } finally {
      this.placingText = false;
    }
  }

  // The user's last edit, back in the editor after an example (the menu's "Your spec").
  private restoreSaved(): void {
    $<HTMLSelectElement>('examples').value = '';
    const saved = localStorage.getItem(SOURCE_KEY);
    if (saved === null) return;
    this.placeText(saved);
    this.holdsExample(null, '');
    void this.diagramIt();
  }

  // The editor holds example `name`'s source, unchanged (the URL says so until it is edited).
  holdsExample(name: string | null, source: string): void {
    this.exampleName = name;
    this.exampleSource = source;
    const url = new URL(window.location.href);
    if (name && name !== this.examples.default) url.searchParams.set('example', name);
    else url.searchParams.delete('example');
    history.replaceState(null, '', url);
  }

  async loadExample(name: string): Promise<void> {
    const choice = ++this.exampleChoice;
    let source: string;
    try {
      source = name === this.examples.default && this.defaultSource ? this.defaultSource : (await fetchExample(name)).source;
    } catch (e) {
      if (choice !== this.exampleChoice) return; // overtaken: its failure is no longer news
      throw e;
    }
    if (choice !== this.exampleChoice) return;
    this.placeText(source);
    this.holdsExample(name, source);
    $<HTMLSelectElement>('examples').value = '';
    await this.diagramIt();
  }

  // loadExample() for a button or the menu: a failure is said above the diagram (which stays).
  private openExample(name: string): void {
    this.loadExample(name).catch((e: unknown) => {
      $<HTMLSelectElement>('examples').value = '';
      // fetch() rejects with a TypeError when no answer came; an answer's error status is an Error.
      const why = e instanceof TypeError ? `the server could not be reached (${e.message})` : (e as Error).message;
      this.showMessage('example', `Could not load the example "${name}": ${why}`);
    });
  }

  // The saved spec ran out of time when last drawn: the page opens on it, with the Code tab and
  // a word on why nothing is drawn, until the user asks.
  notRunOnOpening(): void {
    this.showTab('code');
    this.showMessage('timed_out', 'Your spec ran out of time when it was last drawn, so it was not run on opening: Diagram it runs it again.');
    document.body.dataset.state = 'error';
  }

  // A message of the page's own (not about the spec) in the error box.
  private showMessage(kind: string, message: string): void {
    const box = $('error');
    box.textContent = message;
    box.dataset.kind = kind;
    delete box.dataset.status;
    box.hidden = false;
  }

  private edited(text: string): void {
    if (this.placingText) return;
    this.exampleChoice++; // an example still on its way must not replace this
    // A design's result replaces the editor's text: it must not overwrite what the user wrote since.
    this.designer.cancel('Design cancelled: the spec in the editor changed, and the design would have replaced it.');
    if (this.exampleName && text !== this.exampleSource) this.holdsExample(null, '');
    this.unsaved = text;
    window.clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => this.save(), 300);
  }

  // Keeps the user's last edit for the next visit. Only edits are saved: a page opened on an
  // example (/?example=...), say in another tab, leaves the saved work alone.
  private save(): void {
    window.clearTimeout(this.saveTimer);
    if (this.unsaved === null) return;
    localStorage.setItem(SOURCE_KEY, this.unsaved);
    this.unsaved = null;
    this.updateSavedOption();
  }

  showTab(tab: Tab): void {
    this.tab = tab;
    const graph = tab === 'train' || tab === 'infer';
    for (const b of document.querySelectorAll<HTMLButtonElement>('.tab-btn')) {
      const active = b.dataset.tab === tab;
      b.classList.toggle('active', active);
      b.setAttribute('aria-selected', String(active));
      b.tabIndex = active ? 0 : -1; // Tab stops at the active tab only
      // Both graph tabs control the one graph panel: it is named by the side it shows.
      if (active && graph) $('tab-graph').setAttribute('aria-labelledby', b.id);
    }
    $('tab-graph').hidden = !graph;
    $('tab-code').hidden = tab !== 'code';
    $('tab-info').hidden = tab !== 'info';
    if (graph) {
      this.side = tab;
      this.view.setSide(tab);
      this.view.select(this.view.selected);
      if (this.answer) renderHeader(this.answer.diagram, tab);
    }
    if (tab === 'code') this.editor.view.requestMeasure();
  }

  // Sends the editor's text to be drawn; a request still running is cancelled first.
  async diagramIt(): Promise<void> {
    // The user asks for the editor's spec: a design would replace it when it finishes.
    this.designer.cancel('Design cancelled: Diagram it draws the spec in the editor instead.');
    const source = this.editor.text;
    this.save();
    this.running?.abort();
    const controller = new AbortController();
    this.running = controller;
    document.body.dataset.state = 'running';
    $('diagram-it').classList.add('busy');
    this.progress.begin();
    try {
      const result = await requestDiagram(source, this.client, (e) => this.progress.stage(e), controller.signal);
      if (this.running !== controller) return;
      rememberTimeout(source, result.body.ok ? null : result.body.error.kind);
      if (result.body.ok) this.drawn(source, result.body);
      else this.failed(result.status, result.body);
    } catch (e) {
      if (this.running !== controller) return; // replaced by a newer request
      this.failed(0, { ok: false, error: { kind: 'network', message: `The server could not be reached: ${(e as Error).message}` } });
    } finally {
      if (this.running === controller) {
        this.running = null;
        $('diagram-it').classList.remove('busy');
      }
    }
  }

  // The server took a design on: its result will replace the diagram, so a diagram request in
  // flight is moot.
  private designStarted(): void {
    this.stateBeforeDesign = this.running ? 'idle' : document.body.dataset.state ?? 'idle';
    this.running?.abort();
    this.running = null;
    $('diagram-it').classList.remove('busy');
    this.progress.begin();
    document.body.dataset.state = 'running';
  }

  // The page as it was before the design began (unless a diagram request runs now).
  private designCancelled(): void {
    if (this.running) return;
    this.progress.end('cancelled');
    document.body.dataset.state = this.stateBeforeDesign;
  }

  // The designed spec goes into the editor (and the saved text), its diagram on the page.
  private designed(answer: DesignAnswer): void {
    this.editor.text = answer.source;
    this.holdsExample(null, '');
    this.save();
    this.drawn(answer.source, answer);
  }

  // A failed design: the last spec tried goes into the editor, to fix by hand, with its error.
  // One that ended with no spec to show (past the deadline, replaced, the server gone) changed
  // nothing: the editor's spec and its diagram stand, not dimmed, and the designer's log says why.
  private designFailed(status: number, answer: DesignErrorAnswer): void {
    if (answer.source === undefined) {
      if (this.running) return; // a diagram request took over: its answer sets the page
      this.progress.end('failed');
      document.body.dataset.state = this.stateBeforeDesign;
      return;
    }
    this.editor.text = answer.source;
    this.holdsExample(null, '');
    this.save();
    this.failed(status, answer);
  }

  private drawn(source: string, answer: DiagramAnswer): void {
    this.answer = answer;
    this.drawnSource = source;
    this.progress.end('done');
    $('error').hidden = true;
    this.editor.clearDiagnostics();
    this.panel.hide();
    const hasInfer = answer.diagram.has_infer;
    $('tab-graph').hidden = false; // laid out while visible, so the view can measure itself
    this.view.show(answer);
    document.querySelector<HTMLButtonElement>('.tab-btn[data-tab="infer"]')!.hidden = !hasInfer;
    // The drawn diagram is what the user asked to see: show it (on the side shown before). But
    // not while they kept typing in the editor after asking: hiding the editor would drop their
    // next keystrokes. The diagram waits on its tab.
    const typing = this.tab === 'code' && this.editor.text !== source;
    this.showTab(typing ? 'code' : this.side === 'infer' && hasInfer ? 'infer' : 'train');
    this.view.highlightLine(this.editor.cursorLine());
    document.body.dataset.state = 'done';
    document.body.dataset.diagrams = String(Number(document.body.dataset.diagrams) + 1);
  }

  private failed(status: number, body: ErrorAnswer): void {
    this.progress.end(body.error.kind === 'cancelled' ? 'cancelled' : 'failed');
    if (body.error.kind === 'cancelled') return; // a newer request took over
    const box = $('error');
    const located = body.error.diagnostics ?? [];
    box.textContent = body.error.message;
    box.dataset.kind = body.error.kind;
    box.dataset.status = String(status);
    box.hidden = false;
    this.editor.showDiagnostics(located);
    this.view.markStale(this.answer !== null);
    document.body.dataset.state = 'error';
    // Stay where the user is; errors on lines are seen best in the editor.
    if (located.length > 0 && this.tab !== 'code') this.showTab('code');
    if (located.length > 0) this.editor.goToLine(located[0]!.line);
  }

  private setUpDownloads(): void {
    const toggle = $('download-toggle');
    const menu = $('download-menu');
    const close = () => {
      menu.hidden = true;
      toggle.setAttribute('aria-expanded', 'false');
    };
    toggle.addEventListener('click', () => {
      menu.hidden = !menu.hidden;
      toggle.setAttribute('aria-expanded', String(!menu.hidden));
    });
    document.addEventListener('click', (ev) => {
      if (!(ev.target as Element).closest('.downloads')) close();
    });
    // As any menu button: Escape closes it (back on its button), arrows move through it, and
    // focus leaving it closes it. A click on nothing focusable moves no focus (relatedTarget
    // null): the click handler above decides then.
    const holder = toggle.parentElement!;
    const items = Array.from(menu.querySelectorAll<HTMLButtonElement>('[data-format]'));
    holder.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && !menu.hidden) {
        close();
        toggle.focus();
      } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        ev.preventDefault();
        if (menu.hidden) toggle.click();
        const at = items.indexOf(document.activeElement as HTMLButtonElement);
        const step = ev.key === 'ArrowDown' ? 1 : -1;
        const next = at < 0 ? (step > 0 ? 0 : items.length - 1) : (at + step + items.length) % items.length;
        items[next]!.focus();
      }
    });
    holder.addEventListener('focusout', (ev) => {
      const to = ev.relatedTarget as Node | null;
      if (to && !holder.contains(to)) close();
    });
    for (const b of items) {
      b.addEventListener('click', async () => {
        close();
        try {
          await download(b.dataset.format as DownloadFormat, {
            baseName: this.exampleName ?? 'model',
            editorText: this.editor.text,
            drawnSource: this.drawnSource,
            answer: this.answer,
            side: this.side,
          });
        } catch (e) {
          this.showMessage('download', `Download failed: ${(e as Error).message}`);
        }
      });
    }
  }
}

// The tab bar's keys, as the WAI-ARIA tabs pattern has them: ArrowRight and ArrowLeft go to the
// next and previous shown tab (past the last comes the first), Home and End to the first and the
// last; the tab reached takes the focus and is clicked, so it shows as a clicked one does. Only
// the active tab is in the Tab order (showTab sets it): Tab enters and leaves the bar at one stop.
function moveAmongTabsByKeys(bar: HTMLElement): void {
  bar.addEventListener('keydown', (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return; // Alt+ArrowLeft is the browser's Back
    const tabs = Array.from(bar.querySelectorAll<HTMLButtonElement>('[role="tab"]:not([hidden])'));
    const at = tabs.indexOf(ev.target as HTMLButtonElement);
    if (at < 0) return;
    let to: number;
    switch (ev.key) {
      case 'ArrowRight':
        to = (at + 1) % tabs.length;
        break;
      case 'ArrowLeft':
        to = (at - 1 + tabs.length) % tabs.length;
        break;
      case 'Home':
        to = 0;
        break;
      case 'End':
        to = tabs.length - 1;
        break;
      default:
        return;
    }
    ev.preventDefault();
    tabs[to]!.focus();
    tabs[to]!.click();
  });
}

// A spec that ran out of time (an endless loop) would, run again on every reload, show nothing
// for the whole time limit: the page remembers it, and opens on it without running it.
function rememberTimeout(source: string, errorKind: string | null): void {
  if (errorKind === 'timeout' || errorKind === 'deadline') localStorage.setItem(TIMED_OUT_KEY, source);
  else if (errorKind !== 'cancelled' && errorKind !== 'network') localStorage.removeItem(TIMED_OUT_KEY);
}

async function start(): Promise<void> {
  setUpTheme($<HTMLButtonElement>('theme-toggle'));
  const list = await fetchExamples();
  const defaultSource = (await fetchExample(list.default)).source;
  const named = new URL(window.location.href).searchParams.get('example');
  const saved = localStorage.getItem(SOURCE_KEY);
  let text = saved ?? defaultSource;
  let example: string | null = saved === null || saved === defaultSource ? list.default : null;
  if (named && list.examples.some((e) => e.name === named)) {
    text = named === list.default ? defaultSource : (await fetchExample(named)).source;
    example = named;
  }
  const app = new App(text);
  app.setExamples(list, defaultSource);
  app.holdsExample(example, example ? text : '');
  if (example === null && text === localStorage.getItem(TIMED_OUT_KEY)) {
    app.notRunOnOpening();
    return;
  }
  await app.diagramIt();
}

window.addEventListener('DOMContentLoaded', () => {
  start().catch((e: unknown) => {
    const box = document.getElementById('error')!;
    box.textContent = `The page could not start: ${(e as Error).message}`;
    box.hidden = false;
    document.body.dataset.state = 'error';
  });
});
