// The diagram on the page: Graphviz's SVG from the server, with the training/inference fading,
// hover highlight, box selection, the boxes of an editor line, pan, zoom and Fit.
import type { DiagramAnswer, DiagramModel, DiagramNode, Side } from './types';

// One drawn SVG: the merged (or training) diagram, or the inference side drawn alone.
interface View {
  element: HTMLDivElement;
  svg: SVGSVGElement;
  model: DiagramModel;
  inferOnly: boolean;
  fit: () => void;
  zoomBy: (factor: number) => void;
  // Ends the listeners the view put on the window, when a new diagram replaces it: left on, each
  // would keep its discarded SVG alive and run on every pointer move.
  windowListeners: AbortController;
}

export interface DiagramViewHandlers {
  // A box was clicked (null: the background was).
  onSelect: (node: DiagramNode | null, model: DiagramModel | null) => void;
}

// The spec's file as the server names it (kSpecFileName in src/server/diagram_job.hpp).
export const SPEC_FILE = 'model.cpp';

// Parses the server's SVG as XML (a parsed document runs no script) and adopts it.
function parseSvg(text: string): SVGSVGElement {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) {
    throw new Error('the server sent an SVG the browser cannot read');
  }
  return document.importNode(root, true) as unknown as SVGSVGElement;
}

// Each paired wrapper's label (one call seen from both sides) as `side` reads it. The server's SVG
// shows the training side's, pinned to the left edge of the longer one it was laid out with, so
// only the text changes. Shared by the page's views and the downloads.
export function showPairLabels(root: ParentNode, model: DiagramModel, side: Side): void {
  for (const c of model.clusters) {
    if (!c.labels) continue;
    const text = root.querySelector(`g[id="c${c.id}"] > text`);
    if (text) text.textContent = c.labels[side];
  }
}

const DRAG_THRESHOLD_PX = 4;
const NATURAL_PX_PER_POINT = 1.33; // the diagram at 100%
// Zoom limits: out to 5% of Fit; in to 800% of Fit or of the natural size, whichever goes further
// (a huge diagram's Fit is a speck, and it must still be readable up close).
const ZOOM_OUT_LIMIT = 20;
const ZOOM_IN_LIMIT = 8;

export class DiagramView {
  private views: View[] = [];
  private side: Side = 'train';
  private selectedId: number | null = null;

  constructor(
    private readonly canvas: HTMLElement,
    private readonly host: HTMLElement,
    private readonly handlers: DiagramViewHandlers,
  ) {
    for (const b of canvas.querySelectorAll<HTMLButtonElement>('[data-zoom]')) {
      b.addEventListener('click', () => {
        const view = this.visibleView();
        if (!view) return;
        if (b.dataset.zoom === 'in') view.zoomBy(1 / 1.25);
        else if (b.dataset.zoom === 'out') view.zoomBy(1.25);
        else view.fit();
      });
    }
  }

  show(answer: DiagramAnswer): void {
    for (const view of this.views) view.windowListeners.abort();
    this.host.textContent = '';
    this.views = [];
    this.selectedId = null;
    this.addView(answer.svg, answer.diagram, false);
    if (answer.infer_svg && answer.diagram.infer_alone) this.addView(answer.infer_svg, answer.diagram.infer_alone, true);
    this.setSide(this.side === 'infer' && answer.diagram.has_infer ? 'infer' : 'train');
    this.canvas.classList.remove('stale');
  }

  // The diagram no longer matches the editor (the last request failed): dimmed, still readable.
  markStale(stale: boolean): void {
    this.canvas.classList.toggle('stale', stale);
  }

  setSide(side: Side): void {
    this.side = side;
    this.canvas.classList.toggle('show-train', side === 'train');
    this.canvas.classList.toggle('show-infer', side === 'infer');
    const separate = this.views.some((v) => v.inferOnly);
    for (const view of this.views) {
      view.element.hidden = separate ? view.inferOnly !== (side === 'infer') : false;
      showPairLabels(view.svg, view.model, side);
    }
  }

