import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import {
  ACCOUNTS_BASE_URL_VARIABLE,
  ACCOUNTS_STATE_MACHINE_VARIABLE,
  type AccountsImportStarter,
  type ArchiveOutcome,
  dailyArchivesFor,
  downloadAccounts,
} from '../../shared/accounts/import/accounts-download';
import { logger } from '../../shared/observability/logger';
import { observed } from '../../shared/observability/middleware';
import { tracer } from '../../shared/observability/tracer';
import { uploadsBucket } from '../uploads-bucket';

/** What EventBridge hands a scheduled rule's target; an operator names one archive to bring in (a month's). */
interface DownloadEvent {
  readonly time?: string;
  readonly archive?: string;
}

const objects = uploadsBucket();
// Step Functions has no emulator here, so no endpoint variable: the deployed client, traced like the others.
const sfn = tracer.captureAWSv3Client(new SFNClient({}));

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const starter: AccountsImportStarter = {
  async start(name, input) {
    try {
      await sfn.send(
        new StartExecutionCommand({ stateMachineArn: required(ACCOUNTS_STATE_MACHINE_VARIABLE), name, input: JSON.stringify(input) }),
      );
      return 'started';
    } catch (error) {
      // Started before under this name: the archive's import ran, or runs; a rerun of the download adds nothing.
      if (error instanceof ExecutionAlreadyExists) return 'already-started';
      throw error;
    }
  },
};

/** The daily accounts feed: the last days' archives of the Accounts Data Product fetched to the uploads bucket and imported. */
export const handler = observed<DownloadEvent, { archives: ArchiveOutcome[] }>(async (event) => {
  const at = event.time && !Number.isNaN(Date.parse(event.time)) ? new Date(event.time) : new Date();
  const archives = await downloadAccounts({
    archives: event.archive ? [event.archive] : dailyArchivesFor(at),
    ...(process.env[ACCOUNTS_BASE_URL_VARIABLE] ? { baseUrl: process.env[ACCOUNTS_BASE_URL_VARIABLE] } : {}),
    s3: objects.s3,
    bucket: objects.bucket,
    starter,
  });
  for (const outcome of archives) if (outcome.outcome !== 'not-published') logger.info('accounts archive', { ...outcome });
  logger.info('accounts download done', {
    loaded: archives.filter((outcome) => outcome.outcome === 'loaded').length,
    notPublished: archives.filter((outcome) => outcome.outcome === 'not-published').map((outcome) => outcome.archive),
  });
  return { archives };
});
