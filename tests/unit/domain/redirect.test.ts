import { describe, expect, it } from 'vitest';
import { MAX_REDIRECT_LENGTH, safeRedirect } from '../../../src/domain/redirect';

const hostile: Array<[string, string | null | undefined]> = [
  ['null', null],
  ['undefined', undefined],
  ['empty', ''],
  ['protocol-relative', '//evil.com'],
  ['protocol-relative with path', '//evil.com/history'],
  ['triple slash', '///evil.com'],
  ['slash backslash', '/\\evil.com'],
  ['backslash backslash', '\\\\evil.com'],
  ['backslash anywhere', '/history\\..\\x'],
  ['https scheme', 'https://evil.com'],
  ['http scheme', 'http://evil.com/history'],
  ['javascript scheme', 'javascript:alert(1)'],
  ['javascript scheme, mixed case', 'JaVaScRiPt:alert(1)'],
  ['data scheme', 'data:text/html,<script>alert(1)</script>'],
  ['relative path without slash', 'history'],
  ['leading space', ' /history'],
  ['leading tab', '\t/history'],
  ['tab after the slash', '/\t/evil.com'],
  ['newline inside', '/hist\nory'],
  ['carriage return inside', '/hist\rory'],
  ['NUL inside', '/hist\u0000ory'],
  ['DEL inside', '/hist\u007fory'],
  ['encoded slashes', '/%2F%2Fevil.com'],
  ['encoded slashes lower case', '/%2f%2fevil.com'],
  ['encoded backslash', '/%5Cevil.com'],
  ['encoded tab', '/%09/evil.com'],
  ['encoded newline', '/%0a/evil.com'],
  ['encoded NUL', '/%00'],
  ['double-encoded slashes', '/%252F%252Fevil.com'],
  ['triple-encoded slashes', '/%25252F%25252Fevil.com'],
  ['double-encoded backslash', '/%255Cevil.com'],
  ['malformed percent-encoding', '/history%'],
  ['malformed percent-encoding pair', '/%E0%A4%A'],
  ['encoded scheme after decoding', '%2F%2Fevil.com'],
  ['overlong value', `/${'a'.repeat(MAX_REDIRECT_LENGTH)}`],
  ['the login screen itself', '/login'],
  ['the login screen with a redirect', '/login?redirect=%2Fhistory'],
  ['the login screen, other case and slash', '/LOGIN/'],
  ['user info trick', '//user@evil.com'],
];

const good = [
  '/',
  '/history',
  '/history?x=1#y',
  '/admin/group/abc/edit',
  '/admin/group/abc/forwarding/create',
  '/contacts?q=smith%20%26%20co',
  '/setting#audio',
  '/hold?from=%2Fhistory',
  '/loginhelp',
];

describe('safeRedirect', () => {
  it.each(hostile)('sends %s to /', (_label, value) => {
    expect(safeRedirect(value)).toBe('/');
  });

  it.each(good)('keeps the same-origin path %s', (value) => {
    expect(safeRedirect(value)).toBe(value);
  });

  it('accepts a path exactly at the length limit', () => {
    const value = `/${'a'.repeat(MAX_REDIRECT_LENGTH - 1)}`;
    expect(safeRedirect(value)).toBe(value);
  });

  it('has at least 25 hostile cases', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(25);
  });
});
