/**
 * Who may do what in Sync, on every backend: the rules of server/identity/policy.ts
 * (`objectAccess`, from the catalogue in src/contracts/objects.ts), granted as Sync's per-object
 * permissions. The service must have ACL on, so a token's identity can touch no object it holds no
 * permission for; this server (the API key) is not bound by permissions.
 *
 * - At start (`check`): ACL must be on (the server refuses to start otherwise) and the shared objects
 *   exist; browsers cannot create objects under ACL, so the server makes every object they open.
 * - Then (`reconcile`, in the background): every object the rules name holds exactly what each person
 *   on the team may do, and nothing for anyone else (someone removed while this server was down).
 * - Per person (`update`, on sign-in, role change and removal; `ready`, before a Sync token is handed
 *   out): their permissions follow their role now, and all of them go when they leave the team. The
 *   work is queued per person, in order, and the role is read when the work runs, so a removal is never
 *   undone by a grant queued before it.
 * - A ring group's schedule, calendar and forwarding list are made here when an admin creates the
 *   group (`createGroupObjects`), and granted to the team.
 */
import {
  CALENDARS,
  GROUP_OBJECTS,
  lookUpObject,
  NAMED_OBJECTS,
  SCHEDULES,
  SETTINGS,
  type ObjectFamily,
} from '../../src/contracts/objects';
import type { JsonObject } from '../../src/contracts/record';
import type { Calendar } from '../../src/contracts/records/calendar';
import { NO_ACCESS, objectAccess, type ObjectAccess } from '../identity/policy';
import { HttpError } from '../platform/http/errors';
import type { TwilioClient } from './client';
import { pathKey, restStatus } from './sync-rest';
import type { Role } from '../../src/contracts/roles';

export type SyncObjectKind = 'document' | 'list' | 'map';
export interface SyncObjectRef {
  kind: SyncObjectKind;
  name: string;
}

const isRefKind = (kind: string): kind is SyncObjectKind =>
  kind === 'document' || kind === 'list' || kind === 'map';

/** What the browsers open that is everyone's (the catalogue's named objects): made by the server at start. */
export const SHARED_OBJECTS: readonly SyncObjectRef[] = NAMED_OBJECTS.flatMap(({ kind, name }) =>
  isRefKind(kind) ? [{ kind, name }] : [],
);

/** The objects this module grants: every object of the catalogue (the shared ones and the families). */
export function isGranted(ref: SyncObjectRef): boolean {
  return lookUpObject(ref.name, ref.kind) !== null;
}

/** A family's object for one group or person, as this module addresses it. */
function refOf(family: ObjectFamily, id: string): SyncObjectRef {
  if (!isRefKind(family.kind)) throw new Error(`${family.prefix}* is not granted per object`);
  return { kind: family.kind, name: family.name(id) };
}

/** What a new group's own objects hold when the server makes them: its hours, no holidays. */
function initialData(family: ObjectFamily, schedule: JsonObject): JsonObject | undefined {
  if (family === SCHEDULES) return schedule;
  if (family === CALENDARS) return { holidays: [] } satisfies Calendar;
  return undefined;
}

/** The Sync REST calls the permissions need (the `twilio` package's, below; the stand-in in tests). */
export interface SyncAclRest {
  aclEnabled(): Promise<boolean>;
  /** Creates the object; false when one of that name exists already. */
  create(ref: SyncObjectRef, data?: JsonObject): Promise<boolean>;
  /** Nothing when it is already gone. */
  remove(ref: SyncObjectRef): Promise<void>;
  /** The unique names of every object of a kind. */
  names(kind: SyncObjectKind): Promise<string[]>;
  /** Who holds what on an object. */
  permissions(ref: SyncObjectRef): Promise<Map<string, ObjectAccess>>;
  /** Sets an identity's permission; all false removes it (nothing when it is already gone). */
  setPermission(ref: SyncObjectRef, identity: string, access: ObjectAccess): Promise<void>;
}

const notFound = (err: unknown): boolean => restStatus(err) === 404;

interface PermissionEndpoint {
  list(): Promise<{ identity: string; read: boolean; write: boolean; manage: boolean }[]>;
  update(identity: string, access: ObjectAccess): Promise<unknown>;
  remove(identity: string): Promise<unknown>;
}

