/**
 * SRTP's AES counter mode (RFC 3711 §4.1.1, the AES_CM_128_HMAC_SHA1_80 profile every browser
 * offers) with each session's AES key kept, in place of werift's own per-packet cipher.
 *
 * werift's `CipherAesCtr` builds a new OpenSSL cipher for every RTP packet it protects or checks
 * (`createCipheriv("aes-128-ctr", key, iv)`: a key schedule, a context and a JavaScript object per
 * packet) and its counter with a BigInt; in the relay's CPU profile that was about a sixth of the
 * server's busy time. Here each cipher keeps one AES-128-ECB context for its session key, and a
 * packet's keystream is that context applied to the packet's counter blocks (IV, IV + 1, ...), which
 * is what counter mode is; the payload is XORed with it. Authentication is unchanged (HMAC-SHA1 over
 * the header, the payload and the rollover counter, its first 80 bits), as are every check and
 * error werift's own methods make. RTCP (a few packets a second) keeps werift's code.
 *
 * {@link installSrtpCipher} replaces the two RTP methods on werift's cipher class, once per process;
 * the class is not exported, so it is reached through a session made for the purpose.
 */
import { createCipheriv, createHmac, timingSafeEqual, type Cipher } from 'node:crypto';
import { type RtpHeader, SrtpAuthenticationError, SrtpSession } from 'werift';

/** The AES_CM_128_HMAC_SHA1_80 profile's number (RFC 5764 §4.1.2): werift's `CipherAesCtr`. */
const AES_CM_128_HMAC_SHA1_80 = 0x0001;
/** The profile's authentication tag: the HMAC's first 80 bits. */
const AUTH_TAG_LENGTH = 10;
const BLOCK = 16;
const FAILED = 'Failed to authenticate SRTP packet';

/** What werift's `CipherAesCtr` holds that the RTP methods use (its session keys). */
interface WeriftCtrCipher {
  srtpSessionKey: Buffer;
  srtpSessionSalt: Buffer;
  srtpSessionAuthTag: Buffer;
  encryptRtp(header: RtpHeader, payload: Buffer, rolloverCounter: number): Buffer;
  decryptRtp(
    cipherText: Buffer,
    rolloverCounter: number,
    header?: RtpHeader,
  ): [Buffer, RtpHeader] | never[];
}

/** Each werift cipher's kept AES context (its session key never changes). */
const contexts = new WeakMap<WeriftCtrCipher, Cipher>();

function aesOf(cipher: WeriftCtrCipher): Cipher {
  let aes = contexts.get(cipher);
  if (!aes) {
    aes = createCipheriv('aes-128-ecb', cipher.srtpSessionKey, null);
    aes.setAutoPadding(false);
    contexts.set(cipher, aes);
  }
  return aes;
}

/**
 * XORs `input` with the AES-CM keystream of one packet into `output` at `at` (RFC 3711 §4.1.1): the
 * IV is the session salt (112 bits, shifted left 16) XOR the SSRC (shifted 64) XOR the packet index
 * (rollover counter and sequence number, shifted 16); block i of the keystream is AES(IV + i). The
 * IV's low 16 bits are zero, so for any packet shorter than 1 MiB, IV + i only sets them.
 */
export function applyKeystream(
  aes: Cipher,
  salt: Buffer,
  ssrc: number,
  rolloverCounter: number,
  sequenceNumber: number,
  input: Uint8Array,
  output: Uint8Array,
  at: number,
): void {
  if (input.length === 0) return;
  const blocks = Math.ceil(input.length / BLOCK);
  const counters = Buffer.allocUnsafe(blocks * BLOCK);
  const iv = counters.subarray(0, BLOCK);
  iv.fill(0);
  iv.writeUInt32BE(ssrc >>> 0, 4);
  iv.writeUInt32BE(rolloverCounter >>> 0, 8);
  iv.writeUInt16BE(sequenceNumber & 0xffff, 12);
  for (let i = 0; i < salt.length; i++) iv[i] = iv[i]! ^ salt[i]!;
  for (let b = 1; b < blocks; b++) {
    iv.copy(counters, b * BLOCK);
    counters.writeUInt16BE(b, b * BLOCK + 14);
  }
  const keystream = aes.update(counters);
  for (let i = 0; i < input.length; i++) output[at + i] = input[i]! ^ keystream[i]!;
}

