/**
 * A local stand-in of Twilio's REST API, as much of Sync as the server uses: the service's ACL flag,
 * maps and their items, lists and their items, documents, by unique name, each object's permissions
 * per identity, with Twilio's JSON shapes, pages (list items in either `Order`) and errors. The
 * server reaches it through the `twilio` package's own HTTP client with the address rewritten
 * (SWITCHBOARD_TWILIO_API_URL, server/twilio/client.ts), so requests arrive as Twilio would get them:
 * `/sync/v1/Services/{sid}/…`, form-encoded bodies, Basic auth with the API key. Every request is
 * recorded for tests to assert on; tests seed objects directly.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  /** The path, e.g. `/sync/v1/Services/IS…/Lists/calls/Items`. */
  path: string;
  /** The form body, decoded. */
  form: Record<string, string>;
  authorization: string | null;
}

interface Item {
  data: Json;
  revision: number;
  expiresAt: number | null;
}

export type ObjectKind = 'document' | 'list' | 'map';
/** One identity's permission on one object, as Twilio keeps it. */
export interface Permission {
  read: boolean;
  write: boolean;
  manage: boolean;
}

export interface TwilioApiStandIn {
  /** The base URL for SWITCHBOARD_TWILIO_API_URL. */
  url: string;
  /**
   * Resolves once no request is being answered and none came for `quietMs` (50; longer than the
   * REST client's backoff between retries to wait for those too) since it was asked: what the
   * server does after answering a webhook (a history row written after `/status` answered) is done.
   */
  settled(quietMs?: number): Promise<void>;
  requests: RecordedRequest[];
  maps: Map<string, Map<string, Item>>;
  lists: Map<string, Map<number, Item>>;
  documents: Map<string, Item>;
  /** The service's `acl_enabled` (on unless a test turns it off). */
  aclEnabled: boolean;
  /**
   * Whether the service keeps the `WebhookUrl` and `WebhooksFromRestEnabled` it is given (off unless
   * a test turns it on: the stand-in sends no Sync webhooks, so a server following them would read
   * none of what tests seed directly). The service's `webhook_url`, when kept.
   */
  syncWebhooks: boolean;
  webhookUrl: string | null;
  /** Who holds what on an object, by identity (empty when nobody does or it does not exist). */
  permissionsOf(kind: ObjectKind, name: string): Record<string, Permission>;
  /** Seeds a permission, as if granted earlier. */
  setPermission(kind: ObjectKind, name: string, identity: string, p: Permission): void;
  /** Voicemail recordings by sid, served as Twilio's `…/Recordings/{sid}.wav`. */
  recordings: Map<string, Buffer>;
  /** User-defined messages sent to calls (`Calls/{sid}/UserDefinedMessages`), in order. */
  told: { callSid: string; content: Json }[];
  /** Live calls changed (`POST Calls/{sid}`: new `Twiml`, or `Status=completed`), in order. */
  changed: { callSid: string; form: Record<string, string> }[];
  /** Calls placed (`POST Calls`), in order, each answered with the sid given here. */
  placed: { sid: string; form: Record<string, string> }[];
  /** What `GET Calls/{sid}` says of a call (its `status`); a call not here is not found (20404). */
  callStatuses: Map<string, string>;
  /** The conferences `GET Conferences` lists (a test sets them as the calls would have made them). */
  conferences: { sid: string; friendly_name: string; status: string }[];
  /** The calls `GET Calls` lists, filtered by `To`, `From` and `Status` (a test sets them). */
  calls: { sid: string; to: string; from: string; status: string }[];
  /** Participants changed (`POST Conferences/{CF}/Participants/{CA}`), in order. */
  participants: { conferenceSid: string; callSid: string; form: Record<string, string> }[];
  setMapItem(map: string, key: string, data: Json, ttlSeconds?: number): void;
  setDocument(name: string, data: Json): void;
  pushListItem(list: string, data: Json): number;
  /** Items of a list, oldest first. */
  listData(list: string): Json[];
  /** Answers every later request with this status (e.g. 503), or normally again with null. */
  failWith(status: number | null): void;
  /**
   * Answers the next `count` requests with `status` (429 as Sync's rate limit, 54009), then normally:
   * a brief failure the server should ride out.
   */
  failNext(count: number, status: number): void;
  /** Delays every answer by this many ms. */
  delay(ms: number): void;
  close(): Promise<void>;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(Object.fromEntries(new URLSearchParams(body))));
    req.on('error', reject);
  });
}

