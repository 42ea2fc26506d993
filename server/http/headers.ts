import type { ServerResponse } from 'node:http';

const GSI = 'https://accounts.google.com/gsi/';

/**
 * The Content-Security-Policy: the app's own origin plus Google Identity Services, nothing else.
 * `extraOrigin` is the origin of SWITCHBOARD_GOOGLE_SCRIPT_URL when tests serve a stand-in GIS
 * script locally.
 */
export function contentSecurityPolicy(extraOrigin: string | null): string {
  const extra = extraOrigin ? ` ${extraOrigin}` : '';
  return [
    "default-src 'self'",
    `script-src 'self' ${GSI}client${extra}`,
    `frame-src ${GSI}${extra}`,
    `connect-src 'self' ${GSI}${extra}`,
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
export function securityHeaders(extraOrigin: string | null): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(extraOrigin),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cross-Origin-Opener-Policy': 'same-origin-allow-popups',
  };
}

export function applyHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