/** The packet's authentication tag: HMAC-SHA1 over `authenticated` and the rollover counter, 80 bits. */
function authTag(key: Buffer, authenticated: Uint8Array, rolloverCounter: number): Buffer {
  const roc = Buffer.allocUnsafe(4);
  roc.writeUInt32BE(rolloverCounter >>> 0);
  return createHmac('sha1', key)
    .update(authenticated)
    .update(roc)
    .digest()
    .subarray(0, AUTH_TAG_LENGTH);
}

function encryptRtp(
  this: WeriftCtrCipher,
  header: RtpHeader,
  payload: Buffer,
  rolloverCounter: number,
): Buffer {
  const headerBuffer = header.serialize(header.serializeSize);
  const out = Buffer.allocUnsafe(headerBuffer.length + payload.length + AUTH_TAG_LENGTH);
  headerBuffer.copy(out, 0);
  applyKeystream(
    aesOf(this),
    this.srtpSessionSalt,
    header.ssrc,
    rolloverCounter,
    header.sequenceNumber,
    payload,
    out,
    headerBuffer.length,
  );
  const signed = out.subarray(0, out.length - AUTH_TAG_LENGTH);
  authTag(this.srtpSessionAuthTag, signed, rolloverCounter).copy(out, signed.length);
  return out;
}

/**
 * The same checks as werift's: a header it has parsed (werift's `SrtpContext` always passes one,
 * having checked the packet's length against it), the tag compared in constant time, then the
 * padding read from the decrypted payload.
 */
function decryptRtp(
  this: WeriftCtrCipher,
  cipherText: Buffer,
  rolloverCounter: number,
  header?: RtpHeader,
): [Buffer, RtpHeader] {
  const parsed = header ?? missingHeader();
  const tagAt = cipherText.length - AUTH_TAG_LENGTH;
  const expected = authTag(this.srtpSessionAuthTag, cipherText.subarray(0, tagAt), rolloverCounter);
  const actual = cipherText.subarray(tagAt);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new SrtpAuthenticationError(FAILED);
  }
  const out = Buffer.allocUnsafe(tagAt);
  cipherText.copy(out, 0, 0, parsed.payloadOffset);
  applyKeystream(
    aesOf(this),
    this.srtpSessionSalt,
    parsed.ssrc,
    rolloverCounter,
    parsed.sequenceNumber,
    cipherText.subarray(parsed.payloadOffset, tagAt),
    out,
    parsed.payloadOffset,
  );
  parsed.paddingSize = 0;
  if (parsed.padding) {
    const paddingSize = out.length > parsed.payloadOffset ? out[out.length - 1]! : 0;
    if (paddingSize === 0 || paddingSize > out.length - parsed.payloadOffset) {
      throw new SrtpAuthenticationError(FAILED);
    }
    parsed.paddingSize = paddingSize;
  }
  return [out, parsed];
}

function missingHeader(): never {
  // werift's SrtpContext parses (and length-checks) the header before it calls the cipher.
  throw new SrtpAuthenticationError(FAILED);
}

let installed: { encryptRtp: unknown; decryptRtp: unknown } | null = null;

/** werift's `CipherAesCtr` prototype, reached through a session (the class is not exported). */
function weriftCtrPrototype(): WeriftCtrCipher {
  const key = Buffer.alloc(16);
  const salt = Buffer.alloc(14);
  const session = new SrtpSession({
    keys: {
      localMasterKey: key,
      localMasterSalt: salt,
      remoteMasterKey: key,
      remoteMasterSalt: salt,
    },
    profile: AES_CM_128_HMAC_SHA1_80,
  });
  const cipher = (session as unknown as { localContext: { cipher: WeriftCtrCipher } }).localContext
    .cipher;
  return Object.getPrototypeOf(cipher) as WeriftCtrCipher;
}

/** Puts the kept-key cipher in werift's place for every SRTP session made from now on (and before). */
export function installSrtpCipher(): void {
  if (installed) return;
  const prototype = weriftCtrPrototype();
  const { encryptRtp: theirEncrypt, decryptRtp: theirDecrypt } =
    Object.getOwnPropertyDescriptors(prototype);
  installed = { encryptRtp: theirEncrypt?.value, decryptRtp: theirDecrypt?.value };
  prototype.encryptRtp = encryptRtp;
  prototype.decryptRtp = decryptRtp;
}

/** Tests only: werift's own methods back (to compare the two). */
export function uninstallSrtpCipher(): void {
  if (!installed) return;
  const prototype = weriftCtrPrototype();
  Object.assign(prototype, installed);
  installed = null;
}
