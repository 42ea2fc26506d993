import type { ServerResponse } from 'node:http';

const GSI = 'https://accounts.google.com/gsi/';

/**
 * The Content-Security-Policy: the app's own origin plus Google Identity Services, nothing else.
 * `extraOrigin` is the origin of SWITCHBOARD_GOOGLE_SCRIPT_URL when tests serve a stand-in GIS
 * script locally; `connect` are more places the page talks to (Twilio's Sync and Voice on that
 * backend).
 */
export function contentSecurityPolicy(
  extraOrigin: string | null,
  connect: readonly string[] = [],
): string {
  const extra = extraOrigin ? ` ${extraOrigin}` : '';
  const more = connect.map((source) => ` ${source}`).join('');
  return [
    "default-src 'self'",
    `script-src 'self' ${GSI}client${extra}`,
    `frame-src ${GSI}${extra}`,
    `connect-src 'self' ${GSI}${extra}${more}`,
    `style-src 'self' 'unsafe-inline' ${GSI}style${extra}`,
    "img-src 'self' data: https://*.googleusercontent.com",
    // Audio previews and recordings play from object URLs.
    "media-src 'self' blob: data:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers sent on every answer, errors and static files included. */
export function securityHeaders(
  extraOrigin: string | null,
  connect: readonly string[] = [],
): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(extraOrigin, connect),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cross-Origin-Opener-Policy': 'same-origin-allow-popups',
  };
}

export function applyHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
