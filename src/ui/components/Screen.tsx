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
