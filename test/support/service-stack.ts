import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { BureauStack } from '../../infra/stack';
import { TEST_WEB_ACL } from './web-acl';

export interface SynthesizedServiceStack {
  readonly stack: BureauStack;
  readonly template: Template;
  /** The logical id of a construct's CloudFormation resource in the template. */
  logicalId(construct: IConstruct): string;
}

let synthesized: SynthesizedServiceStack | undefined;

/**
 * The service stack with no settings, as most infrastructure tests read it: built and synthesized
 * (without bundling) once for all the test files a worker runs, since the infrastructure tests share
 * their workers (vitest.config.ts) and each build takes seconds. Read it, never add to it: a test that
 * changes a stack, or needs settings of its own, builds its own stack.
 */
export function defaultServiceStack(): SynthesizedServiceStack {
  if (!synthesized) {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new BureauStack(app, 'Test', { edge: { webAclArn: TEST_WEB_ACL } });
    const template = Template.fromStack(stack);
    synthesized = { stack, template, logicalId: (construct) => stack.getLogicalId(construct.node.defaultChild as CfnElement) };
  }
  return synthesized;
}
