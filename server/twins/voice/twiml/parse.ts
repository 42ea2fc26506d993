/**
 * A TwiML document read into the verbs the twin runs, checked against Twilio's TwiML reference
 * (https://www.twilio.com/docs/voice/twiml). Each verb, noun and attribute below cites the page it
 * comes from; docs/twins-voice.md is the conformance table.
 *
 * How the twin treats what Twilio's schema does not allow (warning 12200, "Schema validation
 * warning": misspelled or unknown verbs and attributes, unexpected nesting,
 * https://www.twilio.com/docs/api/errors/12200): an unknown attribute is a warning, kept in
 * `warnings` and otherwise ignored, as Twilio does; an unknown verb or noun, or a value out of its
 * documented range, is refused with a {@link TwimlError} naming it (Twilio's console shows 12200 and
 * the caller hears "an application error has occurred"): the twin is there to catch such TwiML
 * before a real caller meets it.
 */
import { parseXml, TwimlError, type XmlElement, type XmlNode } from './xml';

export { TwimlError } from './xml';

/** Twilio allows at most ten `<Client>` nouns in one `<Dial>` (https://www.twilio.com/docs/voice/twiml/client). */
export const MAX_CLIENTS_PER_DIAL = 10;

/**
 * A Voice identity: "Mobile SDKs cannot include any special characters and must only use
 * alphanumeric characters and underscore" (https://www.twilio.com/docs/voice/twiml/client); the
 * access token's identity follows the same rule for Voice.
 */
export const VOICE_IDENTITY = /^[A-Za-z0-9_]{1,256}$/;

/** `<Dial timeout>`: default 30 s (https://www.twilio.com/docs/voice/twiml/dial#timeout). */
export const DIAL_TIMEOUT_DEFAULT = 30;
/** Twilio lets a `<Dial>` ring 5 s longer than its timeout says (the same page). */
export const DIAL_TIMEOUT_BUFFER = 5;

export type StatusEvent = 'initiated' | 'ringing' | 'answered' | 'completed';
/** A conference's events (https://www.twilio.com/docs/voice/twiml/conference#attributes-statusCallbackEvent). */
export type ConferenceEvent =
  'start' | 'end' | 'join' | 'leave' | 'mute' | 'hold' | 'modify' | 'speaker' | 'announcement';

const CALL_EVENTS: readonly string[] = ['initiated', 'ringing', 'answered', 'completed'];
const CONFERENCE_EVENTS: readonly string[] = [
  'start',
  'end',
  'join',
  'leave',
  'mute',
  'hold',
  'modify',
  'speaker',
  'announcement',
];

export interface Callback {
  url: string;
  method: 'GET' | 'POST';
  events: readonly (StatusEvent | ConferenceEvent)[];
}

export type DialNoun =
  | {
      kind: 'client';
      identity: string;
      parameters: Readonly<Record<string, string>>;
      statusCallback: Callback | null;
    }
  | { kind: 'number'; number: string; statusCallback: Callback | null }
  | {
      kind: 'conference';
      name: string;
      startConferenceOnEnter: boolean;
      endConferenceOnExit: boolean;
      beep: boolean;
      waitUrl: string | null;
      /** How `waitUrl` is asked: POST by default, GET "for static audio files" (the same page). */
      waitMethod: 'GET' | 'POST';
      statusCallback: Callback | null;
    };

export type Verb =
  | { verb: 'Say'; text: string; voice: string | null; language: string | null; loop: number }
  | { verb: 'Play'; url: string; loop: number }
  | { verb: 'Pause'; seconds: number }
  | {
      verb: 'Dial';
      nouns: readonly DialNoun[];
      action: string | null;
      method: 'GET' | 'POST';
      /** Seconds the callees ring, as written (Twilio adds {@link DIAL_TIMEOUT_BUFFER}). */
      timeout: number;
      answerOnBridge: boolean;
      callerId: string | null;
      timeLimit: number;
    }
  | {
      verb: 'Record';
      action: string | null;
      method: 'GET' | 'POST';
      maxLength: number;
      timeout: number;
      finishOnKey: string;
      playBeep: boolean;
      recordingStatusCallback: Callback | null;
    }
  | { verb: 'Redirect'; url: string; method: 'GET' | 'POST' }
  | { verb: 'Reject'; reason: 'rejected' | 'busy' }
  | { verb: 'Hangup' };

