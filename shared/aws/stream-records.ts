import type { _Record, AttributeValue as StreamsAttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/** A stream record holds an attribute value of a type this code cannot put in Lambda's shape. */
export class UnconvertibleAttributeError extends Error {
  override readonly name = 'UnconvertibleAttributeError';
}

/**
 * Streams API records as Lambda receives them: the SDK decodes binary attributes to bytes and
 * timestamps to Dates, whereas the event carries base64 text and epoch seconds.
 */
export function toLambdaAttributeValue(value: StreamsAttributeValue): AttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item).toString('base64')) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttributeValue) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  const members = Object.keys(value);
  // DynamoDB Local writes an empty map as `{}` in its stream, not `{"M":{}}`; nothing else is empty.
  if (members.length === 0) return { M: {} };
  // The SDK's place for a type newer than itself: no shape to give Lambda, so the record fails loudly.
  const unknown = (value as { $unknown?: [string, unknown] }).$unknown;
  throw new UnconvertibleAttributeError(
    unknown ? `Attribute value of a type this SDK does not know: ${unknown[0]}` : `Unknown attribute value type: ${members.join(', ')}`,
  );
}

function toLambdaImage(image: Record<string, StreamsAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaAttributeValue(value)]));
}

export function toLambdaRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  const dynamodb: NonNullable<DynamoDBRecord['dynamodb']> = {
    SequenceNumber: change.SequenceNumber,
    SizeBytes: change.SizeBytes,
    StreamViewType: change.StreamViewType,
  };
  if (change.ApproximateCreationDateTime)
    dynamodb.ApproximateCreationDateTime = Math.floor(change.ApproximateCreationDateTime.getTime() / 1000);
  if (change.Keys) dynamodb.Keys = toLambdaImage(change.Keys);
  if (change.NewImage) dynamodb.NewImage = toLambdaImage(change.NewImage);
  if (change.OldImage) dynamodb.OldImage = toLambdaImage(change.OldImage);
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb,
    eventSourceARN: streamArn,
  };
}
