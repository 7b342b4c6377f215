import { describe, expect, it } from 'vitest';
import {
  HANDOVER_SECONDS_VARIABLE,
  loadStreamConsumerConfig,
  STREAM_BASE_URL_VARIABLE,
  STREAM_KEY_SECRET_VARIABLE,
  STREAMS_VARIABLE,
} from '../../../shared/register/stream/consumer-config';

const secret = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:StreamKey-abcdef';

describe("the stream function's settings", () => {
  it('reads the secret, the handover, the streams and, for a test, where the streams are', () => {
    expect(
      loadStreamConsumerConfig({
        [STREAM_KEY_SECRET_VARIABLE]: secret,
        [HANDOVER_SECONDS_VARIABLE]: '30',
        [STREAMS_VARIABLE]: 'companies,persons-with-significant-control',
        [STREAM_BASE_URL_VARIABLE]: 'http://127.0.0.1:9000',
      }),
    ).toEqual({
      secretId: secret,
      handoverMs: 30_000,
      streams: ['companies', 'persons-with-significant-control'],
      baseUrl: 'http://127.0.0.1:9000',
    });
    expect(loadStreamConsumerConfig({ [STREAM_KEY_SECRET_VARIABLE]: secret })).toEqual({
      secretId: secret,
      handoverMs: 30_000,
      streams: [],
    });
  });

  it.each([
    ['no secret', {}, STREAM_KEY_SECRET_VARIABLE],
    [
      'a handover too short to write the checkpoint',
      { [STREAM_KEY_SECRET_VARIABLE]: secret, [HANDOVER_SECONDS_VARIABLE]: '1' },
      HANDOVER_SECONDS_VARIABLE,
    ],
    [
      'a handover that is no number',
      { [STREAM_KEY_SECRET_VARIABLE]: secret, [HANDOVER_SECONDS_VARIABLE]: 'half a minute' },
      HANDOVER_SECONDS_VARIABLE,
    ],
    [
      'a stream Companies House does not have',
      { [STREAM_KEY_SECRET_VARIABLE]: secret, [STREAMS_VARIABLE]: 'companies,company' },
      'company',
    ],
  ])('refuses %s, naming it', (_what, env, named) => {
    expect(() => loadStreamConsumerConfig(env)).toThrow(named);
  });
});