export interface Parsed {
  verbs: readonly Verb[];
  /** Unknown attributes Twilio would warn about (12200) and ignore. */
  warnings: readonly string[];
}

const refuse = (message: string): never => {
  throw new TwimlError(12200, `Schema validation: ${message}`);
};

const elements = (node: XmlElement): XmlElement[] =>
  node.children.filter((c): c is XmlElement => 'name' in c);

const textOf = (node: XmlElement): string =>
  node.children
    .filter((c): c is { text: string } => 'text' in c)
    .map((c) => c.text)
    .join('')
    .trim();

function noChildren(node: XmlElement): void {
  const inner = elements(node)[0];
  if (inner) refuse(`<${inner.name}> is not allowed in <${node.name}>`);
}

/** Reads a verb's attributes: the known ones by name, the rest a warning each. */
function attrs(node: XmlElement, known: readonly string[], warnings: string[]) {
  for (const name of Object.keys(node.attributes))
    if (!known.includes(name))
      warnings.push(`Attribute '${name}' is not allowed to appear in element '${node.name}'.`);
  const get = (name: string): string | undefined => node.attributes[name];
  return {
    string: (name: string): string | null => get(name) ?? null,
    bool(name: string, fallback: boolean): boolean {
      const v = get(name);
      if (v === undefined) return fallback;
      if (v === 'true') return true;
      if (v === 'false') return false;
      return refuse(`${node.name} ${name}="${v}" is not true or false`);
    },
    int(name: string, fallback: number, min: number, max: number): number {
      const v = get(name);
      if (v === undefined) return fallback;
      const n = Number(v);
      if (!/^-?\d+$/.test(v.trim()) || n < min || n > max)
        return refuse(`${node.name} ${name}="${v}" is not a whole number from ${min} to ${max}`);
      return n;
    },
    method(name = 'method'): 'GET' | 'POST' {
      const v = get(name) ?? 'POST';
      if (v !== 'GET' && v !== 'POST') return refuse(`${node.name} ${name}="${v}"`);
      return v;
    },
    callback(prefix: string, events: string | null, allowed = CALL_EVENTS): Callback | null {
      const url = get(prefix);
      if (url === undefined) return null;
      const listed = (get(events ?? '') ?? '').split(/[\s,]+/).filter(Boolean);
      for (const e of listed)
        if (!allowed.includes(e)) refuse(`${node.name} ${events}="${e}" is not a status event`);
      const method = get(`${prefix}Method`) ?? 'POST';
      if (method !== 'GET' && method !== 'POST') refuse(`${node.name} ${prefix}Method="${method}"`);
      // Without statusCallbackEvent, Twilio sends `completed` only (a conference: start and end).
      const chosen = (
        listed.length ? listed : allowed === CALL_EVENTS ? ['completed'] : ['start', 'end']
      ) as Callback['events'];
      return { url, method: method as 'GET' | 'POST', events: chosen };
    },
  };
}

// https://www.twilio.com/docs/voice/twiml/client#attributes
const CLIENT_ATTRS = [
  'url',
  'method',
  'statusCallback',
  'statusCallbackEvent',
  'statusCallbackMethod',
];

