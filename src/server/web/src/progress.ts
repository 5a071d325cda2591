// The stages of a diagram request as they run: compile → run → diagram → layout, with times;
// before them "queued" while every worker of the server is busy.
import { formatSeconds } from './format';
import type { StageEvent } from './types';

// The spec runner's "read" (parsing the IR the spec wrote) is shown as part of "run".
const SHOWN: Record<string, string> = {
  queue: 'queued',
  compile: 'compile',
  run: 'run',
  read: 'run',
  diagram: 'diagram',
  layout: 'layout',
};
const ORDER = ['queued', 'compile', 'run', 'diagram', 'layout'];

export class Progress {
  private seconds = new Map<string, number>();
  private started = new Map<string, number>();
  private ahead = 0; // requests queued before this one when it joined the queue
  private timer = 0;

  constructor(private readonly list: HTMLElement) {}

  begin(): void {
    this.seconds.clear();
    this.started.clear();
    this.ahead = 0;
    this.list.dataset.state = 'running';
    this.render();
    window.clearInterval(this.timer);
    this.timer = window.setInterval(() => this.render(), 100);
  }

  stage(e: StageEvent): void {
    const name = SHOWN[e.stage] ?? e.stage;
    if (e.state === 'start') {
      if (!this.started.has(name)) this.started.set(name, performance.now());
      if (e.stage === 'queue') this.ahead = e.ahead ?? 0;
    } else {
      this.seconds.set(name, (e.stage === 'read' ? this.seconds.get(name) ?? 0 : 0) + (e.seconds ?? 0));
      if (e.stage === 'compile' && e.cache_hit) this.list.dataset.cached = 'true';
      else if (e.stage === 'compile') delete this.list.dataset.cached;
    }
    this.render();
  }

  end(state: 'done' | 'failed' | 'cancelled'): void {
    window.clearInterval(this.timer);
    this.list.dataset.state = state;
    this.render();
  }

  private render(): void {
    this.list.textContent = '';
    for (const name of ORDER) {
      // Only a request that waited shows its wait.
      if (name === 'queued' && !this.started.has(name)) continue;
      const li = document.createElement('li');
      li.dataset.stage = name;
      const done = this.seconds.get(name);
      const start = this.started.get(name);
      let text = name;
      if (done !== undefined) {
        li.className = 'done';
        text += ` ${formatSeconds(done)}`;
        if (name === 'compile' && this.list.dataset.cached === 'true') text += ' (cached)';
      } else if (start !== undefined) {
        li.className = this.list.dataset.state === 'running' ? 'running' : 'stopped';
        text += ` ${formatSeconds((performance.now() - start) / 1000)}`;
        if (name === 'queued') text += this.ahead > 0 ? ` (${this.ahead} ahead)` : ' (next)';
      }
      li.textContent = text;
      this.list.appendChild(li);
    }
  }
}
