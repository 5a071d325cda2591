// The server's JSON API (docs/serve.md).
import type {
  DesignAnswer,
  DesignErrorAnswer,
  DesignStreamEvent,
  DiagramAnswer,
  ErrorAnswer,
  ExampleInfo,
  StageEvent,
} from './types';

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

type ResultLine<B> = { type: 'result'; status: number; body: B };

// The server took the request on and streams its progress (a refusal is plain JSON).
const isStream = (res: Response): boolean => res.headers.get('Content-Type')?.startsWith('application/x-ndjson') === true;

// Reads a progress stream: one JSON object per line (empty lines are heartbeats) until the
// {"type":"result","status","body"} line, whose status and body it returns; every other line goes
// to `onEvent`. A refusal before any work (busy, too large, malformed) is a plain JSON error.
async function readStream<E extends { type: string }, B>(
  res: Response,
  onEvent: (e: E) => void,
): Promise<{ status: number; body: B | ErrorAnswer }> {
  if (!isStream(res) || !res.body) {
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
      const event = JSON.parse(line) as E | ResultLine<B>;
      if (event.type === 'result') {
        const result = event as ResultLine<B>;
        return { status: result.status, body: result.body };
      }
      onEvent(event as E);
    }
  }
  throw new Error('the server closed the progress stream before the result');
}

// Asks for a diagram and follows its progress: the stage events as they happen, then the result.
// Aborting `signal` closes the connection, and the server stops the compile or run when no one
// else waits for it.
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
  return readStream<StageEvent, DiagramAnswer>(res, onStage);
}

export type DesignResult = { status: number; body: DesignAnswer | DesignErrorAnswer };

// Asks the server's designer for a spec (`source`: the editor's spec, to change) and follows its
// attempts as they happen (docs/serve.md, POST /api/design); `onAccepted` once the server took
// the design on, before any event. Aborting `signal` cancels the design.
export async function requestDesign(
  prompt: string,
  source: string | null,
  client: string,
  onAccepted: () => void,
  onEvent: (e: DesignStreamEvent) => void,
  signal: AbortSignal,
): Promise<DesignResult> {
  const res = await fetch('/api/design', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
    body: JSON.stringify(source === null ? { prompt, client } : { prompt, source, client }),
    signal,
  });
  if (isStream(res)) onAccepted();
  return readStream<DesignStreamEvent, DesignAnswer | DesignErrorAnswer>(res, onEvent);
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
