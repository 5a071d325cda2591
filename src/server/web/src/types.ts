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
}

export interface ExampleInfo {
  name: string;
  label: string;
  description: string;
}
