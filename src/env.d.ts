/** Replaced at build time with the short commit id (see vite.config.ts). */
declare const __REVISION__: string;
