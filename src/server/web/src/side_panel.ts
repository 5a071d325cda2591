// The box panel: what a clicked box is — its line (a link into the editor), what it computes,
// every shape it takes, its parameters and FLOPs per side, and how many iterations it stands for.
import { formatCount, formatFlops } from './format';
import type { DiagramModel, DiagramNode, Side } from './types';

const SIDE_NAME: Record<Side, string> = { train: 'training', infer: 'inference' };

function make<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Iterations per side of the loops around a box: loop clusters are labelled `×N`,
// `×N (inference)`, `×N (training)` or `×3 training · ×4 inference` (docs/diagram.md).
export function foldedIterations(node: DiagramNode, model: DiagramModel): Partial<Record<Side, number>> {
  const out: Partial<Record<Side, number>> = {};
  for (const side of node.sides) out[side] = 1;
  for (let c = node.cluster; c >= 0; c = model.clusters[c]?.parent ?? -1) {
    const cluster = model.clusters[c];
    if (!cluster || cluster.kind !== 'loop') continue;
    const both = /^×(\d+) training · ×(\d+) inference$/.exec(cluster.label);
    const one = /^×(\d+)(?: \((training|inference)\))?$/.exec(cluster.label);
    for (const side of node.sides) {
      let n = 1;
      if (both) n = Number(side === 'train' ? both[1] : both[2]);
      else if (one && (!one[2] || one[2] === SIDE_NAME[side])) n = Number(one[1]);
      out[side] = (out[side] ?? 1) * n;
    }
  }
  return out;
}

export class BoxPanel {
  constructor(
    private readonly panel: HTMLElement,
    private readonly onGoToLine: (line: number) => void,
  ) {}

  hide(): void {
    this.panel.hidden = true;
    this.panel.textContent = '';
  }

  show(node: DiagramNode, model: DiagramModel): void {
    const p = this.panel;
    p.textContent = '';
    p.dataset.node = String(node.id);
    const close = make('button', 'box-close', '×');
    close.type = 'button';
    close.title = 'Close';
    close.addEventListener('click', () => this.hide());
    p.appendChild(close);
    p.appendChild(make('div', 'box-code', node.label));
    if (node.file) {
      const link = make('button', 'box-line', `${node.file}:${node.line}`);
      link.type = 'button';
      link.title = 'Show this line in the editor';
      link.addEventListener('click', () => this.onGoToLine(node.line));
      p.appendChild(link);
    }
    if (node.computes) {
      p.appendChild(make('h3', '', 'Computes'));
      p.appendChild(make('div', 'box-mono', node.computes));
    }
    p.appendChild(make('h3', '', node.shapes.length > 1 ? `Shapes (${node.shapes.length})` : 'Shape'));
    const shapes = make('ul', 'box-shapes');
    for (const s of node.shapes) shapes.appendChild(make('li', 'box-mono', s));
    p.appendChild(shapes);

    const both = model.merged || model.infer_alone !== undefined;
    const iterations = foldedIterations(node, model);
    const table = make('table', 'box-costs');
    const head = make('tr');
    for (const h of ['', 'params', 'forward FLOPs', 'drawn for']) head.appendChild(make('th', '', h));
    table.appendChild(head);
    for (const side of ['train', 'infer'] as const) {
      const cost = node.cost[side];
      if (!cost) continue;
      const row = make('tr');
      row.dataset.side = side;
      row.appendChild(make('th', '', both ? SIDE_NAME[side] : 'cost'));
      row.appendChild(make('td', '', formatCount(cost.params)));
      row.appendChild(make('td', '', formatFlops(cost.flops)));
      const n = iterations[side] ?? 1;
      row.appendChild(make('td', 'box-folded', n === 1 ? '1 call' : `×${n} iterations`));
      table.appendChild(row);
    }
    p.appendChild(table);
    p.hidden = false;
  }
}
