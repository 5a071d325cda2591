// Download: the spec, the diagram as SVG, PNG, DOT and JSON, and the self-contained HTML page.
import { requestPage } from './api';
import { showPairLabels } from './diagram_view';
import type { DiagramAnswer, DiagramModel, Side } from './types';

export type DownloadFormat = 'cpp' | 'svg' | 'png' | 'dot' | 'json' | 'html';

// What a download is made from: the last diagram drawn and the source it was drawn from.
export interface DownloadSource {
  baseName: string; // "gpt2_small", "model"
  editorText: string;
  drawnSource: string | null;
  answer: DiagramAnswer | null;
  side: Side; // the graph tab shown last: the SVG and PNG show that side
}

function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// A merged diagram's SVG as the graph tab of `side` shows it (as DiagramView.setSide does on the
// page): that side's paired labels, and on the inference side the training-only parts faded
// instead of the inference-only ones, which the server's SVG fades.
function sideView(svgText: string, model: DiagramModel, side: Side): string {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  if (doc.documentElement.nodeName !== 'svg') throw new Error('the diagram\'s SVG cannot be read');
  if (side === 'infer') {
    for (const style of doc.querySelectorAll('style')) {
      style.textContent = (style.textContent ?? '').replaceAll('.only-infer', '.only-train');
    }
  }
  showPairLabels(doc, model, side);
  return new XMLSerializer().serializeToString(doc.documentElement);
}

function svgDocument(s: DownloadSource): string {
  const a = s.answer!;
  const svg =
    s.side === 'infer' && a.infer_svg && a.diagram.infer_alone
      ? a.infer_svg
      : sideView(a.svg, a.diagram, s.side === 'infer' && a.diagram.has_infer ? 'infer' : 'train');
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n${svg}\n`;
}

// The SVG drawn into a canvas at twice its size (fonts as the browser renders them).
async function pngOf(svgText: string): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(image.naturalWidth * scale));
    canvas.height = Math.max(1, Math.round(image.naturalHeight * scale));
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser could not make a PNG'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

export async function download(format: DownloadFormat, s: DownloadSource): Promise<void> {
  const name = s.baseName;
  if (format === 'cpp') {
    save(new Blob([s.editorText], { type: 'text/x-c++src' }), `${name}.cpp`);
    return;
  }
  if (!s.answer || s.drawnSource === null) throw new Error('draw a diagram first');
  switch (format) {
    case 'svg':
      save(new Blob([svgDocument(s)], { type: 'image/svg+xml' }), `${name}.svg`);
      return;
    case 'png':
      save(await pngOf(svgDocument(s)), `${name}.png`);
      return;
    case 'dot':
      save(new Blob([s.answer.diagram.dot], { type: 'text/vnd.graphviz' }), `${name}.dot`);
      return;
    case 'json':
      save(new Blob([JSON.stringify(s.answer.diagram, null, 2) + '\n'], { type: 'application/json' }), `${name}.json`);
      return;
    case 'html':
      save(await requestPage(s.drawnSource), `${name}.html`);
      return;
  }
}