  // Lights up the boxes made by `line` of the spec (0: none).
  highlightLine(line: number): void {
    for (const view of this.views) {
      for (const g of view.svg.querySelectorAll('g.node.line-hit')) g.classList.remove('line-hit');
      if (line <= 0) continue;
      for (const n of view.model.nodes) {
        if (n.input || n.file !== SPEC_FILE || n.line !== line) continue;
        view.svg.querySelector(`g.node[id="n${n.id}"]`)?.classList.add('line-hit');
      }
    }
  }

  select(id: number | null): void {
    this.selectedId = id;
    for (const view of this.views) {
      for (const g of view.svg.querySelectorAll('g.node.selected')) g.classList.remove('selected');
      if (id !== null && !view.element.hidden) view.svg.querySelector(`g.node[id="n${id}"]`)?.classList.add('selected');
    }
  }

  get selected(): number | null {
    return this.selectedId;
  }

  private visibleView(): View | undefined {
    return this.views.find((v) => !v.element.hidden);
  }

  private addView(svgText: string, model: DiagramModel, inferOnly: boolean): void {
    const element = document.createElement('div');
    element.className = 'view';
    element.dataset.view = inferOnly ? 'infer' : 'main';
    const svg = parseSvg(svgText);
    element.appendChild(svg);
    this.host.appendChild(element);
    this.attachHover(svg);
    const view: View = {
      element,
      svg,
      model,
      inferOnly,
      fit: () => {},
      zoomBy: () => {},
      windowListeners: new AbortController(),
    };
    this.attachPanZoomAndClicks(view);
    this.attachKeys(view);
    this.views.push(view);
  }

