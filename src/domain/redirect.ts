/** Longest `redirect` value we follow; longer ones are treated as hostile. */
export const MAX_REDIRECT_LENGTH = 2048;

const FALLBACK = '/';
const BASE = 'http://x.invalid';
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Checks one spelling of the value (raw or decoded) for the shapes browsers read as another origin. */
function looksLocal(value: string): boolean {
  if (!value.startsWith('/')) return false;
  if (value.startsWith('//')) return false;
  if (value.includes('\\')) return false;
  if (CONTROL_CHARACTERS.test(value)) return false;
  return true;
}

function isLoginPath(pathname: string): boolean {
  return pathname.replace(/\/+$/, '').toLowerCase() === '/login';
}

/**
 * The path to go to after sign-in: `value` when it is a same-origin path, else `/`.
 *
 * Refuses protocol-relative (`//host`, `/\host`), schemes (`https:`, `javascript:`, `data:`),
 * backslashes, control characters (tab, newline, NUL ...), the same tricks percent-encoded once or
 * more, values over {@link MAX_REDIRECT_LENGTH}, and /login itself (it would loop).
 */
export function safeRedirect(value: string | null | undefined): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_REDIRECT_LENGTH)
    return FALLBACK;

  // Decode until stable so double-encoded tricks (%252F%252F) are seen in their final form.
  let spelling = value;
  for (let round = 0; round < 5; round += 1) {
    if (!looksLocal(spelling)) return FALLBACK;
    let decoded: string;
    try {
      decoded = decodeURIComponent(spelling);
    } catch {
      return FALLBACK;
    }
    if (decoded === spelling) break;
    if (round === 4) return FALLBACK;
    spelling = decoded;
  }

  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return FALLBACK;
  }
  if (url.origin !== BASE) return FALLBACK;
  if (isLoginPath(url.pathname)) return FALLBACK;
  return value;
}
