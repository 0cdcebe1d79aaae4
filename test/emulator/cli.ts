/**
 * Starts the emulator with the deterministic demo data and prints ONE JSON line to stdout:
 *   {"baseUrl":"http://127.0.0.1:PORT","token":"...","demo":{...}}
 * Usage: npx ts-node --transpile-only --project test/tsconfig.json test/emulator/cli.ts [--port N] [--allow-local-webhooks]
 *        [--webhook-retry-base-ms N] [--webhook-retry-max-ms N] [--webhook-retention-ms N] [--webhook-timeout-ms N]
 *        [--old-messages] [--telegram-secret-header] [--chaos-rate R] [--chaos-seed N]
 * SIGINT / SIGTERM close it. Logs (if any) go to stderr.
 */
import { startEmulator } from './server';
import type { EmulatorOptions } from './server';

function parseArgs(argv: string[]): EmulatorOptions {
	const opts: EmulatorOptions = {};
	for (let i = 0; i < argv.length; i += 1) {
		const a = argv[i];
		const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
		const value = (): number => {
			const v = inline ?? argv[++i];
			const n = Number(v);
			if (v === undefined || !Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer`);
			return n;
		};
		switch (flag) {
			case '--port':
				opts.port = value();
				break;
			case '--allow-local-webhooks':
				opts.allowLocalWebhooks = true;
				break;
			case '--webhook-retry-base-ms':
				opts.webhookRetryBaseMs = value();
				break;
			case '--webhook-retry-max-ms':
				opts.webhookRetryMaxMs = value();
				break;
			case '--webhook-retention-ms':
				opts.webhookRetentionMs = value();
				break;
			case '--webhook-timeout-ms':
				opts.webhookTimeoutMs = value();
				break;
			case '--telegram-secret-header':
				opts.telegramSecretHeader = true;
				break;
			case '--chaos-rate': {
				const v = inline ?? argv[++i];
				const rate = Number(v);
				if (v === undefined || !(rate >= 0 && rate <= 1)) throw new Error('--chaos-rate needs a number between 0 and 1');
				opts.chaos = { ...opts.chaos, rate };
				break;
			}
			case '--chaos-seed':
				opts.chaos = { rate: opts.chaos?.rate ?? 0, seed: value() };
				break;
			case '--old-messages':
				opts.oldMessages = true;
				break;
			case '--help':
			case '-h':
				process.stderr.write('usage: cli.ts [--port N] [--allow-local-webhooks] [--webhook-retry-base-ms N] [--webhook-retry-max-ms N] [--webhook-retention-ms N] [--webhook-timeout-ms N] [--old-messages] [--telegram-secret-header] [--chaos-rate R] [--chaos-seed N]\n');
				process.exit(0);
				break;
			default:
				throw new Error(`unknown argument ${a}`);
		}
	}
	return opts;
}

async function main(): Promise<void> {
	const emu = await startEmulator(parseArgs(process.argv.slice(2)));
	process.stdout.write(`${JSON.stringify({ baseUrl: emu.baseUrl, token: emu.demo.token, demo: emu.demo })}\n`);
	let closing = false;
	const stop = (signal: string): void => {
		if (closing) return;
		closing = true;
		process.stderr.write(`[emulator] ${signal}: closing\n`);
		emu.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
	process.stderr.write(`[emulator] ${err instanceof Error ? err.message : String(err)}\n`);
	process.exit(1);
});
