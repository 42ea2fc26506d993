/** What a person may do on the team: an admin also manages people, groups and announcements. */
export const ROLES = ['admin', 'agent'] as const;
export type Role = (typeof ROLES)[number];
