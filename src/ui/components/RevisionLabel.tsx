/**
 * The build's short commit id at the bottom of every screen ("dev" outside git), in the page's
 * footer landmark so that nothing on the page sits outside a landmark.
 */
export function RevisionLabel() {
  return (
    <footer className="revision" data-testid="revision" title={`Build ${__REVISION__}`}>
      {__REVISION__}
    </footer>
  );
}
