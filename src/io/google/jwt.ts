import { jwtDecode } from 'jwt-decode';
import { INVALID_JWT_MESSAGE } from './messages';

/** What the login screen shows while the server verifies the ID token. */
export interface IdTokenPreview {
  name: string;
  picture: string | null;
}

export class InvalidJwtError extends Error {
  override readonly name = 'InvalidJwtError';
  constructor() {
    super(INVALID_JWT_MESSAGE);
  }
}

/**
 * Reads name and picture from a Google ID token for display only. It proves nothing: the server
 * verifies signature, audience, issuer and expiry. Malformed tokens throw {@link InvalidJwtError}.
 */
export function previewIdToken(token: string): IdTokenPreview {
  let claims: unknown;
  try {
    if (token.split('.').length !== 3) throw new InvalidJwtError();
    claims = jwtDecode<unknown>(token);
  } catch {
    throw new InvalidJwtError();
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims))
    throw new InvalidJwtError();
  const { name, email, picture } = claims as Record<string, unknown>;
  const shownName =
    typeof name === 'string' && name !== '' ? name : typeof email === 'string' ? email : '';
  const safePicture =
    typeof picture === 'string' && picture.startsWith('https://') ? picture : null;
  return { name: shownName, picture: safePicture };
}
