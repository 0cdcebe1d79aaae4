/** The expression engine's scopes with the harness's default engine (`scopes`): see scope-cases.ts. */
import { describeScopes } from './scope-cases';

describe('where n8n 2.41.1 lets a node evaluate its expressions', describeScopes);
