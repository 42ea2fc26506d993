/**
 * The voice twin's phone route (server/twins/voice/rest/phones.ts, docs/twins-voice.md "The phone
 * network"), as the tests ask it: a scripted phone calls a number, presses keys, hangs up, and says
 * what it hears. Asked with the account's credentials, as the twin requires.
 */

/** A scripted phone's call, as the route shows it. */
export interface PhoneCallView {
  sid: string;
  phone: string;
  other: string;
  direction: string;
  status: string;
  heard: { level: number; toneHz: number | null; packets: number } | null;
}

/** Where the twins answer (the server's origin, or an in-process service's) and the account. */
export interface TwinAccess {
  url: string;
  accountSid: string;
  authToken: string;
}

/** GET `path` of the phone route, or POST `form` to it: its status and JSON body. */
export async function askPhones(
  at: TwinAccess,
  path: string,
  form?: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${at.url}/twilio/phones${path}`, {
    method: form ? 'POST' : 'GET',
    headers: {
      authorization: `Basic ${Buffer.from(`${at.accountSid}:${at.authToken}`).toString('base64')}`,
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** As {@link askPhones}, its body; a refusal is thrown, with the route's answer. */
export async function phonesOrThrow(
  at: TwinAccess,
  path: string,
  form?: Record<string, string>,
): Promise<unknown> {
  const { status, body } = await askPhones(at, path, form);
  if (status < 200 || status >= 300)
    throw new Error(`phone route ${path}: ${status} ${JSON.stringify(body)}`);
  return body;
}
