/**
 * The signed-in person's lifetime in one place (no React): their Sync runtime with the containers
 * everyone shares opened once (`users`, `presence`, `holds`, `groups`, `team-settings`, their `settings:{identity}`;
 * others are opened on demand through {@link Workspace.sync} and shared, see containers.ts), their
 * presence, their phone, the Sync client's toasts, and sign-out.
 *
 * The page root (page.ts) starts one when a session has a user and stops it when the session ends
 * (signed out, expired). Sign-out asks {@link Workspace.leave} first: the phone hangs up and
 * unregisters and the presence item is withdrawn before the server is asked. When the sign-out
 * does not happen (refused, or never answered: SIGN_OUT_TIMEOUT) the session comes back to
 * `signedIn`, and the workspace comes back with it: the phone and the presence heartbeat start
 * again. That is the only way either restarts.
 *
 * React only reads it: providers hand the workspace down, hooks subscribe to it. Long-lived actors
 * carry a systemId (`session`, `toast`, `syncClient`, `map:users`…, `presenceHeartbeat`, `phone`).
 */
import { GROUPS, HOLDS, PRESENCE, SETTINGS, TEAM, USERS } from '../contracts/objects';
import { setIssueSink } from '../contracts/record';
import { settingsRecord } from '../contracts/records/settings';
import type { ApiClient } from '../io/api/client';
import { selectDocumentData, selectDocumentStatus } from '../machines/syncDocument.selectors';
import { SETTINGS_DOCUMENT, SHARED_MAP, type Lease } from './containers';
import type { SessionActor } from '../machines/session.machine';
import type { ToastActor } from '../machines/toast.machine';
import { startPhone, type Phone, type PhoneHandle, type StartVoice } from './phone';
import { runPresence, type PresenceHandle, type PresenceRunner } from './presence';
import { startSyncScope, type SyncScope } from './sync-scope';
import { suggestTeamCountry, TEAM_DOCUMENT } from './team';
import type { StartSyncRuntime } from './sync-runtime';
import type { SessionUser } from '../contracts/api-session';

export interface WorkspaceSnapshot {
  presence: PresenceHandle;
  phone: PhoneHandle;
}

export interface Workspace {
  readonly user: SessionUser;
  /** The Sync runtime and the containers over it (screens open theirs here). */
  readonly sync: SyncScope;
  getSnapshot: () => WorkspaceSnapshot;
  /** Calls `listener` whenever the snapshot changes; returns the unsubscribe. */
  subscribe: (listener: () => void) => () => void;
  /** Sign-out's first step: the phone hung up and unregistered, the presence item withdrawn. */
  leave(): Promise<void>;
  /** Everything stopped: the session ended. */
  stop(): void;
}

/** How a workspace starts its parts; tests swap them. */
export interface WorkspaceOptions {
  startSync?: StartSyncRuntime;
  /** null: no phone (tests of screens that do not need one). */
  startVoice?: StartVoice | null;
  /** The page, for the phone's foreground re-check. */
  doc?: Document | null;
}

export interface WorkspaceDeps extends WorkspaceOptions {
  session: SessionActor;
  toast: ToastActor;
  api: ApiClient;
  user: SessionUser;
}

// Stored data that no longer matches its contract is read tolerantly (src/contracts/record.ts) and
// never rewritten silently: each distinct reason is told once, here in the console.
setIssueSink((record, issue) => {
  const what = issue.dropped ? 'left out' : 'kept as stored';
  console.warn(
    `A stored ${record} does not match its contract: ${issue.field || 'the whole value'} ${what} (${issue.reason}).`,
  );
});

/** The maps every signed-in screen may show, opened once for the workspace's life. */
const SHARED_MAPS = [USERS.name, PRESENCE.name, HOLDS.name, GROUPS.name] as const;

const NO_PRESENCE: PresenceHandle = { actor: undefined, problem: null };
const NO_PHONE: PhoneHandle = { runtime: null, problem: null };

export function startWorkspace({
  session,
  toast,
  api,
  user,
  startSync,
  startVoice,
  doc,
}: WorkspaceDeps): Workspace {
  const identity = user.identity;
  const listeners = new Set<() => void>();
  let snapshot: WorkspaceSnapshot = { presence: NO_PRESENCE, phone: NO_PHONE };
  let presence: PresenceRunner | null = null;
  let phone: Phone | null = null;
  let leaving = false;
  let stopped = false;
  const held: Lease<unknown>[] = [];
  const cleanups: (() => void)[] = [];

  const changed = () => {
    const next = {
      presence: presence?.get() ?? NO_PRESENCE,
      phone: phone?.get() ?? NO_PHONE,
    };
    if (next.presence === snapshot.presence && next.phone === snapshot.phone) return;
    snapshot = next;
    for (const listener of [...listeners]) listener();
  };

  const sync = startSyncScope({ api, session, toast, ...(startSync ? { start: startSync } : {}) });

  phone =
    startVoice === null
      ? null
      : startPhone({
          identity,
          api,
          toast,
          ...(startVoice ? { start: startVoice } : {}),
          ...(doc === undefined ? {} : { doc }),
          onChange: changed,
        });

  /** Once the runtime is up: the shared containers, presence on its map, the phone's settings. */
  function openShared(): void {
    if (stopped || held.length > 0) return;
    const maps = SHARED_MAPS.map((name) => sync.open('map', name, SHARED_MAP));
    const settings = sync.open('document', SETTINGS.name(identity), SETTINGS_DOCUMENT);
    const team = sync.open('document', TEAM.name, TEAM_DOCUMENT);
    for (const lease of [...maps, settings, team]) if (lease) held.push(lease);
    if (team && user.role === 'admin' && typeof navigator !== 'undefined')
      cleanups.push(suggestTeamCountry(team.actor, navigator.languages ?? [navigator.language]));
    const presenceMap = maps[SHARED_MAPS.indexOf(PRESENCE.name)];
    if (!presenceMap || !settings) return;
    let doNotDisturb = false;
    presence = runPresence({
      api,
      identity,
      map: presenceMap.actor,
      onChange: changed,
      doNotDisturb: () => doNotDisturb,
    });
    if (leaving) void presence.withdraw();
    // The phone follows the audio choices of the person's settings as they change, and their
    // presence shows their do-not-disturb to colleagues.
    const follow = () => {
      const doc = settings.actor.getSnapshot();
      if (selectDocumentStatus(doc) !== 'ready') return;
      const read = settingsRecord.read(selectDocumentData(doc) ?? {});
      phone?.useSettings(read);
      if (read.doNotDisturb !== doNotDisturb) {
        doNotDisturb = read.doNotDisturb;
        presence?.doNotDisturbChanged();
      }
    };
    const subscription = settings.actor.subscribe(follow);
    follow();
    cleanups.push(() => subscription.unsubscribe());
    changed();
  }
  cleanups.push(sync.subscribe(openShared));
  openShared();

  // A sign-out that did not happen: the session is back, and so is the person.
  const watch = session.subscribe((s) => {
    if (!leaving || !s.matches('signedIn')) return;
    leaving = false;
    phone?.rejoin();
    presence?.rejoin();
  });
  cleanups.push(() => watch.unsubscribe());

  return {
    user,
    sync,
    getSnapshot: () => snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async leave() {
      leaving = true;
      await Promise.all([phone?.leave(), presence?.withdraw()]);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      for (const cleanup of cleanups.splice(0)) cleanup();
      presence?.stop();
      phone?.stop();
      for (const lease of held.splice(0)) lease.release();
      sync.stop();
      listeners.clear();
    },
  };
}