export async function startTwilioApi(options: {
  accountSid: string;
  apiKey: string;
  apiSecret: string;
  serviceSid: string;
  now?: () => number;
}): Promise<TwilioApiStandIn> {
  const now = options.now ?? Date.now;
  const requests: RecordedRequest[] = [];
  const maps = new Map<string, Map<string, Item>>();
  const lists = new Map<string, Map<number, Item>>();
  const documents = new Map<string, Item>();
  const recordings = new Map<string, Buffer>();
  const told: { callSid: string; content: Json }[] = [];
  const changed: TwilioApiStandIn['changed'] = [];
  const placed: TwilioApiStandIn['placed'] = [];
  const callStatuses = new Map<string, string>();
  const conferences: TwilioApiStandIn['conferences'] = [];
  const calls: TwilioApiStandIn['calls'] = [];
  const participants: TwilioApiStandIn['participants'] = [];
  /** By `${kind}:${name}`, then identity. */
  const permissions = new Map<string, Map<string, Permission>>();
  const state = {
    aclEnabled: true,
    syncWebhooks: false,
    webhookUrl: null as string | null,
    webhooksFromRest: false,
  };
  const exists = (kind: ObjectKind, name: string): boolean =>
    kind === 'map' ? maps.has(name) : kind === 'list' ? lists.has(name) : documents.has(name);
  const dropObject = (kind: ObjectKind, name: string): void => {
    if (kind === 'map') maps.delete(name);
    else if (kind === 'list') lists.delete(name);
    else documents.delete(name);
    permissions.delete(`${kind}:${name}`);
  };
  let failing: number | null = null;
  const burst = { count: 0, status: 503 };
  let delayMs = 0;
  const auth = `Basic ${Buffer.from(`${options.apiKey}:${options.apiSecret}`).toString('base64')}`;
  const live = (item: Item | undefined): item is Item =>
    item !== undefined && (item.expiresAt === null || item.expiresAt > now());
  const expiry = (ttl: string | undefined): number | null =>
    ttl === undefined || Number(ttl) === 0 ? null : now() + Number(ttl) * 1000;

  function send(res: ServerResponse, status: number, body: Json | null): void {
    if (body === null) {
      res.writeHead(status);
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(text);
  }
  const error = (res: ServerResponse, status: number, code: number, message: string) =>
    send(res, status, {
      code,
      message,
      more_info: `https://www.twilio.com/docs/errors/${code}`,
      status,
    });

  const mapItemJson = (map: string, key: string, item: Item): Json => ({
    key,
    account_sid: options.accountSid,
    service_sid: options.serviceSid,
    map_sid: map,
    url: `https://sync.twilio.com/v1/Services/${options.serviceSid}/Maps/${map}/Items/${key}`,
    revision: String(item.revision),
    data: item.data,
    date_expires: item.expiresAt === null ? null : iso(item.expiresAt),
    date_created: iso(now()),
    date_updated: iso(now()),
    created_by: 'system',
  });
  const listItemJson = (list: string, index: number, item: Item): Json => ({
    index,
    account_sid: options.accountSid,
    service_sid: options.serviceSid,
    list_sid: list,
    url: `https://sync.twilio.com/v1/Services/${options.serviceSid}/Lists/${list}/Items/${index}`,
    revision: String(item.revision),
    data: item.data,
    date_expires: item.expiresAt === null ? null : iso(item.expiresAt),
    date_created: iso(now()),
    date_updated: iso(now()),
    created_by: 'system',
  });
  const page = (key: string, items: Json[]): Json => ({
    [key]: items,
    meta: {
      page: 0,
      page_size: items.length,
      first_page_url: null,
      previous_page_url: null,
      url: null,
      next_page_url: null,
      key,
    },
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const form = await readForm(req);
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      form,
      authorization: req.headers.authorization ?? null,
    });
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    if (req.headers.authorization !== auth) return error(res, 401, 20003, 'Authenticate');
    if (failing !== null) return error(res, failing, 20500, 'Service unavailable');
    if (burst.count > 0) {
      burst.count--;
      return burst.status === 429
        ? error(res, 429, 54009, 'Rate limit exceeded')
        : error(res, burst.status, 20500, 'Service unavailable');
    }
    const recording = new RegExp(
      `^/api/2010-04-01/Accounts/${options.accountSid}/Recordings/(RE[0-9a-f]{32})\\.wav$`,
    ).exec(url.pathname);
    const recordingJson = new RegExp(
      `^/api/2010-04-01/Accounts/${options.accountSid}/Recordings/(RE[0-9a-f]{32})\\.json$`,
    ).exec(url.pathname);
    // Calls' user-defined messages (the Voice SDK is told routing steps): kept in `told`.
    const message = new RegExp(
      `^/api/2010-04-01/Accounts/${options.accountSid}/Calls/(CA[0-9a-fA-F]{32})/UserDefinedMessages\\.json$`,
    ).exec(url.pathname);
    if (message && req.method === 'POST') {
      told.push({ callSid: message[1]!, content: JSON.parse(form.Content ?? 'null') as Json });
      return send(res, 201, { sid: `KX${'0'.repeat(32)}`, call_sid: message[1] });
    }
    const voice = `/api/2010-04-01/Accounts/${options.accountSid}`;
    // Inline TwiML on a call create or update: at most 4,000 characters, as Twilio takes it
    // (https://www.twilio.com/docs/api/errors/32018).
    if (url.pathname.startsWith(`${voice}/Calls`) && (form.Twiml ?? '').length > 4000)
      return send(res, 400, {
        code: 32018,
        message: 'Twiml size exceeded maximum allowed value of 4000 characters',
        status: 400,
      });
    const callChange = new RegExp(`^${voice}/Calls/(CA[0-9a-fA-F]{32})\\.json$`).exec(url.pathname);
    if (callChange && req.method === 'GET') {
      const status = callStatuses.get(callChange[1]!);
      if (status === undefined)
        return send(res, 404, { code: 20404, message: 'The requested resource was not found' });
      return send(res, 200, { sid: callChange[1], account_sid: options.accountSid, status });
    }
    if (callChange && req.method === 'POST') {
      changed.push({ callSid: callChange[1]!, form });
      return send(res, 200, {
        sid: callChange[1],
        account_sid: options.accountSid,
        status: form.Status ?? 'in-progress',
      });
    }
    if (url.pathname === `${voice}/Calls.json` && req.method === 'POST') {
      const callSid = `CA${(placed.length + 1).toString(16).padStart(32, 'c')}`;
      placed.push({ sid: callSid, form });
      return send(res, 201, {
        sid: callSid,
        account_sid: options.accountSid,
        to: form.To,
        from: form.From,
        status: 'queued',
      });
    }
    // The Voice API's lists, each in one page, filtered by the query's parameters as Twilio does.
    const wanted = (name: string, value: string) => {
      const given = url.searchParams.get(name);
      return given === null || given === value;
    };
    const onePage = (key: string, items: unknown[]) => {
      const uri = url.pathname;
      const page = { page: 0, page_size: 50, next_page_uri: null, previous_page_uri: null };
      return send(res, 200, { [key]: items, ...page, first_page_uri: uri, uri });
    };
    if (url.pathname === `${voice}/Calls.json` && req.method === 'GET')
      return onePage(
        'calls',
        calls.filter(
          (c) => wanted('To', c.to) && wanted('From', c.from) && wanted('Status', c.status),
        ),
      );
    if (url.pathname === `${voice}/Conferences.json` && req.method === 'GET')
      return onePage(
        'conferences',
        conferences.filter(
          (c) => wanted('FriendlyName', c.friendly_name) && wanted('Status', c.status),
        ),
      );
    const participant = new RegExp(
      `^${voice}/Conferences/(CF[0-9a-fA-F]{32})/Participants/(CA[0-9a-fA-F]{32})\\.json$`,
    ).exec(url.pathname);
    if (participant && req.method === 'POST') {
      participants.push({ conferenceSid: participant[1]!, callSid: participant[2]!, form });
      return send(res, 200, {
        conference_sid: participant[1],
        call_sid: participant[2],
        hold: form.Hold === 'true',
      });
    }
    if (recordingJson && req.method === 'DELETE') {
      if (!recordings.delete(recordingJson[1]!))
        return error(res, 404, 20404, 'The requested resource was not found');
      return send(res, 204, null);
    }
    if (recording && req.method === 'GET') {
      const audio = recordings.get(recording[1]!);
      if (!audio) return error(res, 404, 20404, 'Recording not found');
      res.writeHead(200, { 'Content-Type': 'audio/x-wav', 'Content-Length': audio.length });
      res.end(audio);
      return;
    }
    const method = req.method ?? 'GET';
    if (url.pathname === `/sync/v1/Services/${options.serviceSid}`) {
      if (method === 'POST' && form.AclEnabled !== undefined)
        state.aclEnabled = form.AclEnabled === 'true';
      if (method === 'POST' && state.syncWebhooks && form.WebhookUrl !== undefined)
        state.webhookUrl = form.WebhookUrl === '' ? null : form.WebhookUrl;
      if (method === 'POST' && state.syncWebhooks && form.WebhooksFromRestEnabled !== undefined)
        state.webhooksFromRest = form.WebhooksFromRestEnabled === 'true';
      if (method === 'GET' || method === 'POST')
        return send(res, 200, {
          sid: options.serviceSid,
          account_sid: options.accountSid,
          friendly_name: 'Switchboard',
          acl_enabled: state.aclEnabled,
          webhook_url: state.webhookUrl,
          webhooks_from_rest_enabled: state.webhooksFromRest,
          reachability_webhooks_enabled: false,
          url: `https://sync.twilio.com/v1/Services/${options.serviceSid}`,
        });
    }
    const prefix = `/sync/v1/Services/${options.serviceSid}/`;
    if (!url.pathname.startsWith(prefix)) return error(res, 404, 20404, 'Not found');
    const parts = url.pathname.slice(prefix.length).split('/').map(decodeURIComponent);
    const [kind, name, sub, key] = parts;
    const objectKind: ObjectKind | null =
      kind === 'Maps'
        ? 'map'
        : kind === 'Lists'
          ? 'list'
          : kind === 'Documents'
            ? 'document'
            : null;

    // Every object of a kind (one page; unique names are the sids here).
    if (objectKind && name === undefined && method === 'GET') {
      const names =
        objectKind === 'map'
          ? [...maps.keys()]
          : objectKind === 'list'
            ? [...lists.keys()]
            : [...documents.keys()];
      const pageKey = objectKind === 'map' ? 'maps' : objectKind === 'list' ? 'lists' : 'documents';
      return send(
        res,
        200,
        page(
          pageKey,
          names.map((n) => ({
            sid: n,
            unique_name: n,
            account_sid: options.accountSid,
            service_sid: options.serviceSid,
            revision: '0',
            ...(objectKind === 'document' ? { data: documents.get(n)!.data } : {}),
            date_expires: null,
            date_created: iso(now()),
            date_updated: iso(now()),
            created_by: 'system',
          })),
        ),
      );
    }
    if (objectKind && name !== undefined && sub === undefined && method === 'DELETE') {
      if (!exists(objectKind, name)) return error(res, 404, 20404, `${name} not found`);
      dropObject(objectKind, name);
      return send(res, 204, null);
    }
    if (objectKind && name !== undefined && sub === 'Permissions') {
      if (!exists(objectKind, name)) return error(res, 404, 20404, `${name} not found`);
      const id = `${objectKind}:${name}`;
      const held = permissions.get(id) ?? new Map<string, Permission>();
      const sidField = `${objectKind}_sid`;
      const json = (identity: string, p: Permission): Json => ({
        account_sid: options.accountSid,
        service_sid: options.serviceSid,
        [sidField]: name,
        identity,
        ...p,
        url: `https://sync.twilio.com/v1/Services/${options.serviceSid}/${kind}/${name}/Permissions/${identity}`,
      });
      if (key === undefined && method === 'GET')
        return send(
          res,
          200,
          page(
            'permissions',
            [...held].map(([identity, p]) => json(identity, p)),
          ),
        );
      if (key !== undefined && method === 'GET') {
        const p = held.get(key);
        if (!p) return error(res, 404, 20404, `No permission for ${key}`);
        return send(res, 200, json(key, p));
      }
      if (key !== undefined && method === 'POST') {
        const p = {
          read: form.Read === 'true',
          write: form.Write === 'true',
          manage: form.Manage === 'true',
        };
        held.set(key, p);
        permissions.set(id, held);
        return send(res, 200, json(key, p));
      }
      if (key !== undefined && method === 'DELETE') {
        if (!held.delete(key)) return error(res, 404, 20404, `No permission for ${key}`);
        return send(res, 204, null);
      }
    }
    if (kind === 'Documents' && name === undefined && method === 'POST') {
      const unique = form.UniqueName ?? '';
      if (documents.has(unique)) return error(res, 409, 54301, 'Unique name already exists');
      const doc = { data: JSON.parse(form.Data ?? '{}') as Json, revision: 0, expiresAt: null };
      documents.set(unique, doc);
      return send(res, 201, {
        sid: unique,
        unique_name: unique,
        account_sid: options.accountSid,
        service_sid: options.serviceSid,
        revision: '0',
        data: doc.data,
        date_expires: null,
        date_created: iso(now()),
        date_updated: iso(now()),
        created_by: 'system',
      });
    }

    if (kind === 'Maps' && name === undefined && method === 'POST') {
      const unique = form.UniqueName ?? '';
      if (maps.has(unique)) return error(res, 409, 54301, 'Unique name already exists');
      maps.set(unique, new Map());
      return send(res, 201, { sid: unique, unique_name: unique });
    }
    if (kind === 'Lists' && name === undefined && method === 'POST') {
      const unique = form.UniqueName ?? '';
      if (lists.has(unique)) return error(res, 409, 54301, 'Unique name already exists');
      lists.set(unique, new Map());
      return send(res, 201, { sid: unique, unique_name: unique });
    }
    if (kind === 'Maps' && name !== undefined && sub === 'Items') {
      const items = maps.get(name);
      if (!items) return error(res, 404, 54200, `Map ${name} not found`);
      if (key === undefined && method === 'GET')
        return send(
          res,
          200,
          page(
            'items',
            [...items].filter(([, i]) => live(i)).map(([k, i]) => mapItemJson(name, k, i)),
          ),
        );
      if (key === undefined && method === 'POST') {
        const k = form.Key ?? '';
        if (live(items.get(k))) return error(res, 409, 54208, 'Item already exists');
        const item = {
          data: JSON.parse(form.Data ?? '{}') as Json,
          revision: 0,
          expiresAt: expiry(form.Ttl),
        };
        items.set(k, item);
        return send(res, 201, mapItemJson(name, k, item));
      }
      if (key !== undefined) {
        const item = items.get(key);
        if (!live(item)) return error(res, 404, 54201, `Item ${key} not found`);
        if (method === 'GET') return send(res, 200, mapItemJson(name, key, item));
        if (method === 'DELETE') {
          items.delete(key);
          return send(res, 204, null);
        }
        if (method === 'POST') {
          if (form.Data !== undefined) item.data = JSON.parse(form.Data) as Json;
          if (form.Ttl !== undefined) item.expiresAt = expiry(form.Ttl);
          item.revision++;
          return send(res, 200, mapItemJson(name, key, item));
        }
      }
    }
    if (kind === 'Lists' && name !== undefined && sub === 'Items') {
      const items = lists.get(name);
      if (!items) return error(res, 404, 54100, `List ${name} not found`);
      if (key === undefined && method === 'GET')
        return send(
          res,
          200,
          page(
            'items',
            (url.searchParams.get('Order') === 'desc' ? [...items].reverse() : [...items])
              .filter(([, item]) => live(item))
              .map(([i, item]) => listItemJson(name, i, item)),
          ),
        );
      if (key === undefined && method === 'POST') {
        const index = items.size === 0 ? 0 : Math.max(...items.keys()) + 1;
        const item = {
          data: JSON.parse(form.Data ?? '{}') as Json,
          revision: 0,
          expiresAt: expiry(form.Ttl ?? form.ItemTtl),
        };
        items.set(index, item);
        return send(res, 201, listItemJson(name, index, item));
      }
      if (key !== undefined && method === 'DELETE') {
        if (!items.delete(Number(key))) return error(res, 404, 54101, `Item ${key} not found`);
        return send(res, 204, null);
      }
      if (key !== undefined && method === 'POST') {
        const item = items.get(Number(key));
        if (!item) return error(res, 404, 54101, `Item ${key} not found`);
        if (form.Data !== undefined) item.data = JSON.parse(form.Data) as Json;
        if (form.Ttl !== undefined || form.ItemTtl !== undefined)
          item.expiresAt = expiry(form.Ttl ?? form.ItemTtl);
        item.revision++;
        return send(res, 200, listItemJson(name, Number(key), item));
      }
    }
    if (kind === 'Documents' && name !== undefined && sub === undefined && method === 'GET') {
      const doc = documents.get(name);
      if (!doc) return error(res, 404, 54100, `Document ${name} not found`);
      return send(res, 200, {
        sid: name,
        unique_name: name,
        account_sid: options.accountSid,
        service_sid: options.serviceSid,
        revision: String(doc.revision),
        data: doc.data,
        date_expires: null,
        date_created: iso(now()),
        date_updated: iso(now()),
        created_by: 'system',
      });
    }
    return error(res, 404, 20404, `No stand-in for ${method} ${url.pathname}`);
  }

  /** Requests being answered now, and when the last one came or went (settled, below). */
  let inFlight = 0;
  let lastSeen = Date.now();
  const server: Server = createServer((req, res) => {
    inFlight++;
    lastSeen = Date.now();
    handle(req, res)
      .catch((err: unknown) => error(res, 500, 20500, String(err)))
      .finally(() => {
        inFlight--;
        lastSeen = Date.now();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    async settled(quietMs = 50) {
      const asked = Date.now();
      while (inFlight > 0 || Date.now() - Math.max(lastSeen, asked) < quietMs)
        await new Promise((r) => setTimeout(r, 10));
    },
    requests,
    maps,
    lists,
    documents,
    recordings,
    told,
    changed,
    placed,
    callStatuses,
    conferences,
    calls,
    participants,
    get aclEnabled() {
      return state.aclEnabled;
    },
    set aclEnabled(on: boolean) {
      state.aclEnabled = on;
    },
    get syncWebhooks() {
      return state.syncWebhooks;
    },
    set syncWebhooks(on: boolean) {
      state.syncWebhooks = on;
    },
    get webhookUrl() {
      return state.webhookUrl;
    },
    set webhookUrl(url: string | null) {
      state.webhookUrl = url;
    },
    permissionsOf(kind, name) {
      return Object.fromEntries(permissions.get(`${kind}:${name}`) ?? []);
    },
    setPermission(kind, name, identity, p) {
      const id = `${kind}:${name}`;
      permissions.set(id, (permissions.get(id) ?? new Map<string, Permission>()).set(identity, p));
    },
    setMapItem(map, key, data, ttlSeconds) {
      let items = maps.get(map);
      if (!items) maps.set(map, (items = new Map()));
      items.set(key, {
        data,
        revision: 0,
        expiresAt: ttlSeconds ? now() + ttlSeconds * 1000 : null,
      });
    },
    setDocument(name, data) {
      documents.set(name, { data, revision: 0, expiresAt: null });
    },
    pushListItem(list, data) {
      let items = lists.get(list);
      if (!items) lists.set(list, (items = new Map()));
      const index = items.size === 0 ? 0 : Math.max(...items.keys()) + 1;
      items.set(index, { data, revision: 0, expiresAt: null });
      return index;
    },
    listData(list) {
      return [...(lists.get(list)?.values() ?? [])].map((item) => item.data);
    },
    failNext(count, status) {
      burst.count = count;
      burst.status = status;
    },
    failWith(status) {
      failing = status;
    },
    delay(ms) {
      delayMs = ms;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
