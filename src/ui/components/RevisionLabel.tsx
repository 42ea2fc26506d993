/** The build's short commit id at the bottom right of every screen ("dev" outside git). */
export function RevisionLabel() {
  return (
    <div className="revision" data-testid="revision" title={`Build ${__REVISION__}`}>
      {__REVISION__}
    </div>
  );
}
