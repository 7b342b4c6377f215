import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSdkTypes, SDK_TYPES_PATH } from '../../../tools/write-sdk-types';

describe("the SDK's generated types", () => {
  it('are what the OpenAPI document generates now (npm run sdk:types rewrites them)', async () => {
    expect(readFileSync(SDK_TYPES_PATH, 'utf8'), 'packages/client/src/generated/api-types.ts is stale: run npm run sdk:types').toBe(
      await renderSdkTypes(),
    );
  }, 30_000);
});
