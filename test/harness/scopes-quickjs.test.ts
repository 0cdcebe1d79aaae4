/** The same scopes with n8n's own VM engine (on QuickJS): see scope-cases.ts. */
import { useExpressionEngine } from './expression-engine';
import { describeScopes } from './scope-cases';

useExpressionEngine('quickjs');

describe("where n8n 2.41.1 lets a node evaluate its expressions, n8n's VM engine", describeScopes);
