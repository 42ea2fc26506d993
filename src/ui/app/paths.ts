/**
 * Every route of seed section 2, as a `pattern` for the router and a `build` for links, so no path
 * is ever put together by hand. Ids are percent-encoded when built.
 */
const id = (value: string): string => encodeURIComponent(value);

export const paths = {
  home: { pattern: '/', build: () => '/' },
  contacts: { pattern: '/contacts', build: () => '/contacts' },
  history: { pattern: '/history', build: () => '/history' },
  hold: { pattern: '/hold', build: () => '/hold' },
  users: { pattern: '/users', build: () => '/users' },

  admin: { pattern: '/admin', build: () => '/admin' },
  adminAudio: { pattern: '/admin/audio', build: () => '/admin/audio' },
  adminAudioCreate: { pattern: '/admin/audio/create', build: () => '/admin/audio/create' },
  adminCalendarEdit: {
    pattern: '/admin/calendar/:id/edit',
    build: (calendarId: string) => `/admin/calendar/${id(calendarId)}/edit`,
  },
  adminGroups: { pattern: '/admin/group', build: () => '/admin/group' },
  adminGroupCreate: { pattern: '/admin/group/create', build: () => '/admin/group/create' },
  adminGroup: {
    pattern: '/admin/group/:id',
    build: (groupId: string) => `/admin/group/${id(groupId)}`,
  },
  adminGroupEdit: {
    pattern: '/admin/group/:id/edit',
    build: (groupId: string) => `/admin/group/${id(groupId)}/edit`,
  },
  adminGroupForwardingCreate: {
    pattern: '/admin/group/:id/forwarding/create',
    build: (groupId: string) => `/admin/group/${id(groupId)}/forwarding/create`,
  },
  adminGroupGuidance: {
    pattern: '/admin/group/:id/guidance',
    build: (groupId: string) => `/admin/group/${id(groupId)}/guidance`,
  },
  adminGuidance: { pattern: '/admin/guidance', build: () => '/admin/guidance' },
  adminGuidanceCreate: { pattern: '/admin/guidance/create', build: () => '/admin/guidance/create' },
  adminGuidanceEdit: {
    pattern: '/admin/guidance/:id/edit',
    build: (guidanceId: string) => `/admin/guidance/${id(guidanceId)}/edit`,
  },
  adminScheduleEdit: {
    pattern: '/admin/schedule/:id/edit',
    build: (scheduleId: string) => `/admin/schedule/${id(scheduleId)}/edit`,
  },

  /** `redirect` is the full original path (with query and hash) to return to after sign-in. */
  login: {
    pattern: '/login',
    build: (redirect?: string | null) =>
      redirect === undefined || redirect === null
        ? '/login'
        : `/login?redirect=${encodeURIComponent(redirect)}`,
  },
  settings: { pattern: '/setting', build: () => '/setting' },
} as const;

/** True for /login however it is spelled (case, trailing slash): the router matches all of them. */
export function isLoginPath(pathname: string): boolean {
  return pathname.replace(/\/+$/, '').toLowerCase() === paths.login.pattern;
}

/** Ids in routes: letters, digits, `-` and `_`, 1 to 64 characters. Anything else is "not found". */
export function isValidRouteId(value: string | undefined): value is string {
  return value !== undefined && /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(value);
}
