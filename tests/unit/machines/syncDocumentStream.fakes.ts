/* eslint-disable @typescript-eslint/require-await -- the fakes answer like the async ports they replace */
import { fromPromise } from 'xstate';
import type {
  ContainerMeta,
  DocumentPort,
  DocumentState,
  ItemMetadata,
  JsonObject,
  Mutator,
  Opened,
  OpenRequest,
  StreamPort,
} from '../../../src/sync/ports';
import { notFound } from './syncFakes';

abstract class Recorder {
  calls: Array<{ method: string; args: unknown[] }> = [];
  failures = new Map<string, Error[]>();
  failNext(method: string, error: Error) {
    this.failures.set(method, [...(this.failures.get(method) ?? []), error]);
  }
  protected record(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
    const error = this.failures.get(method)?.shift();
    if (error) throw error;
  }
}

export class FakeDocument extends Recorder implements DocumentPort {
  readonly kind = 'document' as const;
  state: DocumentState = {
    data: { theme: 'light' },
    revision: 'r1',
    lastEventId: 1,
    dateUpdated: 1_001,
  };
  describe(): ContainerMeta {
    const { revision, lastEventId, dateUpdated } = this.state;
    return {
      sid: 'ET1',
      uniqueName: 'settings',
      revision,
      lastEventId,
      dateUpdated,
      dateExpires: null,
    };
  }
  data() {
    return this.state.data;
  }
  private write(data: JsonObject): DocumentState {
    const id = this.state.lastEventId + 1;
    this.state = { data, revision: `r${id}`, lastEventId: id, dateUpdated: 1_000 + id };
    return this.state;
  }
  async set(data: JsonObject, metadata?: ItemMetadata) {
    this.record('set', data, metadata);
    return this.write(data);
  }
  async update(data: JsonObject, metadata?: ItemMetadata) {
    this.record('update', data, metadata);
    return this.write({ ...this.state.data, ...data });
  }
  async mutate(mutator: Mutator, metadata?: ItemMetadata) {
    this.record('mutate', mutator, metadata);
    return this.write(mutator(this.state.data) ?? this.state.data);
  }
  async setTtl(ttl: number) {
    this.record('setTtl', ttl);
  }
  async removeDocument() {
    this.record('removeDocument');
  }
}

export class FakeStream extends Recorder implements StreamPort {
  readonly kind = 'stream' as const;
  published = 0;
  describe(): ContainerMeta {
    return {
      sid: 'TO1',
      uniqueName: 'ringing',
      revision: '',
      lastEventId: 0,
      dateUpdated: null,
      dateExpires: null,
    };
  }
  async publishMessage(data: JsonObject) {
    this.record('publishMessage', data);
    this.published += 1;
    return { sid: `TZ${this.published}`, data };
  }
  async setTtl(ttl: number) {
    this.record('setTtl', ttl);
  }
  async removeStream() {
    this.record('removeStream');
  }
}

/** open/create actors over one existing entity (or none). */
export function directoryOf(existing: DocumentPort | StreamPort | null) {
  return {
    open: fromPromise<Opened, OpenRequest>(async () => {
      if (!existing) throw notFound(54100);
      return { port: existing, source: existing };
    }),
    create: fromPromise<Opened, OpenRequest>(async () => {
      throw new Error('not expected');
    }),
  };
}
