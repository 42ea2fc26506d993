/**
 * The HTTP server's own settings (where it listens, what it serves, who it answers to, TLS) and the
 * helpers every feature's settings are read with. The app's whole configuration is assembled in
 * server/config.ts from these and the features' own.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ServerConfig {
  /** The address the server listens on; decides whether local sign-in is offered. */
  host: string;
  port: number;
  dataDir: string;
  /** The Vite build to serve. */
  distDir: string;
  /** Honour X-Forwarded-Proto/-Host from a TLS-terminating proxy in front of the server. */
  trustProxy: boolean;
  /** Host names from PUBLIC_ORIGIN: the names, besides loopback and this machine's addresses, it answers to. */
  publicHosts: string[];
  /** TLS_CERT and TLS_KEY (PEM file paths): the server speaks HTTPS and WSS itself. */
  tls: { certFile: string; keyFile: string } | null;
}

const repoRoot = resolve(import.meta.dirname, '../..');

/** A variable's trimmed value, or null when it is unset or blank. */
export function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== '' ? value.trim() : null;
}

/** An absolute http(s) URL from `name`, or `fallback` when unset; throws a readable error. */
export function httpUrl(env: Env, name: string, fallback: string): string {
  const value = nonEmpty(env[name]);
  if (value === null) return fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return url.href;
}

/** PORT: 0 to 65535 (0 picks a free port), `fallback` when unset; throws a readable error. */
export function parsePort(raw: string | undefined, fallback = 8080): number {
  const value = nonEmpty(raw);
  if (value === null) return fallback;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  }
  return Number(value);
}

/** HOST, PORT, SWITCHBOARD_DATA, SWITCHBOARD_DIST, SWITCHBOARD_TRUST_PROXY, PUBLIC_ORIGIN, TLS_CERT/TLS_KEY. */
export function serverConfigFromEnv(env: Env, cwd = process.cwd()): ServerConfig {
  return {
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    port: parsePort(env.PORT),
    dataDir: resolve(cwd, nonEmpty(env.SWITCHBOARD_DATA) ?? 'data'),
    distDir: resolve(cwd, nonEmpty(env.SWITCHBOARD_DIST) ?? resolve(repoRoot, 'dist')),
    trustProxy: /^(1|true|yes)$/i.test(env.SWITCHBOARD_TRUST_PROXY ?? ''),
    publicHosts: publicHosts(env.PUBLIC_ORIGIN),
    tls: tlsFiles(env, cwd),
  };
}

function tlsFiles(env: Env, cwd: string): ServerConfig['tls'] {
  const cert = nonEmpty(env.TLS_CERT);
  const key = nonEmpty(env.TLS_KEY);
  if (cert === null && key === null) return null;
  if (cert === null || key === null)
    throw new Error('TLS_CERT and TLS_KEY go together: set both (PEM files) or neither');
  return { certFile: resolve(cwd, cert), keyFile: resolve(cwd, key) };
}

/** PUBLIC_ORIGIN: comma-separated http(s) origins people use to reach the server, e.g. `https://phone.example.com`. */
function publicHosts(raw: string | undefined): string[] {
  const value = nonEmpty(raw);
  if (value === null) return [];
  return value.split(',').map((part) => {
    const origin = part.trim();
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new Error(
        `PUBLIC_ORIGIN must list absolute http(s) origins separated by commas, got ${JSON.stringify(origin)}`,
      );
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/') {
      throw new Error(
        `PUBLIC_ORIGIN entries must be origins like https://phone.example.com, got ${JSON.stringify(origin)}`,
      );
    }
    return url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  });
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost: only this machine can reach the server. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped?.[1] !== undefined && mapped[1].startsWith('127.');
  }
  return false;
}
