/**
 * The call controls, in one list: the changes to a call the person on it asks the server for (the
 * Voice SDK has none; the server moves the call's legs through Twilio's REST API). Each is an `/api`
 * route (src/contracts/api.ts spreads them in); the server carries each out by the same name
 * (server/calls/voice-routes.ts `CallControls`), the browser sends each by it
 * (src/app/mutators/calls.ts), and the call machine's events and the other tabs' mirror are named
 * from it (`call.<control>`: src/machines/call.setup.ts, src/io/voice/mirror.ts).
 */
import * as v from 'valibot';
import { body, route, type AnySchema, type Route } from './api-route';
import { ParkedCallSchema } from './records/hold';

/** A transfer asked for: to whom (a name, email, extension or number), blind or after talking. */
const TransferBody = body({
  to: v.pipe(
    v.string('Say who to transfer the call to.'),
    v.maxLength(200, 'Say who to transfer the call to.'),
  ),
  mode: v.picklist(['blind', 'consult'], 'mode must be "blind" or "consult".'),
});
export type TransferRequest = v.InferOutput<typeof TransferBody>;

/** A parked call as the server reports it (the `holds` item with its key). */
const ParkAnswer = v.object({ parked: ParkedCallSchema });

export const CALL_CONTROLS = {
  hold: route('POST', '/api/voice/calls/:sid/hold', null, null),
  resume: route('POST', '/api/voice/calls/:sid/resume', null, null),
  park: route('POST', '/api/voice/calls/:sid/park', null, ParkAnswer),
  transfer: route('POST', '/api/voice/calls/:sid/transfer', TransferBody, null),
  /** A consult's target has been talked to: the caller goes to them. */
  completeTransfer: route('POST', '/api/voice/calls/:sid/transfer/complete', null, null),
  /** A consult called off: the caller comes back. */
  cancelTransfer: route('POST', '/api/voice/calls/:sid/transfer/cancel', null, null),
};

export type CallControl = keyof typeof CALL_CONTROLS;
export const CALL_CONTROL_NAMES = Object.keys(CALL_CONTROLS) as CallControl[];

/** The controls that need nothing but the call (every one but `transfer`, which says to whom). */
export type PlainCallControl = {
  [C in CallControl]: (typeof CALL_CONTROLS)[C]['body'] extends null ? C : never;
}[CallControl];

/** What carrying out control `C` is given beyond the call: its route's body, if it has one. */
export type CallControlArgs<C extends CallControl> =
  (typeof CALL_CONTROLS)[C]['body'] extends AnySchema
    ? [v.InferOutput<(typeof CALL_CONTROLS)[C]['body']>]
    : [];

/** What control `C` answers: its route's answer, or nothing (204). */
export type CallControlAnswer<C extends CallControl> =
  (typeof CALL_CONTROLS)[C] extends Route<'POST', string, AnySchema | null, infer A>
    ? A extends AnySchema
      ? v.InferInput<A>
      : void
    : never;
