/** The service stack reads its web ACL from us-east-1 (infra/edge-stack); a stack built alone in a test names this one. */
export const TEST_WEB_ACL = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/bureau-test/0b2d9c1e-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
