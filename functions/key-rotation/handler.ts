import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { keyRotationFromEnv } from '../../shared/auth/key-rotation';

const rotation = keyRotationFromEnv();

export const handler = (event: SecretsManagerRotationEvent): Promise<void> => rotation.handle(event);
