// The server's JSON API (docs/serve.md).
import type { DiagramAnswer, ErrorAnswer, ExampleInfo, StageEvent } from './types';

export interface ExampleList {
  default: string;
  examples: ExampleInfo[];
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${res.statusText}`);
  return (await res.json()) as T;
}

export const fetchExamples = (): Promise<ExampleList> => getJson<ExampleList>('/api/examples');

export const fetchExample = (name: string): Promise<{ name: string; label: string; source: string }> =>
  getJson(`/api/examples/${encodeURIComponent(name)}`);

export type DiagramResult = { status: number; body: DiagramAnswer | ErrorAnswer };

// Asks for a diagram and follows its progress: the server streams one JSON object per line —
// stage events as they happen, then {"type":"result","status","body"}. Aborting `signal` closes
// the connection, and the server stops the compile or run when no one else waits for it.
export async function requestDiagram(
  source: string,
  client: string,
  onStage: (e: StageEvent) => void,
  signal: AbortSignal,
): Promise<DiagramResult> {
  const res = await fetch('/api/diagram', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
    body: JSON.stringify({ source, client }),
    signal,
  });
  if (!res.headers.get('Content-Type')?.startsWith('application/x-ndjson') || !res.body) {
    // Refused before any work (busy, too large, malformed): a plain JSON error.
    return { status: res.status, body: (await res.json()) as ErrorAnswer };
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line === '') continue; // a heartbeat
      const event = JSON.parse(line) as StageEvent | { type: 'result'; status: number; body: DiagramAnswer | ErrorAnswer };
      if (event.type === 'stage') onStage(event);
      else return { status: event.status, body: event.body };
    }
  }
  throw new Error('the server closed the progress stream before the result');
}

// The self-contained HTML page of the spec's diagram (what `nndna diagram -o x.html` writes).
export async function requestPage(source: string): Promise<Blob> {
  const res = await fetch('/api/page', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ source }),
  });
  if (!res.ok) {
    const body = (await res.json()) as ErrorAnswer;
    throw new Error(body.error.message);
  }
  return await res.blob();
}
