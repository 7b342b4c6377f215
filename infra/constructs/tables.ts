import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
  type WarmThroughput,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { allTables, type IndexDefinition, type KeyAttribute, type TableDefinition } from '../../shared/storage/tables';

const attribute = (key: KeyAttribute) => ({ name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER });

function projectionOf(index: IndexDefinition) {
  if (index.projection === 'ALL') return { projectionType: ProjectionType.ALL };
  if (index.projection === 'KEYS_ONLY') return { projectionType: ProjectionType.KEYS_ONLY };
  return { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] };
}

/** A DynamoDB table built from its shared definition, which it keeps so grants can name its env var and indexes. */
export class BureauTable extends Table {
  constructor(
    scope: Construct,
    readonly definition: TableDefinition,
    warmThroughput?: WarmThroughput,
  ) {
    super(scope, definition.id, {
      partitionKey: attribute(definition.partitionKey),
      sortKey: definition.sortKey ? attribute(definition.sortKey) : undefined,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      stream: definition.stream ? StreamViewType[definition.stream] : undefined,
      timeToLiveAttribute: definition.timeToLiveAttribute,
      // Client credentials and company data outlive any one deployment of the stack.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      ...(warmThroughput ? { warmThroughput } : {}),
    });
    for (const index of definition.globalSecondaryIndexes ?? []) {
      this.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: index.sortKey ? attribute(index.sortKey) : undefined,
        ...projectionOf(index),
      });
    }
  }

  /** The ARN of one index, named so a grant carries no wildcard; an index the definition lacks is a mistake in the grant. */
  indexArn(indexName: string): string {
    if (!(this.definition.globalSecondaryIndexes ?? []).some((index) => index.indexName === indexName)) {
      throw new Error(`The ${this.definition.id} table has no index ${indexName}`);
    }
    return `${this.tableArn}/index/${indexName}`;
  }
}

/** Every table of shared/storage/tables.ts, so a table added there is deployed with no change here. */
export class BureauTables extends Construct {
  private readonly byId = new Map<string, BureauTable>();

  /** `warmThroughput` by table id: the companies table's before a first load (stage-settings.ts, companiesWarmThroughput). */
  constructor(
    scope: Construct,
    id: string,
    definitions: readonly TableDefinition[] = allTables,
    warmThroughput: Readonly<Record<string, WarmThroughput>> = {},
  ) {
    super(scope, id);
    for (const definition of definitions) this.byId.set(definition.id, new BureauTable(this, definition, warmThroughput[definition.id]));
  }

  get all(): BureauTable[] {
    return [...this.byId.values()];
  }

  of(definition: TableDefinition): BureauTable {
    const table = this.byId.get(definition.id);
    if (!table) throw new Error(`Table ${definition.id} is not part of this stack`);
    return table;
  }
}