function client(node: XmlElement, warnings: string[]): DialNoun {
  const a = attrs(node, CLIENT_ATTRS, warnings);
  const parts = elements(node);
  let identity = '';
  const parameters: Record<string, string> = {};
  if (parts.length === 0) identity = textOf(node);
  for (const part of parts) {
    if (part.name === 'Identity') identity = textOf(part);
    else if (part.name === 'Parameter') {
      // https://www.twilio.com/docs/voice/twiml/parameter: name and value.
      const name = part.attributes.name;
      if (!name) refuse('<Parameter> has no name');
      parameters[name!] = part.attributes.value ?? '';
    } else refuse(`<${part.name}> is not allowed in <Client>`);
  }
  if (!VOICE_IDENTITY.test(identity))
    refuse(
      `<Client> identity "${identity}" is not 1 to 256 letters, digits or underscores (Twilio's Voice identity rule)`,
    );
  return {
    kind: 'client',
    identity,
    parameters,
    statusCallback: a.callback('statusCallback', 'statusCallbackEvent'),
  };
}

function dial(node: XmlElement, warnings: string[]): Verb {
  // https://www.twilio.com/docs/voice/twiml/dial#attributes
  const a = attrs(
    node,
    [
      'action',
      'method',
      'timeout',
      'answerOnBridge',
      'callerId',
      'timeLimit',
      'hangupOnStar',
      'record',
      'ringTone',
    ],
    warnings,
  );
  const nouns: DialNoun[] = [];
  const inner = elements(node);
  if (inner.length === 0) {
    const number = textOf(node);
    if (!number) refuse('<Dial> has nothing to dial');
    nouns.push({ kind: 'number', number, statusCallback: null });
  }
  for (const n of inner) {
    if (n.name === 'Client') nouns.push(client(n, warnings));
    else if (n.name === 'Number') {
      // https://www.twilio.com/docs/voice/twiml/number#attributes
      const na = attrs(n, CLIENT_ATTRS.concat(['sendDigits']), warnings);
      nouns.push({
        kind: 'number',
        number: textOf(n),
        statusCallback: na.callback('statusCallback', 'statusCallbackEvent'),
      });
    } else if (n.name === 'Conference') {
      // https://www.twilio.com/docs/voice/twiml/conference#attributes
      const ca = attrs(
        n,
        [
          'muted',
          'beep',
          'startConferenceOnEnter',
          'endConferenceOnExit',
          'waitUrl',
          'waitMethod',
          'maxParticipants',
          'statusCallback',
          'statusCallbackEvent',
          'statusCallbackMethod',
          'participantLabel',
        ],
        warnings,
      );
      nouns.push({
        kind: 'conference',
        name: textOf(n),
        startConferenceOnEnter: ca.bool('startConferenceOnEnter', true),
        endConferenceOnExit: ca.bool('endConferenceOnExit', false),
        beep: ca.string('beep') !== 'false',
        waitUrl: ca.string('waitUrl'),
        waitMethod: ca.method('waitMethod'),
        statusCallback: ca.callback('statusCallback', 'statusCallbackEvent', CONFERENCE_EVENTS),
      });
    } else refuse(`<${n.name}> is not allowed in <Dial>`);
  }
  const clients = nouns.filter((n) => n.kind === 'client').length;
  if (clients > MAX_CLIENTS_PER_DIAL)
    refuse(`<Dial> has ${clients} <Client> nouns; Twilio allows ${MAX_CLIENTS_PER_DIAL}`);
  if (nouns.some((n) => n.kind === 'conference') && nouns.length > 1)
    refuse('<Conference> must be the only noun in its <Dial>');
  return {
    verb: 'Dial',
    nouns,
    action: a.string('action'),
    method: a.method(),
    timeout: a.int('timeout', DIAL_TIMEOUT_DEFAULT, 1, 600),
    answerOnBridge: a.bool('answerOnBridge', false),
    callerId: a.string('callerId'),
    timeLimit: a.int('timeLimit', 14400, 1, 14400),
  };
}

