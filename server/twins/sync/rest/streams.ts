/** Stream messages: published to subscribers (not echoed to the publishing connection), never stored. */
import { limits } from '../limits';
import { iso } from '../model';
import {
  bodyObject,
  dataJson,
  findObject,
  type Ctx,
  type RestRequest,
  type RestResponse,
} from './context';
import { newSid } from './objects';

export function publishMessage(ctx: Ctx, id: string, req: RestRequest): RestResponse {
  const stream = findObject(ctx, 'stream', id);
  const body = bodyObject(req.body);
  const json = dataJson(body.data ?? {}, limits.maxStreamMessageBytes, 'Stream Message data');
  const sid = newSid('TZ');
  const data = JSON.parse(json) as Record<string, unknown>;
  ctx.core.commit((emit) => {
    emit.transient(
      stream.sid,
      'stream_message_published',
      {
        stream_sid: stream.sid,
        stream_unique_name: stream.unique_name,
        message_sid: sid,
        message_data: data,
      },
      ctx.conn,
    );
  });
  return {
    status: 201,
    body: {
      sid,
      stream_sid: stream.sid,
      data,
      created_by: ctx.identity,
      date_created: iso(ctx.core.now()),
    },
  };
}
