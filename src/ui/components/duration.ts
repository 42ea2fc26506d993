/**
 * The one way a running or past time reads on every screen (the call card, /hold, /history):
 * m:ss, h:mm:ss past an hour ("0:05", "12:40", "1:02:03"). A negative time reads as 0:00.
 */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, '0');
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}
