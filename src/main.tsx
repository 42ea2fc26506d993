import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/base.css';
import { readFirstAnswers, withFirstAnswers } from './io/api/first-answers';
import { App } from './ui/app/App';
import { createAppActors, startAppActors } from './app/page';
import { revalidateOnReturn } from './app/revalidate';
import { renderWhenReady } from './ui/app/first-render';
import { createAppRouter } from './ui/app/router';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');

const actors = createAppActors({
  // The page carries the answers to its first requests (the session, the login options): no wait.
  fetch: withFirstAnswers(window.fetch.bind(window), readFirstAnswers(document)),
  currentPath: () => `${window.location.pathname}${window.location.search}${window.location.hash}`,
});
// Started before the router exists: its first guard run waits for the session restore.
startAppActors(actors);
revalidateOnReturn(actors, window, document);
const router = createAppRouter(actors);

const root = createRoot(container);
renderWhenReady(router, () =>
  root.render(
    <StrictMode>
      <App actors={actors} router={router} />
    </StrictMode>,
  ),
);
