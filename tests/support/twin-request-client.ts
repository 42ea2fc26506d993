/**
 * The `twilio` package pointed at the twins: its requests keep their paths
 * (`/2010-04-01/Accounts/...` for Voice, `/v1/Services/...` for Sync) and go to `origin` instead of
 * `https://api.twilio.com` or `https://sync.twilio.com`. Everything else (auth, form bodies, retries
 * with `autoRetry`, answers) is the package's own RequestClient, so the code that talks to the twin
 * is the code that talks to Twilio.
 */
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';

export class TwinRequestClient extends twilio.RequestClient {
  private readonly target: URL;

  constructor(origin: string, options: RequestClient.RequestClientOptions = {}) {
    super(options);
    this.target = new URL(origin);
  }

  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    const uri = new URL(opts.uri);
    uri.protocol = this.target.protocol;
    uri.host = this.target.host;
    return super.request<TData>({ ...opts, uri: uri.toString() });
  }
}
