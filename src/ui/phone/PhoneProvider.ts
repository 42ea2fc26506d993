/**
 * @deprecated The phone is the workspace's (src/app/phone.ts); import `usePhone` and `useDial` from
 * `./phone`. Kept so screens written against the old provider still build.
 */
export { useDial, usePhone } from './phone';
