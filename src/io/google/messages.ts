/** Seed section 8: shown when the Google Identity Services script cannot be loaded. */
export const GIS_LOAD_ERROR_MESSAGE =
  'Failed to load the Google 3P Authorization JavaScript Library.';
/** Seed section 8: shown when an ID token cannot be decoded. */
export const INVALID_JWT_MESSAGE = 'JWT provided is invalid';
