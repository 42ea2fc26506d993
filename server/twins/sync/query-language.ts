/**
 * The Insights query language (a small subset of Twilio's Flex one), over items `{key, data}`:
 *
 *   expr       := or
 *   or         := and ("OR" and)*
 *   and        := unary ("AND" unary)*
 *   unary      := "NOT" unary | "(" expr ")" | comparison
 *   comparison := field op value | field ["NOT"] "IN" "[" value ("," value)* "]" | field "CONTAINS" value
 *   field      := "key" | "data" ("." name)+          name := [A-Za-z_][A-Za-z0-9_]* | "quoted"
 *   op         := "==" | "!=" | "<" | "<=" | ">" | ">="
 *   value      := "string" | 'string' | number | true | false | null
 *
 * Keywords are case-insensitive. `<`… compare only two numbers or two strings (otherwise false); CONTAINS tests
 * a substring of a string or an element of an array. Anything else is a syntax error (400/54507 `Invalid query`).
 */

export type Value = string | number | boolean | null;
export type Field = { kind: 'key' } | { kind: 'data'; path: string[] };
export type Query =
  | { op: 'and' | 'or'; left: Query; right: Query }
  | { op: 'not'; inner: Query }
  | { op: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'contains'; field: Field; value: Value }
  | { op: 'in'; field: Field; values: Value[] };

export class QuerySyntaxError extends Error {}

type Token = { t: 'op' | 'punct' | 'word' | 'string' | 'number'; v: string; n?: number };

const MAX_LENGTH = 4096;
const MAX_DEPTH = 32;

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['==', '!=', '<=', '>='].includes(two)) {
      out.push({ t: 'op', v: two });
      i += 2;
    } else if (c === '<' || c === '>') {
      out.push({ t: 'op', v: c });
      i++;
    } else if ('()[],.'.includes(c)) {
      out.push({ t: 'punct', v: c });
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\') {
          const e = src[j + 1];
          if (e === undefined) throw new QuerySyntaxError('unterminated string');
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else s += src[j++];
      }
      if (j >= src.length) throw new QuerySyntaxError('unterminated string');
      out.push({ t: 'string', v: s });
      i = j + 1;
    } else {
      const m = /^-?(\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(src.slice(i));
      if (m) {
        out.push({ t: 'number', v: m[0], n: Number(m[0]) });
        i += m[0].length;
        continue;
      }
      const w = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
      if (!w) throw new QuerySyntaxError(`unexpected character '${c}'`);
      out.push({ t: 'word', v: w[0] });
      i += w[0].length;
    }
  }
  return out;
}

export function parseQuery(src: unknown): Query {
  if (typeof src !== 'string' || src.trim() === '' || src.length > MAX_LENGTH)
    throw new QuerySyntaxError('empty or too long');
  const toks = tokenize(src);
  let pos = 0;
  const peek = (): Token | undefined => toks[pos];
  const isWord = (w: string): boolean => peek()?.t === 'word' && peek()!.v.toUpperCase() === w;
  const expect = (t: Token['t'], v?: string): Token => {
    const k = toks[pos];
    if (!k || k.t !== t || (v !== undefined && k.v !== v))
      throw new QuerySyntaxError(`expected ${v ?? t}`);
    pos++;
    return k;
  };

  const field = (): Field => {
    const w = expect('word');
    if (w.v === 'key') return { kind: 'key' };
    if (w.v !== 'data') throw new QuerySyntaxError(`unknown field '${w.v}'`);
    const path: string[] = [];
    while (peek()?.t === 'punct' && peek()!.v === '.') {
      pos++;
      const n = peek();
      if (!n || (n.t !== 'word' && n.t !== 'string'))
        throw new QuerySyntaxError('expected a field name');
      path.push(n.v);
      pos++;
    }
    if (path.length === 0) throw new QuerySyntaxError('data needs a field path, e.g. data.name');
    return { kind: 'data', path };
  };

  const value = (): Value => {
    const k = toks[pos++];
    if (!k) throw new QuerySyntaxError('expected a value');
    if (k.t === 'string') return k.v;
    if (k.t === 'number') return k.n!;
    if (k.t === 'word') {
      const w = k.v.toLowerCase();
      if (w === 'true') return true;
      if (w === 'false') return false;
      if (w === 'null') return null;
    }
    throw new QuerySyntaxError(`expected a value, got '${k.v}'`);
  };

  const comparison = (): Query => {
    const f = field();
    if (isWord('NOT') || isWord('IN')) {
      const negate = isWord('NOT');
      if (negate) pos++;
      if (!isWord('IN')) throw new QuerySyntaxError('expected IN');
      pos++;
      expect('punct', '[');
      const values = [value()];
      while (peek()?.t === 'punct' && peek()!.v === ',') {
        pos++;
        values.push(value());
      }
      expect('punct', ']');
      const q: Query = { op: 'in', field: f, values };
      return negate ? { op: 'not', inner: q } : q;
    }
    if (isWord('CONTAINS')) {
      pos++;
      return { op: 'contains', field: f, value: value() };
    }
    const op = expect('op').v as '==' | '!=' | '<' | '<=' | '>' | '>=';
    return { op, field: f, value: value() };
  };

  const unary = (depth: number): Query => {
    if (depth > MAX_DEPTH) throw new QuerySyntaxError('nested too deeply');
    if (isWord('NOT')) {
      pos++;
      return { op: 'not', inner: unary(depth + 1) };
    }
    if (peek()?.t === 'punct' && peek()!.v === '(') {
      pos++;
      const e = or(depth + 1);
      expect('punct', ')');
      return e;
    }
    return comparison();
  };
  const and = (depth: number): Query => {
    let left = unary(depth);
    while (isWord('AND')) {
      pos++;
      left = { op: 'and', left, right: unary(depth) };
    }
    return left;
  };
  const or = (depth: number): Query => {
    let left = and(depth);
    while (isWord('OR')) {
      pos++;
      left = { op: 'or', left, right: and(depth) };
    }
    return left;
  };

  const q = or(0);
  if (pos !== toks.length) throw new QuerySyntaxError(`unexpected '${toks[pos]!.v}'`);
  return q;
}

function read(field: Field, item: { key: string; data: unknown }): unknown {
  if (field.kind === 'key') return item.key;
  let v: unknown = item.data;
  for (const p of field.path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

export function matches(q: Query, item: { key: string; data: unknown }): boolean {
  switch (q.op) {
    case 'and':
      return matches(q.left, item) && matches(q.right, item);
    case 'or':
      return matches(q.left, item) || matches(q.right, item);
    case 'not':
      return !matches(q.inner, item);
    case 'in': {
      const v = read(q.field, item);
      return q.values.some((x) => x === v);
    }
    case 'contains': {
      const v = read(q.field, item);
      if (typeof v === 'string' && typeof q.value === 'string') return v.includes(q.value);
      return Array.isArray(v) && v.some((x) => x === q.value);
    }
    case '==':
      return read(q.field, item) === q.value;
    case '!=':
      return read(q.field, item) !== q.value;
    default: {
      const v = read(q.field, item);
      const w = q.value;
      if (!(
        (typeof v === 'number' && typeof w === 'number') ||
        (typeof v === 'string' && typeof w === 'string')
      ))
        return false;
      if (q.op === '<') return v < w;
      if (q.op === '<=') return v <= w;
      if (q.op === '>') return v > w;
      return v >= w;
    }
  }
}
