/**
 * Item queries shared by lists and maps: `Index`/`Key` lookups and ranges with `From` (inclusive), `PageSize`,
 * `Order` and `PageToken`. `meta.previous_token`/`next_token` are non-null exactly when visible items exist before
 * the first / after the last returned item in query order (the SDK only tests their truthiness).
 */
import { errors } from '../errors';
import { limits } from '../limits';
import { itemDescriptor } from '../model';
import type { ItemRow, ObjectRow } from '../store';
import type { Ctx, RestRequest, RestResponse } from './context';

interface PageToken {
  /** First item of the page, inclusive. */
  from: number | string;
  order: 'asc' | 'desc';
  size: number;
}

export function encodePageToken(t: PageToken): string {
  return 'PT' + Buffer.from(JSON.stringify([t.from, t.order, t.size])).toString('base64url');
}

export function decodePageToken(text: string, kind: 'list' | 'map'): PageToken {
  try {
    if (!text.startsWith('PT')) throw new Error('prefix');
    const v = JSON.parse(Buffer.from(text.slice(2), 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(v) || v.length !== 3) throw new Error('shape');
    const [from, order, size] = v as [unknown, unknown, unknown];
    const fromOk = kind === 'list' ? Number.isInteger(from) : typeof from === 'string';
    if (!fromOk || (order !== 'asc' && order !== 'desc') || !Number.isInteger(size))
      throw new Error('fields');
    if ((size as number) < 1 || (size as number) > limits.maxPageSize) throw new Error('size');
    return { from: from as number | string, order, size: size as number };
  } catch {
    throw errors.invalidPageToken();
  }
}

export function parsePageSize(value: string | undefined): number {
  if (value === undefined) return limits.defaultPageSize;
  if (!/^\d{1,7}$/.test(value)) throw errors.invalidPageSize(value);
  const n = Number(value);
  if (n < 1 || n > limits.maxRequestedPageSize) throw errors.invalidPageSize(value);
  return Math.min(n, limits.maxPageSize);
}

export function parseOrder(value: string | undefined): 'asc' | 'desc' {
  if (value === undefined || value === 'asc' || value === 'desc') return value ?? 'asc';
  throw errors.invalidParam('Order', "must be 'asc' or 'desc'");
}

export function parseIndex(value: string, name: string): number {
  if (!/^\d{1,15}$/.test(value)) throw errors.invalidParam(name, 'must be a non-negative integer');
  return Number(value);
}

const urlWithParams = (ctx: Ctx, obj: ObjectRow, params: Record<string, string>): string => {
  const base = `${ctx.base}/v3/${obj.kind === 'list' ? 'Lists' : 'Maps'}/${obj.sid}/Items`;
  const qs = Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  return `${base}?${qs}`;
};

export function queryItems(ctx: Ctx, obj: ObjectRow, req: RestRequest): RestResponse {
  const kind = obj.kind as 'list' | 'map';
  const p = req.params;
  const now = ctx.core.now();
  const store = ctx.core.store;
  const single = kind === 'list' ? p.Index : p.Key;
  if (kind === 'map' && single === '') throw errors.emptyMapKey();
  if (single !== undefined) {
    let row: ItemRow | undefined;
    if (kind === 'list') row = store.q.listItem.get(obj.sid, parseIndex(single, 'Index'));
    else row = store.q.mapItem.get(obj.sid, single);
    const visible = row && (row.date_expires === null || row.date_expires > now) ? [row] : [];
    return {
      status: 200,
      body: {
        items: visible.map((r) => itemDescriptor(ctx.base, kind, r)),
        meta: meta(ctx, obj, null, null, visible.length),
      },
    };
  }
  let from: number | string | undefined;
  let order: 'asc' | 'desc';
  let size: number;
  if (p.PageToken !== undefined) {
    ({ from, order, size } = decodePageToken(p.PageToken, kind));
  } else {
    order = parseOrder(p.Order);
    size = parsePageSize(p.PageSize);
    if (p.From !== undefined) from = kind === 'list' ? parseIndex(p.From, 'From') : p.From;
  }
  const rows = store.queryItems(obj.sid, kind, {
    ...(from !== undefined ? { from } : {}),
    order,
    limit: size + 1,
    now,
  });
  const page = rows.slice(0, size);
  const hasNext = rows.length > size;
  const first = page[0];
  const boundary = first ? (kind === 'list' ? first.idx : first.key) : from;
  const hasPrev =
    boundary !== undefined &&
    store.hasItemBeyond(obj.sid, kind, boundary, order === 'asc' ? 'before' : 'after', now);
  const key = (r: ItemRow): number | string => (kind === 'list' ? r.idx : r.key);
  const next = hasNext ? encodePageToken({ from: key(rows[size]!), order, size }) : null;
  // The previous page ends just before `boundary`: query it in reverse order, then flip.
  const prev =
    hasPrev && boundary !== undefined ? previousToken(ctx, obj, boundary, order, size, now) : null;
  return {
    status: 200,
    body: {
      items: page.map((r) => itemDescriptor(ctx.base, kind, r)),
      meta: meta(ctx, obj, prev, next, size),
    },
  };
}

function previousToken(
  ctx: Ctx,
  obj: ObjectRow,
  boundary: number | string,
  order: 'asc' | 'desc',
  size: number,
  now: number,
): string | null {
  const kind = obj.kind as 'list' | 'map';
  const reverse = order === 'asc' ? 'desc' : 'asc';
  const rows = ctx.core.store.queryItems(obj.sid, kind, {
    from: boundary,
    order: reverse,
    limit: size + 1,
    now,
  });
  const before = rows.filter((r) => (kind === 'list' ? r.idx : r.key) !== boundary).slice(0, size);
  const start = before[before.length - 1];
  if (!start) return null;
  return encodePageToken({ from: kind === 'list' ? start.idx : start.key, order, size });
}

function meta(
  ctx: Ctx,
  obj: ObjectRow,
  prev: string | null,
  next: string | null,
  size: number,
): Record<string, unknown> {
  const params = (t: string): Record<string, string> => ({ PageToken: t });
  return {
    page_size: size,
    previous_token: prev,
    next_token: next,
    previous_page_url: prev ? urlWithParams(ctx, obj, params(prev)) : null,
    next_page_url: next ? urlWithParams(ctx, obj, params(next)) : null,
    key: 'items',
  };
}
