import { isIP, type AddressInfo, type Server as NetServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isLoopbackHost } from '../config';

/**
 * Which `Host` names this server answers to. DNS rebinding points a hostile name at 127.0.0.1 so that a page
 * on that name becomes "same origin" with us; refusing every name we were not told about closes that door.
 *
 * Allowed, always: loopback names and addresses (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`): browsers
 * resolve them to this machine themselves, so no outside page can sit on them. Allowed too: the host names of
 * `PUBLIC_ORIGIN`, and the IP addresses this server listens on (every interface's address when it listens on a
 * wildcard such as 0.0.0.0). An IP literal cannot be rebound: a browser showing it talks to that very address.
 */
export interface HostPolicy {
  /** True when a request addressed to `host` (a Host or X-Forwarded-Host value, port included) may be served. */
  allows(host: string): boolean;
}

const INTERFACE_CACHE_MS = 5000;

export function createHostPolicy(options: {
  listenHost: string;
  publicHosts: readonly string[];
  /** Addresses of this machine (tests); default: os.networkInterfaces(), re-read at most every 5 s. */
  interfaceAddresses?: () => string[];
  now?: () => number;
}): HostPolicy {
  const publicHosts = new Set(options.publicHosts.map((h) => h.toLowerCase()));
  const listen = bare(options.listenHost);
  const wildcard = listen === '0.0.0.0' || listen === '::' || listen === '';
  const readInterfaces = options.interfaceAddresses ?? localAddresses;
  const now = options.now ?? Date.now;
  let cached: { at: number; addresses: Set<string> } | null = null;
  const ownAddresses = (): Set<string> => {
    const t = now();
    if (!cached || t - cached.at > INTERFACE_CACHE_MS) {
      cached = { at: t, addresses: new Set(readInterfaces().map((a) => a.toLowerCase())) };
    }
    return cached.addresses;
  };

  return {
    allows(host) {
      const name = hostname(host);
      if (name === null) return false;
      if (isLoopbackHost(name) || publicHosts.has(name)) return true;
      if (isIP(name) === 0) return false;
      if (name === listen) return true;
      return wildcard && ownAddresses().has(name);
    },
  };
}

/** The lower-cased host name of a `host[:port]` value (brackets stripped from IPv6), or null when malformed. */
export function hostname(host: string): string | null {
  const m = /^(?:([A-Za-z0-9.-]{1,253})|\[([0-9A-Fa-f:.]{2,45})\])(?::[0-9]{1,5})?$/.exec(host);
  if (!m) return null;
  return (m[1] ?? m[2] ?? '').toLowerCase().replace(/\.$/, '');
}

function bare(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '');
}

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) =>
    (list ?? []).map((i) => i.address.replace(/%.*$/, '')),
  );
}

/**
 * The address a server listening at `url` reaches itself at: its own, or loopback when it listens
 * on every address (`0.0.0.0`, `[::]`).
 */
export function selfAddress(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.origin;
}

/**
 * Starts `server` listening on `host` and `port` (0: a free one); resolves with the URL it is bound
 * at (`scheme://host:port`, an IPv6 host in brackets), or rejects with the listen error.
 */
export function listenAt(
  server: NetServer,
  port: number,
  host: string,
  scheme: 'http' | 'https',
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { address, port: bound } = server.address() as AddressInfo;
      resolve(`${scheme}://${address.includes(':') ? `[${address}]` : address}:${bound}`);
    });
  });
}
