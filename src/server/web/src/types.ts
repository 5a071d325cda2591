// The shapes of what the server sends (docs/serve.md; the diagram model is docs/diagram.md's).

export type Side = 'train' | 'infer';

export interface Cost {
  params: number;
  flops: number;
}

export interface DiagramNode {
  id: number;
  key: string;
  input: boolean;
  label: string;
  file: string;
  line: number;
  shapes: string[];
  computes?: string; // what its ops compute, when the diagram says ("ln1", "add")
  color: string;
  sides: Side[];
  cluster: number;
  cost: Partial<Record<Side, Cost>>;
}

export interface DiagramCluster {
  id: number;
  kind: 'user' | 'loop';
  label: string;
  labels?: Record<Side, string>;
  sides: Side[];
  parent: number;
  cost: Partial<Record<Side, Cost>>;
}

export interface DiagramEdge {
  src: number;
  dst: number;
  carried: boolean;
  back_edge: boolean;
  color: string;
  sides: Side[];
}

export interface LegendItem {
  name: string;
  desc: string;
  size: number;
  color: string;
}

export interface DimCollision {
  size: number;
  names: string[];
}

export interface Metric {
  key: string;
  value: number;
  display: string;
  tooltip: string;
}

export interface DiagramModel {
  format: string;
  version: number;
  label: string;
  description: string;
  merged: boolean;
  has_infer: boolean;
  has_train_only: boolean;
  has_infer_only: boolean;
  layer_count: number;
  nodes: DiagramNode[];
  clusters: DiagramCluster[];
  edges: DiagramEdge[];
  legend: LegendItem[];
  collisions: DimCollision[];
  metrics: Partial<Record<Side, Metric[]>>;
  dot: string;
  infer_alone?: DiagramModel;
}

export interface DiagramAnswer {
  ok: true;
  cache_hit: boolean;
  svg: string;
  infer_svg?: string;
  timings: Record<string, number>;
  diagram: DiagramModel;
}

export interface Diagnostic {
  line: number;
  column: number;
  severity: 'error' | 'warning' | 'info';
  message: string;
}

export interface ErrorAnswer {
  ok: false;
  error: { kind: string; message: string; diagnostics?: Diagnostic[] };
}

export interface StageEvent {
  type: 'stage';
  stage: string;
  state: 'start' | 'done';
  seconds?: number;
  cache_hit?: boolean;
  ahead?: number; // the queue stage's start: requests queued before this one
}

// One step of a design as the designer reports it (designer::toJson, docs/design.md).
export interface DesignEvent {
  kind: string; // asking_model, attempt_started, llm_answer, check_result, fallback_offline, ...
  message: string;
  attempt?: number;
  model?: string;
  llm?: { model: string; prompt_tokens: number; completion_tokens: number; latency_seconds: number; cost_usd?: number };
  check?: {
    ok: boolean;
    seconds: number;
    compile_seconds?: number;
    run_seconds?: number;
    cache_hit?: boolean;
    error_kind?: string;
    error?: string;
    line?: number;
  };
  reason?: string;
  ok?: boolean;
}

export type DesignStreamEvent = { type: 'design'; event: DesignEvent } | StageEvent;

export interface DesignInfo {
  offline: boolean;
  attempts: number;
  fallback_reason?: string;
}

// A design's answer: the diagram answer of the designed spec, with the spec.
export type DesignAnswer = DiagramAnswer & { source: string; design: DesignInfo };
// A design that failed: the last spec tried (when there was one), to fix by hand.
export type DesignErrorAnswer = ErrorAnswer & { source?: string; design?: DesignInfo };

export interface ExampleInfo {
  name: string;
  label: string;
  description: string;
}
