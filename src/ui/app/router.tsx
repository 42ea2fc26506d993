import {
  createBrowserRouter,
  data,
  Outlet,
  type DataRouter,
  type LoaderFunctionArgs,
  type RouteObject,
  useParams,
} from 'react-router-dom';
import type { ComponentType } from 'react';
import { RouteError } from '../components/RouteError';
import { Splash } from '../components/Splash';
import { createConfigLoader } from '../routes/login/config-loader';
import { Component as LoginScreen } from '../routes/login/LoginScreen';
import type { AppActors } from '../../app/page';
import { createAdminGuard, createRootGuard, type RouterRef } from './guard';
import { isValidRouteId, paths } from './paths';

/** Malformed `{id}` params are "not found" before any screen loads. */
function requireValidId({ params }: LoaderFunctionArgs): null {
  // React Router's idiom: a thrown response renders the nearest ErrorBoundary.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  if (!isValidRouteId(params.id)) throw data('No such item', { status: 404 });
  return null;
}

const always = (): boolean => true;

/**
 * A screen of one thing (`{id}`) starts afresh when the id changes (React Router keeps a route's
 * component mounted from /admin/group/a/edit to /admin/group/b/edit): its editor and form belong
 * to one thing.
 */
function byId(load: () => Promise<{ Component: ComponentType }>) {
  return async () => {
    const screen = await load();
    const Screen = screen.Component;
    return {
      ...screen,
      Component: function ScreenOfOne() {
        const { id = '' } = useParams();
        return <Screen key={id} />;
      },
    };
  };
}

/**
 * All routes of seed section 2, each screen its own lazy chunk except /login: it is where every
 * signed-out visit starts, so its screen (6 KB) is part of the main script and its first render
 * waits for no other file (docs/performance.md). Admin and settings nest inside the
 * main layout so the top bar, side nav and (later) the softphone stay mounted while navigating.
 */
export function createRoutes(actors: AppActors, router: RouterRef): RouteObject[] {
  return [
    {
      id: 'root',
      loader: createRootGuard(actors, router),
      shouldRevalidate: always,
      HydrateFallback: Splash,
      ErrorBoundary: RouteError,
      Component: Outlet,
      children: [
        {
          path: paths.login.pattern,
          loader: createConfigLoader(actors.api),
          Component: LoginScreen,
        },
        {
          path: paths.home.pattern,
          lazy: () => import('../routes/main/MainLayout'),
          children: [
            {
              // Errors inside a screen render inside the layout, so the navigation stays usable.
              ErrorBoundary: RouteError,
              children: [
                { index: true, lazy: () => import('../routes/contacts/ContactsScreen') },
                {
                  path: paths.contacts.pattern,
                  lazy: () => import('../routes/contacts/ContactsScreen'),
                },
                {
                  path: paths.history.pattern,
                  lazy: () => import('../routes/history/HistoryScreen'),
                },
                { path: paths.hold.pattern, lazy: () => import('../routes/hold/HoldScreen') },
                { path: paths.users.pattern, lazy: () => import('../routes/users/UsersScreen') },
                {
                  id: 'admin',
                  path: paths.admin.pattern,
                  loader: createAdminGuard(actors),
                  shouldRevalidate: always,
                  lazy: () => import('../routes/admin/AdminLayout'),
                  children: adminRoutes(),
                },
                {
                  path: paths.settings.pattern,
                  lazy: () => import('../routes/setting/SettingsLayout'),
                  children: [
                    { index: true, lazy: () => import('../routes/setting/SettingsScreen') },
                  ],
                },
                { path: '*', lazy: () => import('../routes/NotFoundScreen') },
              ],
            },
          ],
        },
      ],
    },
  ];
}

function adminRoutes(): RouteObject[] {
  const withId = { loader: requireValidId };
  return [
    { index: true, lazy: () => import('../routes/admin/AdminOverview') },
    { path: paths.adminAudio.pattern, lazy: () => import('../routes/admin/audio/AudioListScreen') },
    {
      path: paths.adminAudioCreate.pattern,
      lazy: () => import('../routes/admin/audio/AudioCreateScreen'),
    },
    {
      path: paths.adminCalendarEdit.pattern,
      ...withId,
      lazy: byId(() => import('../routes/admin/calendar/CalendarEditScreen')),
    },
    {
      path: paths.adminGroups.pattern,
      lazy: () => import('../routes/admin/group/GroupListScreen'),
    },
    {
      path: paths.adminGroupCreate.pattern,
      lazy: () => import('../routes/admin/group/GroupCreateScreen'),
    },
    {
      path: paths.adminGroup.pattern,
      ...withId,
      lazy: byId(() => import('../routes/admin/group/GroupDetailScreen')),
    },
    {
      path: paths.adminGroupEdit.pattern,
      ...withId,
      lazy: byId(() => import('../routes/admin/group/GroupEditScreen')),
    },
    {
      path: paths.adminGroupForwardingCreate.pattern,
      ...withId,
      lazy: byId(() => import('../routes/admin/group/ForwardingCreateScreen')),
    },
    {
      path: paths.adminGroupGuidance.pattern,
      ...withId,
      lazy: byId(() => import('../routes/admin/group/GroupGuidanceScreen')),
    },
    {
      path: paths.adminGuidance.pattern,
      lazy: () => import('../routes/admin/guidance/GuidanceListScreen'),
    },
    {
      path: paths.adminGuidanceCreate.pattern,
      lazy: () => import('../routes/admin/guidance/GuidanceCreateScreen'),
    },
    {
      path: paths.adminGuidanceEdit.pattern,
      ...withId,
      lazy: byId(() => import('../routes/admin/guidance/GuidanceEditScreen')),
    },
    {
      path: paths.adminScheduleEdit.pattern,
      ...withId,
      lazy: byId(() => import('../routes/admin/schedule/ScheduleEditScreen')),
    },
  ];
}

/**
 * The browser router, plus the wiring that re-runs the guard whenever the session is gained or
 * lost after the first restore (sign-in, sign-out, expiry), so redirects come from one place.
 */
export function createAppRouter(
  actors: AppActors,
  create: (routes: RouteObject[]) => DataRouter = createBrowserRouter,
): DataRouter {
  const ref: RouterRef = { current: null };
  const router = create(createRoutes(actors, ref));
  ref.current = router;
  let hadSession: boolean | null = null;
  actors.session.subscribe((snapshot) => {
    if (snapshot.matches('restoring')) return;
    const hasSession = snapshot.context.user !== null;
    if (hadSession !== null && hasSession !== hadSession) void router.revalidate();
    hadSession = hasSession;
  });
  return router;
}
