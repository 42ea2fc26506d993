/** A code's expiry as the person's own clock shows it ("14:35"). */
export const formatClock = (ms: number): string =>
  new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
