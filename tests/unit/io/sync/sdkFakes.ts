/** EventEmitter-shaped stand-ins for twilio-sync objects, as the bridges see them. */
import { EventEmitter } from 'node:events';

export class FakeSdkContainer extends EventEmitter {
  lastEventId = 3;
  revision = '3';
  dateUpdated: Date | null = new Date(5_000);
  closed = 0;
  /** Mirrors twilio-sync's private tombstone cache (see bridges/convert.ts). */
  tombstones = new Map<unknown, { lastEventId: number }>();
  syncListImpl = { cache: { items: this.tombstones } };
  syncMapImpl = { cache: { items: this.tombstones } };
  close() {
    this.closed += 1;
  }
  /** Listeners on every event name, whoever added them. */
  totalListeners() {
    return this.eventNames().reduce((n, name) => n + this.listenerCount(name), 0);
  }
}

export class FakeSdkDocument extends FakeSdkContainer {}

export class FakeSdkClient extends EventEmitter {
  connectionState: string = 'connecting';
  tokens: string[] = [];
  shutdowns = 0;
  updateTokenError: Error | null = null;
  async updateToken(token: string) {
    await Promise.resolve();
    if (this.updateTokenError) throw this.updateTokenError;
    this.tokens.push(token);
  }
  async shutdown() {
    await Promise.resolve();
    this.shutdowns += 1;
  }
  totalListeners() {
    return this.eventNames().reduce((n, name) => n + this.listenerCount(name), 0);
  }
}

export const sdkItem = (fields: { index?: number; key?: string; lastEventId: number }) => ({
  ...fields,
  data: { v: fields.lastEventId },
  revision: `r${fields.lastEventId}`,
  dateUpdated: new Date(1_000 + fields.lastEventId),
  dateExpires: '2030-01-01T00:00:00.000Z',
});
