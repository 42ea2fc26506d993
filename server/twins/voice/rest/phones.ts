/**
 * The twins' phone network, reached by tests and by a person rehearsing on `twilio-twins`: a route
 * of the twin's own (Twilio has none: its phones are real ones), under `/twilio/phones/` on the
 * server carrying the twins, with the account's credentials (HTTP Basic, as the REST API takes
 * them), form-encoded bodies and JSON answers, errors as Twilio's `{code, message, more_info,
 * status}`. docs/twins-voice.md ("The phone network") lists the phones and these routes.
 *
 * - `GET /twilio/phones`: the phones, their numbers and what each does.
 * - `POST /twilio/phones/Calls` with `From` (a phone's number) and `To` (one of the account's
 *   numbers): the phone calls it; 201 with the call. 21212 for a `From` that is not a phone, 21211
 *   for a `To` the account does not have.
 * - `GET /twilio/phones/Calls` (`Phone=` one phone's): its calls, newest first; `GET
 *   /twilio/phones/Calls/{CallSid}`: one, with what the phone heard over the last second (`heard`:
 *   `level`, the loudest frequency `toneHz`, `packets`) while it is in progress.
 * - `POST /twilio/phones/Calls/{CallSid}/Digits` with `Digits` (0-9, *, #): the phone presses
 *   them, sent in-band; 21220 when the call is not in progress.
 * - `POST /twilio/phones/Calls/{CallSid}/Hangup`: the phone hangs up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PhoneScript } from '../phones';
import { RestError, type CallStatus } from './resources';
import { authorised, readForm, sendRestError, type Credentials } from './routes';

export interface PhoneCallView {
  sid: string;
  phone: string;
  other: string;
  direction: 'to-phone' | 'from-phone';
  status: CallStatus;
  heard: { level: number; toneHz: number | null; packets: number } | null;
}

/** What the route asks of the phone network (twiml/number.ts). */
export interface PhoneNetwork {
  phones: readonly PhoneScript[];
  call(from: string, to: string): Promise<PhoneCallView>;
  list(phone: string | null): PhoneCallView[];
  get(callSid: string): PhoneCallView;
  digits(callSid: string, digits: string): Promise<void>;
  hangUp(callSid: string): void;
}

export const PHONES_PATH = '/phones';
const BODY_LIMIT = 16 * 1024;

/** Answers a request under `/phones` (the mount taken off); false for any other path. */
export function phonesRest(network: PhoneNetwork, credentials: Credentials) {
  async function route(req: IncomingMessage, url: URL): Promise<[number, unknown]> {
    const parts = url.pathname.slice(PHONES_PATH.length).split('/').filter(Boolean);
    const verb = req.method ?? 'GET';
    const [collection, id, action] = parts;
    if (collection === undefined && verb === 'GET')
      return [
        200,
        {
          phones: network.phones.map((p) => ({
            number: p.number,
            name: p.name,
            answer: p.answer,
            does: p.does,
          })),
        },
      ];
    if (collection === 'Calls' && id === undefined) {
      if (verb === 'GET') return [200, { calls: network.list(url.searchParams.get('Phone')) }];
      if (verb === 'POST') {
        const form = await readForm(req, BODY_LIMIT);
        const from = form.get('From') ?? '';
        const to = form.get('To') ?? '';
        if (!from) throw new RestError(400, 21603, "A 'From' phone number is required.");
        if (!to) throw new RestError(400, 21201, 'No called number is specified');
        return [201, await network.call(from, to)];
      }
    }
    if (collection === 'Calls' && id !== undefined && action === undefined && verb === 'GET')
      return [200, network.get(id)];
    if (collection === 'Calls' && id !== undefined && action === 'Digits' && verb === 'POST') {
      const digits = (await readForm(req, BODY_LIMIT)).get('Digits') ?? '';
      if (!/^[0-9*#]{1,32}$/.test(digits))
        throw new RestError(400, 20001, 'Digits must be 1 to 32 of 0-9, * and #');
      await network.digits(id, digits);
      return [200, network.get(id)];
    }
    if (collection === 'Calls' && id !== undefined && action === 'Hangup' && verb === 'POST') {
      network.hangUp(id);
      return [200, network.get(id)];
    }
    throw new RestError(404, 20404, `The requested resource ${url.pathname} was not found`);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://twin');
    if (url.pathname !== PHONES_PATH && !url.pathname.startsWith(`${PHONES_PATH}/`)) return false;
    try {
      if (!authorised(req, credentials))
        throw new RestError(401, 20003, 'Authentication Error - invalid username');
      const [status, body] = await route(req, url);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    } catch (err) {
      const e = err instanceof RestError ? err : new RestError(500, 20500, 'Internal Server Error');
      sendRestError(res, e.status, e.code, e.message);
    }
    return true;
  };
}
