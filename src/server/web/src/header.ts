// The diagram's header: title, metric chips with their definitions, description, the dim legend
// with its collision note, and the note on what the faded parts are.
import type { DiagramModel, Side } from './types';

function make(tag: string, cls: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const $ = (id: string): HTMLElement => document.getElementById(id)!;

export function renderHeader(model: DiagramModel, side: Side): void {
  $('model-title').textContent = model.label;
  const description = $('model-description');
  description.textContent = model.description;
  description.hidden = model.description === '';

  const metrics = $('metrics');
  metrics.textContent = '';
  (model.metrics[side] ?? model.metrics.train ?? []).forEach((m, i) => {
    if (i > 0) metrics.appendChild(make('span', 'metric-sep', '·'));
    const chip = make('span', 'metric-chip', m.display);
    chip.dataset.tooltip = m.tooltip;
    chip.dataset.metric = m.key;
    chip.title = m.tooltip;
    chip.tabIndex = 0;
    metrics.appendChild(chip);
  });

  const legend = $('legend');
  legend.textContent = '';
  for (const d of model.legend) {
    const item = make('span', 'legend-item');
    const chip = make('span', 'dim-chip', d.name);
    chip.style.background = d.color;
    item.appendChild(chip);
    item.appendChild(make('span', 'legend-label', (d.desc ? `${d.desc} = ` : '= ') + d.size));
    legend.appendChild(item);
  }
  legend.hidden = model.legend.length === 0;

  const note = $('collisions');
  note.textContent =
    model.collisions.length === 0
      ? ''
      : 'Dims are tracked by size; where several declared dims share a size and their position cannot ' +
        'tell them apart, the diagram joins the candidates with a slash. Affected: ' +
        model.collisions.map((c) => `${c.names.join('/')} = ${c.size}`).join(', ') + '.';
  note.hidden = model.collisions.length === 0;

  const faded = $('faded');
  faded.textContent = !model.merged
    ? ''
    : side === 'train' && model.has_infer_only
      ? 'Faded parts run only at inference.'
      : side === 'infer' && model.has_train_only
        ? 'Faded parts run only in training.'
        : '';
  faded.hidden = faded.textContent === '';
}
