// The designer ("Diagram a Neural Network Design", the seed's texts): the description box, its
// Diagram It button (a new design) and Change it… (the editor's spec, changed as the box says),
// Cancel and the seconds the design has taken while it runs (a model may think for minutes), and
// the log of the attempts as the server reports them (POST /api/design, docs/serve.md).
// The page's design state is mirrored on <body> for tests: data-design (running | done | error |
// cancelled) and data-designs (how many designs succeeded).
import { requestDesign } from './api';
import type { DesignAnswer, DesignErrorAnswer, DesignEvent, StageEvent } from './types';

export interface DesignerHandlers {
  editorText: () => string; // the spec Change it… sends
  onStart: () => void; // the server took a design on (a refused one never starts)
  onStage: (e: StageEvent) => void; // the stages of drawing the designed spec
  onDesigned: (answer: DesignAnswer) => void;
  onFailed: (status: number, answer: DesignErrorAnswer) => void;
  onCancelled: () => void; // a design that had begun was cancelled (cancel())
}

export class Designer {
  private readonly text = document.getElementById('designer-text') as HTMLTextAreaElement;
  private readonly log = document.getElementById('designer-log') as HTMLOListElement;
  private readonly buttons = [
    document.getElementById('designer-submit') as HTMLButtonElement,
    document.getElementById('designer-change') as HTMLButtonElement,
  ];
  private readonly cancelButton = document.getElementById('designer-cancel') as HTMLButtonElement;
  private readonly elapsed = document.getElementById('designer-elapsed') as HTMLSpanElement;
  private elapsedTimer = 0;
  private running: AbortController | null = null;
  private accepted = false; // the server took the running design on (onStart was called)

  constructor(
    private readonly client: string,
    private readonly handlers: DesignerHandlers,
  ) {
    this.buttons[0]!.addEventListener('click', () => void this.design(false));
    this.buttons[1]!.addEventListener('click', () => void this.design(true));
    this.cancelButton.addEventListener('click', () => this.cancel('Design cancelled.'));
    // Ctrl/Cmd+Enter in the description designs, as in the editor it draws (the page's own
    // Ctrl+Enter, Diagram it, leaves an event whose default is prevented alone).
    this.text.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' || !(ev.ctrlKey || ev.metaKey)) return;
      ev.preventDefault();
      void this.design(false);
    });
    document.body.dataset.designs = '0';
    document.getElementById('designer')!.hidden = false;
  }

  // Describes a new model, or (change) asks for the editor's spec to be changed. A design still
  // running is cancelled first (the server stops it).
  async design(change: boolean): Promise<void> {
    const prompt = this.text.value.trim();
    this.log.textContent = '';
    if (prompt === '') {
      this.line('error', 'Say first what the neural network should do (or, for Change it…, what to change).');
      return;
    }
    this.stop();
    const controller = new AbortController();
    this.running = controller;
    this.accepted = false;
    document.body.dataset.design = 'running';
    this.showRunning(true);
    // Until the server takes the design on, the page (its diagram, a diagram request running) is
    // left alone: a refusal (rate limit, busy, unreachable) changes nothing there.
    const accept = () => {
      if (this.running !== controller) return;
      this.accepted = true;
      this.handlers.onStart();
    };
    try {
      const source = change ? this.handlers.editorText() : null;
      const result = await requestDesign(prompt, source, this.client, accept, (e) => {
        if (this.running !== controller) return;
        if (e.type === 'design') this.event(e.event);
        else this.handlers.onStage(e);
      }, controller.signal);
      if (this.running !== controller) return;
      // Finished: an edit the handlers make (the designed spec into the editor) cancels nothing.
      this.running = null;
      if (result.body.ok) {
        document.body.dataset.design = 'done';
        document.body.dataset.designs = String(Number(document.body.dataset.designs) + 1);
        this.handlers.onDesigned(result.body);
      } else {
        // Refusals before any work (rate limit, busy, bad request) have no events, and a design
        // that ended with no spec (past the deadline) leaves the page's error box to the spec:
        // the log says why.
        if (this.log.childElementCount === 0 || result.body.source === undefined) this.line('error', result.body.error.message);
        document.body.dataset.design = 'error';
        if (this.accepted) this.handlers.onFailed(result.status, result.body);
      }
    } catch (e) {
      if (this.running !== controller) return; // replaced by a newer design, or cancelled
      this.running = null;
      const message = `The server could not be reached: ${(e as Error).message}`;
      this.line('error', message);
      document.body.dataset.design = 'error';
      if (this.accepted) this.handlers.onFailed(0, { ok: false, error: { kind: 'network', message } });
    } finally {
      if (this.running === null) this.showRunning(false);
    }
  }

  // Stops the running design, on the server too, and says why in the log; false: none was running.
  cancel(why: string): boolean {
    if (!this.stop()) return false;
    this.line('cancelled', why);
    document.body.dataset.design = 'cancelled';
    return true;
  }

  private stop(): boolean {
    const controller = this.running;
    if (!controller) return false;
    this.running = null;
    controller.abort();
    this.showRunning(false);
    if (this.accepted) this.handlers.onCancelled();
    return true;
  }

  // While a design runs: its buttons busy, Cancel, and the seconds it has taken so far.
  private showRunning(running: boolean): void {
    for (const b of this.buttons) b.classList.toggle('busy', running);
    this.cancelButton.hidden = !running;
    this.elapsed.hidden = !running;
    window.clearInterval(this.elapsedTimer);
    if (!running) return;
    const started = performance.now();
    const show = () => (this.elapsed.textContent = `designing… ${Math.floor((performance.now() - started) / 1000)} s`);
    show();
    this.elapsedTimer = window.setInterval(show, 1000);
  }

  // One step of the design, as the designer's message says it (model text stays text).
  private event(e: DesignEvent): void {
    // The attempt whose spec works is the one drawn: its compile and run are the progress row's
    // first stages (the server then sends the diagram's and the layout's).
    if (e.kind === 'check_result' && e.check?.ok) {
      const { compile_seconds: compile = 0, run_seconds: run = 0, cache_hit: cached } = e.check;
      this.handlers.onStage({ type: 'stage', stage: 'compile', state: 'done', seconds: compile, cache_hit: cached });
      this.handlers.onStage({ type: 'stage', stage: 'run', state: 'done', seconds: run });
    }
    const item = this.line(e.kind, e.message);
    if (e.attempt) item.dataset.attempt = String(e.attempt);
    if (e.check) item.dataset.ok = String(e.check.ok);
    if (e.kind === 'finished') item.dataset.ok = String(e.ok === true);
  }

  private line(kind: string, message: string): HTMLLIElement {
    const item = document.createElement('li');
    item.dataset.kind = kind;
    item.textContent = message;
    this.log.appendChild(item);
    this.log.hidden = false;
    item.scrollIntoView({ block: 'nearest' });
    return item;
  }
}