function verb(node: XmlElement, warnings: string[]): Verb {
  switch (node.name) {
    case 'Say': {
      // https://www.twilio.com/docs/voice/twiml/say#attributes
      const a = attrs(node, ['voice', 'language', 'loop'], warnings);
      noChildren(node);
      return {
        verb: 'Say',
        text: textOf(node),
        voice: a.string('voice'),
        language: a.string('language'),
        loop: a.int('loop', 1, 0, 1000),
      };
    }
    case 'Play': {
      // https://www.twilio.com/docs/voice/twiml/play#attributes
      const a = attrs(node, ['loop', 'digits'], warnings);
      noChildren(node);
      const url = textOf(node);
      if (!url) refuse('<Play> has no URL');
      return { verb: 'Play', url, loop: a.int('loop', 1, 0, 1000) };
    }
    case 'Pause': {
      // https://www.twilio.com/docs/voice/twiml/pause: length, default 1 s.
      const a = attrs(node, ['length'], warnings);
      noChildren(node);
      return { verb: 'Pause', seconds: a.int('length', 1, 0, 600) };
    }
    case 'Dial':
      return dial(node, warnings);
    case 'Record': {
      // https://www.twilio.com/docs/voice/twiml/record#attributes
      const a = attrs(
        node,
        [
          'action',
          'method',
          'timeout',
          'finishOnKey',
          'maxLength',
          'playBeep',
          'trim',
          'recordingStatusCallback',
          'recordingStatusCallbackMethod',
          'recordingStatusCallbackEvent',
          'transcribe',
          'transcribeCallback',
        ],
        warnings,
      );
      noChildren(node);
      const finishOnKey = a.string('finishOnKey') ?? '1234567890*#';
      if (!/^[0-9*#]*$/.test(finishOnKey)) refuse(`Record finishOnKey="${finishOnKey}"`);
      const events = (a.string('recordingStatusCallbackEvent') ?? 'completed')
        .split(/[\s,]+/)
        .filter(Boolean);
      const url = a.string('recordingStatusCallback');
      return {
        verb: 'Record',
        action: a.string('action'),
        method: a.method(),
        maxLength: a.int('maxLength', 3600, 1, 14400),
        timeout: a.int('timeout', 5, 0, 3600),
        finishOnKey,
        playBeep: a.bool('playBeep', true),
        recordingStatusCallback: url
          ? {
              url,
              method: a.method('recordingStatusCallbackMethod'),
              events: events as StatusEvent[],
            }
          : null,
      };
    }
    case 'Redirect': {
      // https://www.twilio.com/docs/voice/twiml/redirect
      const a = attrs(node, ['method'], warnings);
      noChildren(node);
      const url = textOf(node);
      if (!url) refuse('<Redirect> has no URL');
      return { verb: 'Redirect', url, method: a.method() };
    }
    case 'Reject': {
      // https://www.twilio.com/docs/voice/twiml/reject: reason "rejected" (default) or "busy".
      const a = attrs(node, ['reason'], warnings);
      noChildren(node);
      const reason = a.string('reason') ?? 'rejected';
      if (reason !== 'rejected' && reason !== 'busy') refuse(`Reject reason="${reason}"`);
      return { verb: 'Reject', reason: reason as 'rejected' | 'busy' };
    }
    case 'Hangup':
      attrs(node, [], warnings);
      noChildren(node);
      return { verb: 'Hangup' };
    default:
      return refuse(`<${node.name}> is not a TwiML verb this twin runs`);
  }
}

/**
 * Reads a TwiML document. Throws {@link TwimlError}: 12100 for XML that does not parse, 12102 when
 * the root is not `<Response>` (https://www.twilio.com/docs/api/errors/12102), 12200 for TwiML the
 * twin refuses to run (see the module comment).
 */
export function parseTwiml(source: string): Parsed {
  const root = parseXml(source);
  if (root.name !== 'Response') throw new TwimlError(12102, 'The root element must be Response');
  const warnings: string[] = [];
  const verbs: Verb[] = [];
  for (const child of root.children as XmlNode[]) {
    if ('text' in child) {
      if (child.text.trim() !== '') refuse('text directly inside <Response>');
      continue;
    }
    verbs.push(verb(child, warnings));
  }
  return { verbs, warnings };
}
