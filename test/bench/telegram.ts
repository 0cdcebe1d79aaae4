/**
 * Loads n8n's own Telegram node (contender B) and its `telegramApi` credential from the n8n-nodes-base
 * of the real n8n 2.41.1 that test/real-n8n/provision.sh installs, so it is the very code n8n users run.
 *
 * Its own imports of `n8n-workflow`, `n8n-core` and `@n8n/di` are redirected to the copies this
 * repository's harness runs (the same versions, 2.41.x): one engine, one DI container, one set of
 * error classes for both contenders. Everything else it needs (mime-types, lodash, …) comes from the
 * n8n install's node_modules, by ordinary resolution from the file's own folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, sep } from 'node:path';

import type { ICredentialType, INodeType, IVersionedNodeType } from 'n8n-workflow';

const ROOT = join(__dirname, '..', '..');

interface ModuleInternals {
	_resolveFilename(request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]): string;
}

/** The n8n install folder: $BENCH_N8N_CACHE, or what test/real-n8n/provision.sh prints (installs it if needed). */
export function n8nCache(): string {
	const fromEnv = process.env.BENCH_N8N_CACHE;
	if (fromEnv) return fromEnv;
	process.stderr.write('bench: provisioning real n8n 2.41.1 (instant when cached, ~10 min cold)…\n');
	const out = execFileSync('bash', [join(ROOT, 'test', 'real-n8n', 'provision.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const lines = out.trim().split('\n');
	return lines[lines.length - 1].trim();
}

export interface TelegramContender {
	nodeType: INodeType | IVersionedNodeType;
	credentialType: ICredentialType;
	/** n8n-nodes-base's version (must equal the e2e's n8n). */
	version: string;
	nodeFile: string;
}

let redirectInstalled = false;

function installRedirect(baseDir: string): void {
	if (redirectInstalled) return;
	redirectInstalled = true;
	const engine: Record<string, string> = {
		'n8n-workflow': require.resolve('n8n-workflow'),
		'n8n-core': require.resolve('n8n-core'),
		'@n8n/di': require.resolve('@n8n/di', { paths: [dirname(require.resolve('n8n-core'))] }),
	};
	const internals = Module as unknown as ModuleInternals;
	const original = internals._resolveFilename.bind(Module);
	internals._resolveFilename = (request, parent, ...rest) => {
		const target = engine[request];
		if (target !== undefined && parent?.filename && parent.filename.startsWith(baseDir + sep)) return target;
		return original(request, parent, ...rest);
	};
}

/** Another node of the same n8n-nodes-base (the upload bench's floor: n8n's HTTP Request node). */
export function loadBaseNode(cache: string, file: string, exportName: string): INodeType | IVersionedNodeType {
	const baseDir = join(cache, 'node_modules', 'n8n-nodes-base');
	installRedirect(baseDir);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const nodeModule = require(join(baseDir, 'dist', 'nodes', file)) as Record<string, new () => INodeType | IVersionedNodeType>;
	return new nodeModule[exportName]();
}

export function loadTelegram(cache = n8nCache()): TelegramContender {
	const baseDir = join(cache, 'node_modules', 'n8n-nodes-base');
	const nodeFile = join(baseDir, 'dist', 'nodes', 'Telegram', 'Telegram.node.js');
	const credentialFile = join(baseDir, 'dist', 'credentials', 'TelegramApi.credentials.js');
	if (!existsSync(nodeFile)) throw new Error(`bench: n8n's Telegram node not found at ${nodeFile}`);
	installRedirect(baseDir);
	const { version } = JSON.parse(readFileSync(join(baseDir, 'package.json'), 'utf8')) as { version: string };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const nodeModule = require(nodeFile) as { Telegram: new () => INodeType | IVersionedNodeType };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const credentialModule = require(credentialFile) as { TelegramApi: new () => ICredentialType };
	return {
		nodeType: new nodeModule.Telegram(),
		credentialType: new credentialModule.TelegramApi(),
		version,
		nodeFile,
	};
}
