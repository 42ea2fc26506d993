import type { ReactNode } from 'react';

/** A screen's frame: the document title, the h1 and the content. */
export function Screen({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className="screen" aria-labelledby="screen-title">
      <title>{`${title} · Switchboard`}</title>
      <h1 id="screen-title">{title}</h1>
      {children}
    </section>
  );
}

/**
 * The honest empty state of a screen whose content arrives in a later release: it says what the
 * screen will do and shows no data, because there is none yet.
 */
export function ComingSoon({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Screen title={title}>
      <div className="empty-state" data-testid="empty-state">
        <p className="empty-state__lead">Not available yet.</p>
        <p>{children}</p>
      </div>
    </Screen>
  );
}
