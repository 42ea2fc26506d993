/**
 * JSON whose numbers read back as they were written. `JSON.parse` turns `1e99999` into Infinity (stored, and
 * sent back, as `null`), `1e-99999` into 0, `-0` into 0 and `12345678901234567890` into a neighbour; each
 * would silently change what a client stored. Those texts are refused instead.
 */
export class InexactNumberError extends SyntaxError {
  constructor(readonly literal: string) {
    super(
      `The number ${literal.length > 40 ? literal.slice(0, 40) + '…' : literal} cannot be stored exactly ` +
        '(it is out of range or has more precision than a JSON number keeps)',
    );
  }
}

/** `JSON.parse`, refusing (InexactNumberError) any number that would not read back as written. */
export function parseExactJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  const literal = firstInexactNumber(text);
  if (literal !== null) throw new InexactNumberError(literal);
  return value;
}

/** The first number literal in a valid JSON text that does not survive a parse and print, or null. */
export function firstInexactNumber(text: string): string | null {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip a string, escapes included.
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n && /[0-9eE.+-]/.test(text[j]!)) j++;
      const literal = text.slice(i, j);
      if (!readsBack(literal)) return literal;
      i = j;
    } else {
      i++;
    }
  }
  return null;
}

/** True when the decimal value of `literal` equals that of the shortest text of the double it parses to. */
function readsBack(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return false;
  if (Object.is(value, -0)) return false;
  // The common case, cheaply: integers that are safe, and plain decimals printed the same way.
  if (String(value) === literal) return true;
  return sameDecimal(normalise(literal), normalise(String(value)));
}

/** A decimal text as sign, significant digits without leading/trailing zeros, and the exponent of the last digit. */
function normalise(text: string): { negative: boolean; digits: string; exponent: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return { negative: false, digits: 'NaN', exponent: 0 };
  const [, sign, int = '', frac = '', exp = '0'] = m;
  let digits = (int + frac).replace(/^0+/, '');
  let exponent = Number(exp) - frac.length;
  const trailing = /0*$/.exec(digits)![0].length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  if (digits === '') return { negative: false, digits: '0', exponent: 0 };
  return { negative: sign === '-', digits, exponent };
}

function sameDecimal(a: ReturnType<typeof normalise>, b: ReturnType<typeof normalise>): boolean {
  return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
}
