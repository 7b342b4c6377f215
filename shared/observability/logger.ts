import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './service';

/** One structured JSON logger per function; never pass secrets, tokens or Authorization headers to it. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });
