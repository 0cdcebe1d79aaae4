// The official community-node lint, exactly as `n8n-node lint` and n8n's scanner apply it.
import { config } from '@n8n/node-cli/eslint';

export default config;
