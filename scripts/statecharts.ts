/**
 * Turns XState v5 machine definitions into Markdown pages with a Mermaid state diagram.
 * Pure: takes machines, returns file contents. `scripts/charts.ts` writes or checks them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyStateMachine } from 'xstate';

/** The runtime shape of XState's state nodes that the generator reads. */
interface ChartNode {
  key: string;
  id: string;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  path: string[];
  description?: string;
  tags: string[];
  states: Record<string, ChartNode>;
  initial?: { target: ReadonlyArray<ChartNode> };
  transitions: Map<string, ChartTransition[]>;
  always?: ChartTransition[];
  invoke: Array<{ id: string; src: unknown }>;
}

interface ChartTransition {
  eventType: string;
  target: ReadonlyArray<ChartNode> | undefined;
  guard?: unknown;
  reenter: boolean;
}

export interface MachineChart {
  /** File name stem, e.g. `session` for `docs/statecharts/session.md`. */
  name: string;
  markdown: string;
  states: number;
  transitions: number;
}

/** A readable name for any guard form: named string, `{ type }`, inline function, and/or/not. */
export function guardName(guard: unknown): string {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const fn = guard as { name?: string; guards?: unknown[] };
    if (Array.isArray(fn.guards)) {
      const inner = fn.guards.map(guardName);
      if (fn.name === 'not') return `!${inner[0] ?? '?'}`;
      return `(${inner.join(fn.name === 'and' ? ' && ' : ' || ')})`;
    }
    return fn.name && fn.name !== 'guard' ? fn.name : 'inline guard';
  }
  if (typeof guard === 'object' && guard !== null && 'type' in guard) {
    return String(guard.type);
  }
  return 'guard';
}

/** A readable label for XState's internal event types. */
export function eventLabel(eventType: string): string {
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after) return `after ${after[1] ?? ''}`;
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType);
  if (done) return `done: ${done[1] ?? ''}`;
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType);
  if (error) return `error: ${error[1] ?? ''}`;
  if (eventType.startsWith('xstate.done.state.')) return 'done';
  return eventType;
}

function mermaidId(node: ChartNode): string {
  return node.path.length === 0 ? 'root' : node.path.join('__').replace(/[^A-Za-z0-9_]/g, '_');
}

