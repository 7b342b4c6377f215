import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { logger } from '../../shared/observability/logger';
import { observed } from '../../shared/observability/middleware';
import { tracer } from '../../shared/observability/tracer';
import {
  DOWNLOAD_URL_VARIABLE,
  downloadRegister,
  type ImportStarter,
  type RegisterDownloadResult,
  STATE_MACHINE_VARIABLE,
} from '../../shared/register/import/register-download';
import { uploadsBucket } from '../uploads-bucket';

/** What EventBridge hands a scheduled rule's target; an operator's manual run may send `{}`. */
interface ScheduledEvent {
  readonly time?: string;
}

const objects = uploadsBucket();
// Step Functions has no emulator here, so no endpoint variable: the deployed client, traced like the others.
const sfn = tracer.captureAWSv3Client(new SFNClient({}));

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const starter: ImportStarter = {
  async start(name, input) {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: required(STATE_MACHINE_VARIABLE), name, input: JSON.stringify(input) }),
    );
    return executionArn as string;
  },
};

/** The weekly IE feed: the CRO companies file fetched to the uploads bucket and imported like an operator's upload. */
export const handler = observed<ScheduledEvent, RegisterDownloadResult>(async (event) => {
  const at = event.time && !Number.isNaN(Date.parse(event.time)) ? new Date(event.time) : new Date();
  const result = await downloadRegister({
    url: required(DOWNLOAD_URL_VARIABLE),
    fileStem: 'cro-companies',
    format: 'cro-companies',
    at,
    s3: objects.s3,
    bucket: objects.bucket,
    starter,
  });
  logger.info('register file downloaded and its import started', { ...result });
  return result;
});