export function createSyncAclRest(client: TwilioClient, serviceSid: string): SyncAclRest {
  const service = () => client.sync.v1.services(serviceSid);
  const endpoint = (ref: SyncObjectRef): PermissionEndpoint => {
    const name = pathKey(ref.name);
    const page = { pageSize: 100 };
    switch (ref.kind) {
      case 'document': {
        const doc = () => service().documents(name);
        return {
          list: () => doc().documentPermissions.list(page),
          update: (identity, access) => doc().documentPermissions(pathKey(identity)).update(access),
          remove: (identity) => doc().documentPermissions(pathKey(identity)).remove(),
        };
      }
      case 'list': {
        const list = () => service().syncLists(name);
        return {
          list: () => list().syncListPermissions.list(page),
          update: (identity, access) =>
            list().syncListPermissions(pathKey(identity)).update(access),
          remove: (identity) => list().syncListPermissions(pathKey(identity)).remove(),
        };
      }
      case 'map': {
        const map = () => service().syncMaps(name);
        return {
          list: () => map().syncMapPermissions.list(page),
          update: (identity, access) => map().syncMapPermissions(pathKey(identity)).update(access),
          remove: (identity) => map().syncMapPermissions(pathKey(identity)).remove(),
        };
      }
    }
  };

  return {
    async aclEnabled() {
      return (await service().fetch()).aclEnabled === true;
    },
    async create(ref, data) {
      try {
        if (ref.kind === 'document')
          await service().documents.create({ uniqueName: ref.name, ...(data ? { data } : {}) });
        else if (ref.kind === 'list') await service().syncLists.create({ uniqueName: ref.name });
        else await service().syncMaps.create({ uniqueName: ref.name });
        return true;
      } catch (err) {
        if (restStatus(err) === 409) return false;
        throw err;
      }
    },
    async remove(ref) {
      const name = pathKey(ref.name);
      try {
        if (ref.kind === 'document') await service().documents(name).remove();
        else if (ref.kind === 'list') await service().syncLists(name).remove();
        else await service().syncMaps(name).remove();
      } catch (err) {
        if (!notFound(err)) throw err;
      }
    },
    async names(kind) {
      const page = { pageSize: 100 };
      const all =
        kind === 'document'
          ? await service().documents.list(page)
          : kind === 'list'
            ? await service().syncLists.list(page)
            : await service().syncMaps.list(page);
      return all.flatMap((o) => (o.uniqueName ? [o.uniqueName] : []));
    },
    async permissions(ref) {
      const out = new Map<string, ObjectAccess>();
      for (const p of await endpoint(ref).list())
        out.set(p.identity, { read: p.read, write: p.write, manage: p.manage });
      return out;
    },
    async setPermission(ref, identity, access) {
      const e = endpoint(ref);
      if (access.read || access.write || access.manage) {
        await e.update(identity, access);
        return;
      }
      try {
        await e.remove(identity);
      } catch (err) {
        if (!notFound(err)) throw err;
      }
    },
  };
}

const same = (a: ObjectAccess, b: ObjectAccess): boolean =>
  a.read === b.read && a.write === b.write && a.manage === b.manage;

/** Every granted object in the service and, during a reconcile, who held what on each. */
interface View {
  objects: SyncObjectRef[];
  held?: Map<string, Map<string, ObjectAccess>>;
  /** The write count when `held` was read: a person written since is written in full. */
  since?: number;
}
const keyOf = (ref: SyncObjectRef): string => `${ref.kind}:${ref.name}`;

export interface SyncAcl {
  /**
   * At start: rejects, with what the operator must do, when the service's ACL is off (or it cannot be
   * read); then makes sure the shared objects exist.
   */
  check(): Promise<void>;
  /** Makes every granted object hold exactly what the team may do; failures are logged. */
  reconcile(): Promise<void>;
  /**
   * Brings this person's permissions to what their role gives now (none when off the team); resolves
   * once the first try has ended (a failure is tried again later).
   */
  update(identity: string): Promise<void>;
  /** Resolves once this person holds what their role gives (granted now if needed); rejects if not. */
  ready(identity: string): Promise<void>;
  /**
   * Makes a new ring group's schedule (with these hours), calendar and forwarding list and grants them
   * to the team. 409 when an object of those names exists (nothing is left made).
   */
  createGroupObjects(groupId: string, schedule: JsonObject): Promise<void>;
  /** Removes a ring group's own objects (their permissions go with them); the names of those left. */
  removeGroupObjects(groupId: string): Promise<string[]>;
  /** Resolves once the work queued so far has been tried (tests, shutdown). */
  settled(): Promise<void>;
  /** Stops retrying, then waits for what is under way. */
  close(): Promise<void>;
}