  // Boxes a keyboard can reach: Tab moves between them (in drawing order), Enter or Space opens
  // one as a click does, Escape closes it; a focused box lights up as a hovered one.
  private attachKeys(view: View): void {
    for (const g of view.svg.querySelectorAll<SVGGElement>('g.node')) {
      const node = view.model.nodes[Number(g.id.slice(1))];
      if (!node || node.input) continue;
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      g.setAttribute('aria-label', `${node.label} ${node.shapes.join(', ')}`);
      g.addEventListener('focus', () => g.dispatchEvent(new MouseEvent('mouseenter')));
      g.addEventListener('blur', () => g.dispatchEvent(new MouseEvent('mouseleave')));
      g.addEventListener('keydown', (ev) => {
        if (ev.key !== 'Enter' && ev.key !== ' ') return;
        ev.preventDefault();
        this.select(node.id);
        this.handlers.onSelect(node, view.model);
      });
    }
    view.svg.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Escape' || this.selectedId === null) return;
      this.select(null);
      this.handlers.onSelect(null, null);
    });
  }

  // Hovering a box or an edge lights up everything that shares its `ti-` class.
  private attachHover(svg: SVGSVGElement): void {
    const clear = () => {
      for (const e of svg.querySelectorAll('.hi-highlight')) e.classList.remove('hi-highlight');
    };
    for (const el of svg.querySelectorAll<SVGElement>('[class*="ti-"]')) {
      const cls = Array.from(el.classList).find((c) => c.startsWith('ti-'));
      if (!cls) continue;
      el.addEventListener('mouseenter', () => {
        for (const m of svg.querySelectorAll(`.${CSS.escape(cls)}`)) m.classList.add('hi-highlight');
      });
      el.addEventListener('mouseleave', clear);
    }
  }

  // Pan by dragging, zoom with the wheel, both by moving the viewBox; a press that does not move
  // is a click: on a box it selects it, elsewhere it clears the selection.
  private attachPanZoomAndClicks(view: View): void {
    const svg = view.svg;
    const base = svg.viewBox.baseVal;
    if (!base || base.width <= 0 || base.height <= 0) return; // nothing laid out to pan over
    const home = { x: base.x, y: base.y, w: base.width, h: base.height };
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    // Natural size (1.33 px a point) up to most of the window's height; pan and zoom do the rest.
    svg.style.height = `${Math.round(Math.min(home.h * 1.33, window.innerHeight * 0.8))}px`;
    let vb = { ...home };
    const apply = () => svg.setAttribute('viewBox', `${vb.x} ${vb.y} ${vb.w} ${vb.h}`);
    // Screen point -> SVG point, with preserveAspectRatio's letterboxing (xMidYMid meet).
    const toSvg = (cx: number, cy: number) => {
      const r = svg.getBoundingClientRect();
      const k = Math.max(vb.w / r.width, vb.h / r.height);
      const ox = (r.width * k - vb.w) / 2;
      const oy = (r.height * k - vb.h) / 2;
      return { x: vb.x - ox + (cx - r.left) * k, y: vb.y - oy + (cy - r.top) * k, k };
    };
    const zoom = (wanted: number, cx: number, cy: number) => {
      const widest = home.w * ZOOM_OUT_LIMIT;
      const narrowest = Math.min(home.w, svg.getBoundingClientRect().width / NATURAL_PX_PER_POINT) / ZOOM_IN_LIMIT;
      const factor = Math.min(Math.max(vb.w * wanted, narrowest), widest) / vb.w;
      const p = toSvg(cx, cy);
      vb = { x: p.x - (p.x - vb.x) * factor, y: p.y - (p.y - vb.y) * factor, w: vb.w * factor, h: vb.h * factor };
      apply();
    };
    view.fit = () => {
      vb = { ...home };
      apply();
    };
    view.zoomBy = (factor) => {
      const r = svg.getBoundingClientRect();
      zoom(factor, r.left + r.width / 2, r.top + r.height / 2);
    };
    // A diagram too large to read whole opens on its top (the inputs), at its natural size or the
    // width if narrower, but never below half the natural size: at 375 px wide the width alone
    // opened GPT-2 at 0.41 px a point.
    requestAnimationFrame(() => {
      const r = svg.getBoundingClientRect();
      const natural = NATURAL_PX_PER_POINT;
      if (r.width <= 0 || Math.min(r.width / home.w, r.height / home.h) >= natural / 2) return;
      const k = Math.max(natural / 2, Math.min(natural, r.width / home.w));
      vb = { x: home.x + (home.w - r.width / k) / 2, y: home.y, w: r.width / k, h: r.height / k };
      apply();
    });
    svg.addEventListener(
      'wheel',
      (ev) => {
        ev.preventDefault();
        zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, ev.clientX, ev.clientY);
      },
      { passive: false },
    );
    let press: { x: number; y: number; vb: typeof vb; moved: boolean } | null = null;
    svg.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      press = { x: ev.clientX, y: ev.clientY, vb: { ...vb }, moved: false };
    });
    window.addEventListener(
      'pointermove',
      (ev) => {
        if (!press) return;
        const dx = ev.clientX - press.x;
        const dy = ev.clientY - press.y;
        if (!press.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
        press.moved = true;
        svg.classList.add('panning');
        const k = toSvg(0, 0).k;
        vb = { ...press.vb, x: press.vb.x - dx * k, y: press.vb.y - dy * k };
        apply();
      },
      { signal: view.windowListeners.signal },
    );
    window.addEventListener(
      'pointerup',
      (ev) => {
        if (!press) return;
        const wasClick = !press.moved;
        press = null;
        svg.classList.remove('panning');
        if (!wasClick || !svg.contains(ev.target as Node)) return;
        const g = (ev.target as Element).closest('g.node');
        const node = g ? view.model.nodes[Number(g.id.slice(1))] : undefined;
        if (node && !node.input) {
          this.select(node.id);
          this.handlers.onSelect(node, view.model);
        } else {
          this.select(null);
          this.handlers.onSelect(null, null);
        }
      },
      { signal: view.windowListeners.signal },
    );
  }
}
