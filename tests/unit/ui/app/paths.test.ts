import { describe, expect, it } from 'vitest';
import { isLoginPath, isValidRouteId, paths } from '../../../../src/ui/app/paths';
import { validateLocalSignIn } from '../../../../src/ui/routes/login/local-sign-in';

describe('paths', () => {
  it('builds the login path with the redirect percent-encoded', () => {
    expect(paths.login.build()).toBe('/login');
    expect(paths.login.build('/history?x=1#y')).toBe('/login?redirect=%2Fhistory%3Fx%3D1%23y');
  });

  it('percent-encodes ids so they cannot change the path', () => {
    expect(paths.adminGroupEdit.build('a/b?c')).toBe('/admin/group/a%2Fb%3Fc/edit');
    expect(paths.adminGroupForwardingCreate.build('g1')).toBe('/admin/group/g1/forwarding/create');
  });

  it('names every route of seed section 2 exactly once', () => {
    const patterns = Object.values(paths).map((p) => p.pattern);
    expect(new Set(patterns).size).toBe(patterns.length);
    expect(patterns).toEqual(
      expect.arrayContaining([
        '/',
        '/contacts',
        '/history',
        '/hold',
        '/users',
        '/admin',
        '/admin/audio',
        '/admin/audio/create',
        '/admin/calendar/:id/edit',
        '/admin/group',
        '/admin/group/create',
        '/admin/group/:id',
        '/admin/group/:id/edit',
        '/admin/group/:id/forwarding/create',
        '/admin/group/:id/guidance',
        '/admin/guidance',
        '/admin/guidance/create',
        '/admin/guidance/:id/edit',
        '/admin/schedule/:id/edit',
        '/login',
        '/setting',
      ]),
    );
  });

  it.each(['abc', 'G-1_x', 'a'.repeat(64)])('accepts the id %s', (id) =>
    expect(isValidRouteId(id)).toBe(true),
  );
  it.each([undefined, '', '-a', 'a b', 'a.b', 'a/b', 'é', 'a'.repeat(65)])(
    'refuses the id %s',
    (id) => expect(isValidRouteId(id)).toBe(false),
  );

  it('recognises /login however the router would match it', () => {
    expect(isLoginPath('/login')).toBe(true);
    expect(isLoginPath('/LOGIN/')).toBe(true);
    expect(isLoginPath('/login2')).toBe(false);
  });
});

describe('local sign-in validation', () => {
  const ok = { name: 'Ada', email: 'ada@example.com', passcode: '', code: '' };

  it('accepts a name and an email', () => expect(validateLocalSignIn(ok, false)).toEqual({}));
  it('asks for a name that is not only spaces', () =>
    expect(validateLocalSignIn({ ...ok, name: '   ' }, false)).toEqual({
      name: 'Enter your name.',
    }));
  it.each(['ada', 'ada@', '@example.com', 'ada@example', 'a da@example.com'])(
    'refuses the email %s',
    (email) =>
      expect(validateLocalSignIn({ ...ok, email }, false).email).toBe(
        'Enter an email address like name@example.com.',
      ),
  );
  it('refuses an overlong name', () =>
    expect(validateLocalSignIn({ ...ok, name: 'x'.repeat(101) }, false).name).toBe(
      'Use at most 100 characters.',
    ));
  it('asks for the passcode only when it is required', () => {
    expect(validateLocalSignIn(ok, true)).toEqual({ passcode: 'Enter the team passcode.' });
    expect(validateLocalSignIn({ ...ok, passcode: 's3cret' }, true)).toEqual({});
  });
  it('asks for the 8-digit sign-in code only once the server asked for it', () => {
    const message = 'Enter the 8-digit sign-in code from an admin or the server’s terminal.';
    expect(validateLocalSignIn({ ...ok, code: '' }, false, true)).toEqual({ code: message });
    expect(validateLocalSignIn({ ...ok, code: '1234' }, false, true)).toEqual({ code: message });
    expect(validateLocalSignIn({ ...ok, code: ' 12345678 ' }, false, true)).toEqual({});
    expect(validateLocalSignIn({ ...ok, code: '' }, false, false)).toEqual({});
  });
});
