/**
 * The XML that TwiML documents are written in, read as Twilio reads it: a well-formed document or
 * error 12100 "Document parse failure" (https://www.twilio.com/docs/api/errors/12100: a leading
 * space or line before the XML declaration, an unclosed or improperly nested element, an unquoted
 * attribute, an unescaped `<` or `&`). Elements, attributes, text, CDATA, comments, the five named
 * entities and character references; no DTD (TwiML has none, and a DOCTYPE is refused so that no
 * entity can expand).
 */

export interface XmlElement {
  name: string;
  /** Attributes in document order (a repeated one is a parse failure, as in XML). */
  attributes: Readonly<Record<string, string>>;
  children: readonly XmlNode[];
}

export type XmlNode = XmlElement | { text: string };

/** A document Twilio would not run, with Twilio's error code. */
export class TwimlError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'TwimlError';
  }
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

const NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]*/;

const fail = (message: string): never => {
  throw new TwimlError(12100, `Document parse failure: ${message}`);
};

function decodeEntities(raw: string, where: string): string {
  if (raw.includes('<')) fail(`an unescaped '<' in ${where}`);
  return raw.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) return fail(`an unescaped '&' in ${where}`);
    if (ref.startsWith('#x') || ref.startsWith('#X')) {
      const code = Number.parseInt(ref.slice(2), 16);
      if (!/^[0-9a-fA-F]+$/.test(ref.slice(2)) || code > 0x10ffff)
        return fail(`a bad character reference &${ref}; in ${where}`);
      return String.fromCodePoint(code);
    }
    if (ref.startsWith('#')) {
      const code = Number(ref.slice(1));
      if (!/^[0-9]+$/.test(ref.slice(1)) || code > 0x10ffff)
        return fail(`a bad character reference &${ref}; in ${where}`);
      return String.fromCodePoint(code);
    }
    const named = NAMED[ref];
    return named ?? fail(`an unknown entity &${ref}; in ${where}`);
  });
}

/** Parses `source` into its root element, or throws {@link TwimlError} 12100. */
export function parseXml(source: string): XmlElement {
  let i = 0;
  const rest = (): string => source.slice(i);

  // Twilio refuses anything before the declaration (error 12100's first cause); a byte-order mark
  // is not "anything".
  if (source.startsWith('\ufeff')) i = 1;
  if (rest().startsWith('<?xml')) {
    const end = source.indexOf('?>', i);
    if (end < 0) fail('the XML declaration is not closed');
    i = end + 2;
  } else if (/^\s/.test(rest())) fail('space before the document starts');

  const skipMisc = (): void => {
    for (;;) {
      const ws = /^\s*/.exec(rest())![0];
      i += ws.length;
      if (rest().startsWith('<!--')) {
        const end = source.indexOf('-->', i + 4);
        if (end < 0) fail('a comment is not closed');
        i = end + 3;
      } else if (rest().startsWith('<?')) {
        const end = source.indexOf('?>', i);
        if (end < 0) fail('a processing instruction is not closed');
        i = end + 2;
      } else if (rest().startsWith('<!DOCTYPE')) {
        fail('a DOCTYPE (TwiML has none)');
      } else return;
    }
  };

  function element(): XmlElement {
    if (source[i] !== '<') fail(`expected an element at offset ${i}`);
    i += 1;
    const name = NAME.exec(rest())?.[0] ?? fail(`a bad element name at offset ${i}`);
    i += name.length;
    const attributes: Record<string, string> = {};
    for (;;) {
      const ws = /^\s*/.exec(rest())![0];
      i += ws.length;
      if (rest().startsWith('/>')) {
        i += 2;
        return { name, attributes, children: [] };
      }
      if (source[i] === '>') {
        i += 1;
        break;
      }
      if (ws === '') fail(`no space before an attribute of <${name}>`);
      const attr = NAME.exec(rest())?.[0] ?? fail(`a bad attribute in <${name}>`);
      i += attr.length;
      const eq = /^\s*=\s*/.exec(rest());
      if (!eq) fail(`attribute ${attr} of <${name}> has no value`);
      i += eq![0].length;
      const quote = source[i];
      if (quote !== '"' && quote !== "'") fail(`attribute ${attr} of <${name}> is not quoted`);
      const end = source.indexOf(quote!, i + 1);
      if (end < 0) fail(`attribute ${attr} of <${name}> is not closed`);
      if (Object.hasOwn(attributes, attr)) fail(`attribute ${attr} repeated in <${name}>`);
      attributes[attr] = decodeEntities(source.slice(i + 1, end), `attribute ${attr}`);
      i = end + 1;
    }
    const children: XmlNode[] = [];
    for (;;) {
      if (i >= source.length) fail(`<${name}> is not closed`);
      if (rest().startsWith('</')) {
        i += 2;
        const closing = NAME.exec(rest())?.[0] ?? '';
        if (closing !== name) fail(`</${closing}> closes <${name}>`);
        i += closing.length;
        const tail = /^\s*>/.exec(rest());
        if (!tail) fail(`</${name}> is not closed`);
        i += tail![0].length;
        return { name, attributes, children };
      }
      if (rest().startsWith('<!--')) {
        const end = source.indexOf('-->', i + 4);
        if (end < 0) fail('a comment is not closed');
        i = end + 3;
      } else if (rest().startsWith('<![CDATA[')) {
        const end = source.indexOf(']]>', i + 9);
        if (end < 0) fail('a CDATA section is not closed');
        children.push({ text: source.slice(i + 9, end) });
        i = end + 3;
      } else if (source[i] === '<') {
        children.push(element());
      } else {
        const end = source.indexOf('<', i);
        const raw = source.slice(i, end < 0 ? source.length : end);
        children.push({ text: decodeEntities(raw, `<${name}>`) });
        i += raw.length;
      }
    }
  }

  skipMisc();
  const root = element();
  skipMisc();
  if (i < source.length) fail('content after the root element');
  return root;
}