function escapeLabel(text: string): string {
  return text.replace(/[:;#]/g, (c) => `#${c.charCodeAt(0)};`).replace(/\s+/g, ' ');
}

function children(node: ChartNode): ChartNode[] {
  return Object.values(node.states);
}

function allNodes(node: ChartNode): ChartNode[] {
  return [node, ...children(node).flatMap(allNodes)];
}

function transitionsOf(node: ChartNode): ChartTransition[] {
  const list: ChartTransition[] = [];
  for (const defs of node.transitions.values()) list.push(...defs);
  list.push(...(node.always ?? []).map((t) => ({ ...t, eventType: 'always' })));
  return list;
}

function transitionLabel(t: ChartTransition): string {
  const guard = guardName(t.guard);
  return escapeLabel(guard ? `${eventLabel(t.eventType)} [${guard}]` : eventLabel(t.eventType));
}

function diagramLines(node: ChartNode, indent: string): string[] {
  const lines: string[] = [];
  const kids = children(node);
  const initial = node.initial?.target[0];
  if (initial && node.type === 'compound') lines.push(`${indent}[*] --> ${mermaidId(initial)}`);
  kids.forEach((kid, i) => {
    const id = mermaidId(kid);
    if (kid.type === 'compound' || kid.type === 'parallel') {
      lines.push(`${indent}state ${id} {`);
      lines.push(...diagramLines(kid, `${indent}  `));
      lines.push(`${indent}}`);
    } else {
      lines.push(`${indent}state "${kid.key}" as ${id}`);
    }
    if (kid.description) lines.push(`${indent}${id} : ${escapeLabel(kid.description)}`);
    if (kid.type === 'final') lines.push(`${indent}${id} --> [*]`);
    if (node.type === 'parallel' && i < kids.length - 1) lines.push(`${indent}--`);
  });
  return lines;
}

function edgeLines(root: ChartNode): string[] {
  const lines: string[] = [];
  for (const node of allNodes(root)) {
    if (node === root) continue;
    for (const t of transitionsOf(node)) {
      const targets = t.target && t.target.length > 0 ? t.target : [node];
      for (const target of targets) {
        const to = target === root ? mermaidId(node) : mermaidId(target);
        lines.push(`  ${mermaidId(node)} --> ${to} : ${transitionLabel(t)}`);
      }
    }
  }
  return lines;
}

function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '_none_\n';
  const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return (
    [
      `| ${headers.join(' | ')} |`,
      `| ${headers.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    ].join('\n') + '\n'
  );
}

/** Builds the Markdown page for one machine. */
export function chartFor(name: string, machine: AnyStateMachine): MachineChart {
  const root = machine.root as unknown as ChartNode;
  const nodes = allNodes(root).filter((n) => n !== root);
  const rootTransitions = transitionsOf(root);
  const stateRows = nodes.map((n) => [
    `\`${n.path.join('.')}\``,
    n.type,
    n.description ?? '',
    n.tags.join(', '),
    n.invoke.map((i) => (typeof i.src === 'string' ? i.src : i.id)).join(', '),
  ]);
  const transitionRows = nodes.flatMap((n) =>
    transitionsOf(n).map((t) => [
      `\`${n.path.join('.')}\``,
      `\`${eventLabel(t.eventType)}\``,
      guardName(t.guard),
      t.target && t.target.length > 0
        ? t.target.map((x) => `\`${x.path.join('.')}\``).join(', ')
        : '(stays)',
    ]),
  );
  const rootRows = rootTransitions.map((t) => [
    `\`${eventLabel(t.eventType)}\``,
    guardName(t.guard),
    t.target && t.target.length > 0
      ? t.target.map((x) => `\`${x.path.join('.')}\``).join(', ')
      : '(stays)',
  ]);
  const events = [
    ...new Set(
      [...nodes, root].flatMap((n) => transitionsOf(n).map((t) => eventLabel(t.eventType))),
    ),
  ].sort();
  const guards = [
    ...new Set([...nodes, root].flatMap((n) => transitionsOf(n).map((t) => guardName(t.guard)))),
  ]
    .filter(Boolean)
    .sort();
  const transitionCount = transitionRows.length + rootRows.length;

  const markdown = [
    `# ${name}`,
    '',
    `<!-- Generated by \`npm run charts\` from \`src/machines/${name}.machine.ts\`. Do not edit. -->`,
    '',
    root.description ?? machine.config.description ?? '',
    '',
    '```mermaid',
    'stateDiagram-v2',
    ...diagramLines(root, '  '),
    ...edgeLines(root),
    '```',
    '',
    '## States',
    '',
    table(['State', 'Type', 'Description', 'Tags', 'Invokes'], stateRows),
    '## Transitions',
    '',
    table(['From', 'Event', 'Guard', 'To'], transitionRows),
    ...(rootRows.length > 0
      ? ['## Handled in every state', '', table(['Event', 'Guard', 'To'], rootRows)]
      : []),
    '## Events',
    '',
    events.map((e) => `- \`${e}\``).join('\n') || '_none_',
    '',
    '## Guards',
    '',
    guards.map((g) => `- \`${g}\``).join('\n') || '_none_',
    '',
  ].join('\n');
  return { name, markdown, states: nodes.length, transitions: transitionCount };
}

/** Every `*.machine.ts` file in `dir` with the machines it exports (`<name>Machine`). */
export async function loadMachines(
  dir: string,
): Promise<Array<{ name: string; machine: AnyStateMachine }>> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.machine.ts'))
    .sort();
  const result: Array<{ name: string; machine: AnyStateMachine }> = [];
  for (const file of files) {
    const name = file.replace(/\.machine\.ts$/, '');
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
    const machine = mod[`${name}Machine`];
    if (!machine || typeof machine !== 'object' || !('root' in machine)) {
      throw new Error(`${file} must export ${name}Machine`);
    }
    result.push({ name, machine: machine as AnyStateMachine });
  }
  return result;
}

/** All chart pages plus the index, keyed by file name. */
export function renderAll(charts: MachineChart[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const chart of charts) files.set(`${chart.name}.md`, chart.markdown);
  files.set(
    'README.md',
    [
      '# Statecharts',
      '',
      '<!-- Generated by `npm run charts`. Do not edit. -->',
      '',
      'One page per machine in `src/machines`, generated from the machine definitions themselves.',
      '',
      table(
        ['Machine', 'States', 'Transitions'],
        charts.map((c) => [`[${c.name}](./${c.name}.md)`, String(c.states), String(c.transitions)]),
      ),
    ].join('\n'),
  );
  return files;
}
