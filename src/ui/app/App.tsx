import { RouterProvider } from 'react-router-dom';
import type { DataRouter } from 'react-router-dom';
import { RevisionLabel } from '../components/RevisionLabel';
import { ToastRegion } from '../components/ToastRegion';
import { ActorsProvider } from './actors';
import type { AppActors } from '../../app/page';

/** The root: actors for everyone, the routed screens, and the shell parts shown on every screen. */
export function App({ actors, router }: { actors: AppActors; router: DataRouter }) {
  return (
    <ActorsProvider actors={actors}>
      <RouterProvider router={router} />
      <ToastRegion />
      <RevisionLabel />
    </ActorsProvider>
  );
}
