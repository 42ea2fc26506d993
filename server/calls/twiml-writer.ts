/**
 * A TwiML document writer for the verbs and nouns routing uses (Say, Play, Dial with Client,
 * Number and Conference, Record, Redirect, Reject, Hangup). It writes what the `twilio` package's VoiceResponse writes, the
 * same elements, attributes in the order given, the same escaping (a test compares the two), at a
 * small part of its cost: VoiceResponse builds an xmlbuilder DOM for every answer, which was most of
 * a webhook's time under load (docs/performance.md, "routing").
 */

type Value = string | number | boolean | readonly string[];
export type Attributes = Readonly<Record<string, Value | undefined>>;

const TEXT: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '\r': '&#xD;',
};
const ATTRIBUTE: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

const text = (value: string): string => value.replace(/[&<>\r]/g, (c) => TEXT[c]!);
const attribute = (value: string): string => value.replace(/[&<"\t\n\r]/g, (c) => ATTRIBUTE[c]!);

function attributes(attrs: Attributes): string {
  let out = '';
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    const written = Array.isArray(value) ? value.join(' ') : String(value);
    out += ` ${name}="${attribute(written)}"`;
  }
  return out;
}

const element = (name: string, attrs: Attributes, body?: string): string =>
  body === undefined
    ? `<${name}${attributes(attrs)}/>`
    : `<${name}${attributes(attrs)}>${body}</${name}>`;

/** A noun inside `<Dial>`. */
export type DialNoun =
  | { client: string; attrs: Attributes; parameters: Readonly<Record<string, string>> }
  | { number: string; attrs: Attributes }
  | { conference: string; attrs: Attributes };

export class Twiml {
  private body = '';

  say(attrs: Attributes, words: string): this {
    this.body += element('Say', attrs, text(words));
    return this;
  }

  play(attrs: Attributes, url: string): this {
    this.body += element('Play', attrs, text(url));
    return this;
  }

  dial(attrs: Attributes, nouns: readonly DialNoun[]): this {
    let inner = '';
    for (const noun of nouns) {
      if ('client' in noun) {
        let client = element('Identity', {}, text(noun.client));
        for (const [name, value] of Object.entries(noun.parameters))
          client += element('Parameter', { name, value });
        inner += element('Client', noun.attrs, client);
      } else if ('number' in noun) inner += element('Number', noun.attrs, text(noun.number));
      else inner += element('Conference', noun.attrs, text(noun.conference));
    }
    this.body += element('Dial', attrs, inner);
    return this;
  }

  record(attrs: Attributes): this {
    this.body += element('Record', attrs);
    return this;
  }

  reject(attrs: Attributes): this {
    this.body += element('Reject', attrs);
    return this;
  }

  redirect(attrs: Attributes, url: string): this {
    this.body += element('Redirect', attrs, text(url));
    return this;
  }

  hangup(): this {
    this.body += '<Hangup/>';
    return this;
  }

  toString(): string {
    return `<?xml version="1.0" encoding="UTF-8"?>${this.body === '' ? '<Response/>' : `<Response>${this.body}</Response>`}`;
  }
}
