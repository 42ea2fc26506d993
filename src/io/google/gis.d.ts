/**
 * The parts of Google Identity Services (https://accounts.google.com/gsi/client) this app uses.
 * The script defines `window.google`; nothing else of it is relied on.
 */
export interface GisCredentialResponse {
  /** The ID token (a JWT). */
  credential: string;
  select_by?: string;
}

export interface GisIdConfiguration {
  client_id: string;
  callback: (response: GisCredentialResponse) => void;
}

export interface GisButtonOptions {
  theme?: 'outline' | 'filled_blue' | 'filled_black';
  size?: 'large' | 'medium' | 'small';
  type?: 'standard' | 'icon';
  text?: 'signin_with' | 'signup_with' | 'continue_with' | 'signin';
  width?: number;
}

export interface GisErrorFields {
  error?: string;
  error_description?: string;
}

export interface GisCodeResponse extends GisErrorFields {
  code?: string;
  scope?: string;
}

export interface GisTokenResponse extends GisErrorFields {
  access_token?: string;
  scope?: string;
}

export interface GisPopupError {
  type: 'popup_failed_to_open' | 'popup_closed' | 'unknown';
  message?: string;
}

export interface GisCodeClientConfig {
  client_id: string;
  scope: string;
  ux_mode: 'popup' | 'redirect';
  callback: (response: GisCodeResponse) => void;
  error_callback?: (error: GisPopupError) => void;
}

export interface GisTokenClientConfig {
  client_id: string;
  scope: string;
  callback: (response: GisTokenResponse) => void;
  error_callback?: (error: GisPopupError) => void;
}

export interface GisCodeClient {
  requestCode: () => void;
}

export interface GisTokenClient {
  requestAccessToken: () => void;
}

export interface GisNamespace {
  accounts: {
    id: {
      initialize: (config: GisIdConfiguration) => void;
      renderButton: (parent: HTMLElement, options: GisButtonOptions) => void;
    };
    oauth2: {
      initCodeClient: (config: GisCodeClientConfig) => GisCodeClient;
      initTokenClient: (config: GisTokenClientConfig) => GisTokenClient;
    };
  };
}

declare global {
  interface Window {
    google?: GisNamespace;
  }
}