/** At most this many permission requests in flight (Twilio limits requests per second). */
const CONCURRENCY = 6;

export function createSyncAcl(
  rest: SyncAclRest,
  deps: {
    serviceSid: string;
    /** The person's role now (the app database), or null when they are not on the team. */
    roleOf: (identity: string) => Role | null;
    /** Everyone on the team now. */
    team: () => readonly string[];
    log: (message: string) => void;
  },
): SyncAcl {
  const { roleOf, log } = deps;
  const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

  /** The role whose permissions this process last gave each person in full (null: none at all). */
  const applied = new Map<string, Role | null>();
  /** A count bumped as each person's permission writes start and end, and its value at their last. */
  let writes = 0;
  const lastWrite = new Map<string, number>();
  /** The last job queued per person: the next waits for it. */
  const queues = new Map<string, Promise<void>>();
  let reconciling: Promise<void> = Promise.resolve();

  let running = 0;
  const waiting: (() => void)[] = [];
  async function limited<T>(work: () => Promise<T>): Promise<T> {
    if (running >= CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  }
  const each = <T>(items: readonly T[], work: (item: T) => Promise<void>) =>
    Promise.all(items.map((item) => limited(() => work(item))));

  function queue(identity: string, what: string, work: () => Promise<void>): Promise<void> {
    const next = (queues.get(identity) ?? Promise.resolve())
      .then(work)
      .catch((err: unknown) =>
        log(`Twilio Sync permissions: ${what} for ${identity} failed: ${message(err)}`),
      )
      .finally(() => {
        if (queues.get(identity) === next) queues.delete(identity);
      });
    queues.set(identity, next);
    return next;
  }

  async function listObjects(): Promise<SyncObjectRef[]> {
    const out: SyncObjectRef[] = [];
    for (const kind of ['map', 'list', 'document'] as const)
      for (const name of await rest.names(kind))
        if (isGranted({ kind, name })) out.push({ kind, name });
    return out;
  }

  /** Gives `identity` what their role gives now on every granted object (only the differences when `view` says who holds what). */
  async function apply(identity: string, view?: View): Promise<void> {
    const role = roleOf(identity);
    // Of the people's own objects, only theirs: nobody else holds anything on them.
    const settings = refOf(SETTINGS, identity);
    const objects = (view ?? { objects: await listObjects() }).objects.filter(
      (o) => SETTINGS.idOf(o.name) === null || o.name === settings.name,
    );
    if (role !== null && !objects.some((o) => o.name === settings.name)) {
      // The browser opens its settings with open_or_create, which ACL does not allow it to create.
      await rest.create(settings, {});
      objects.push(settings);
    }
    // What was read before is only trusted if nothing was written for this person since.
    const held =
      view?.held && (lastWrite.get(identity) ?? 0) <= (view.since ?? 0) ? view.held : null;
    lastWrite.set(identity, ++writes);
    await each(objects, async (ref) => {
      const want = objectAccess(ref, identity, role);
      if (held && same(want, held.get(keyOf(ref))?.get(identity) ?? NO_ACCESS)) return;
      try {
        await rest.setPermission(ref, identity, want);
      } catch (err) {
        // Removed meanwhile (a group deleted): its permissions went with it.
        if (!notFound(err)) throw err;
      }
    }).finally(() => lastWrite.set(identity, ++writes));
    applied.set(identity, role);
  }

  const current = (identity: string): boolean =>
    applied.has(identity) && applied.get(identity) === roleOf(identity);

  /**
   * Queues bringing `identity` up to date; a failure is tried again later (1, 2, 4, 8, 16 s), so a
   * removal that met a Twilio hiccup still takes their access away.
   */
  const retries = new Set<NodeJS.Timeout>();
  let closed = false;
  function follow(identity: string, attempt = 0): Promise<void> {
    return queue(identity, 'update', async () => {
      if (!current(identity)) await apply(identity);
    }).then(() => {
      if (closed || current(identity) || attempt >= 5) return;
      const timer = setTimeout(
        () => {
          retries.delete(timer);
          void follow(identity, attempt + 1);
        },
        1000 * 2 ** attempt,
      );
      timer.unref();
      retries.add(timer);
    });
  }

  async function settled(): Promise<void> {
    await reconciling;
    while (queues.size > 0) await Promise.all([...queues.values()]);
  }

  return {
    async check() {
      let enabled: boolean;
      try {
        enabled = await rest.aclEnabled();
      } catch (err) {
        throw new Error(
          `could not read the Twilio Sync service ${deps.serviceSid} (${message(err)}); the server checks that its ACL is on before it starts`,
        );
      }
      if (!enabled)
        throw new Error(
          `the Twilio Sync service ${deps.serviceSid} has ACL off, so any signed-in browser could change every object (the users directory, call history, ring groups). ` +
            `Turn it on (Twilio Console → Sync → Services → ${deps.serviceSid} → "ACL", or POST AclEnabled=true to https://sync.twilio.com/v1/Services/${deps.serviceSid}) and start again; ` +
            'this server then grants each person what they may do (docs/operations.md, "Running on Twilio").',
        );
      for (const ref of SHARED_OBJECTS) await rest.create(ref);
    },

    reconcile() {
      reconciling = (async () => {
        const since = writes;
        const objects = await listObjects();
        const held = new Map<string, Map<string, ObjectAccess>>();
        await each(objects, async (ref) => {
          held.set(keyOf(ref), await rest.permissions(ref));
        });
        const people = new Set(deps.team());
        for (const holders of held.values())
          for (const identity of holders.keys()) people.add(identity);
        await Promise.all(
          [...people].map((identity) =>
            queue(identity, 'reconcile', () => apply(identity, { objects, held, since })),
          ),
        );
      })().catch((err: unknown) =>
        log(`Twilio Sync permissions: reconcile failed: ${message(err)}`),
      );
      return reconciling;
    },

    update(identity) {
      return queues.has(identity) || !current(identity) ? follow(identity) : Promise.resolve();
    },

    async ready(identity) {
      await reconciling;
      if (queues.has(identity) || !current(identity))
        await queue(identity, 'grant', async () => {
          if (!current(identity)) await apply(identity);
        });
      if (roleOf(identity) === null || !current(identity))
        throw new HttpError(
          503,
          'upstream_error',
          'Your access to Twilio Sync could not be set up just now; try again in a moment',
        );
    },

    async createGroupObjects(groupId, schedule) {
      const families: readonly ObjectFamily[] = GROUP_OBJECTS;
      const objects = families.map((family) => refOf(family, groupId));
      const made: SyncObjectRef[] = [];
      try {
        for (const [i, ref] of objects.entries()) {
          if (!(await rest.create(ref, initialData(families[i]!, schedule))))
            throw new HttpError(
              409,
              'group_exists',
              `A ring group's objects named ${ref.name} exist already; try again`,
            );
          made.push(ref);
        }
      } catch (err) {
        for (const ref of made)
          await rest
            .remove(ref)
            .catch((e: unknown) => log(`Twilio Sync: removing ${ref.name} failed: ${message(e)}`));
        throw err;
      }
      // Each person's grant is queued behind their earlier work and uses their role when it runs.
      let failed = false;
      await Promise.all(
        deps.team().map((identity) =>
          queue(identity, 'group grant', async () => {
            const role = roleOf(identity);
            if (role === null) return;
            lastWrite.set(identity, ++writes);
            try {
              await each(objects, (ref) =>
                rest.setPermission(ref, identity, objectAccess(ref, identity, role)),
              );
            } catch (err) {
              failed = true;
              throw err;
            } finally {
              lastWrite.set(identity, ++writes);
            }
          }),
        ),
      );
      if (failed) {
        // Half-granted objects help nobody: they go, and the admin tries again.
        for (const ref of objects)
          await rest
            .remove(ref)
            .catch((e: unknown) => log(`Twilio Sync: removing ${ref.name} failed: ${message(e)}`));
        throw new HttpError(
          503,
          'upstream_error',
          'Twilio Sync did not take the new group’s permissions; try again in a moment',
        );
      }
    },

    async removeGroupObjects(groupId) {
      const left: string[] = [];
      for (const family of GROUP_OBJECTS) {
        const ref = refOf(family, groupId);
        await rest.remove(ref).catch((e: unknown) => {
          log(`Twilio Sync: removing ${ref.name} failed: ${message(e)}`);
          left.push(ref.name);
        });
      }
      return left;
    },

    settled,

    async close() {
      closed = true;
      for (const timer of retries) clearTimeout(timer);
      retries.clear();
      await settled();
    },
  };
}
