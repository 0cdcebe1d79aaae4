import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startEmulator } from './index';
import type { DemoData } from './index';

const root = join(__dirname, '..', '..');

interface Cli {
	child: ChildProcessWithoutNullStreams;
	line: { baseUrl: string; token: string; demo: DemoData };
	stdout: () => string;
}

/** Starts the CLI with `args` and waits for its one JSON line. */
async function startCli(args: string[]): Promise<Cli> {
	const child = spawn(
		process.execPath,
		[join(root, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '--project', 'test/tsconfig.json', 'test/emulator/cli.ts', ...args],
		{ cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
	);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (c: Buffer) => {
		stdout += c.toString('utf8');
	});
	child.stderr.on('data', (c: Buffer) => {
		stderr += c.toString('utf8');
	});
	while (!stdout.includes('\n')) {
		if (child.exitCode !== null) throw new Error(`CLI did not start: ${stderr}`);
		await new Promise((r) => setTimeout(r, 50));
	}
	return { child, line: JSON.parse(stdout.trim()) as Cli['line'], stdout: () => stdout };
}

async function stopCli(cli: Cli): Promise<number | null> {
	cli.child.kill('SIGTERM');
	const [code] = (await once(cli.child, 'exit')) as [number | null];
	return code;
}

it('CLI prints one JSON line with baseUrl, token and the deterministic demo data, serves, and exits on SIGTERM', async () => {
	const cli = await startCli(['--port', '0', '--allow-local-webhooks']);
	try {
		const { line } = cli;
		expect(line.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		const local = await startEmulator();
		try {
			expect(line.demo).toEqual(local.demo);
		} finally {
			await local.close();
		}
		expect(line.token).toBe(line.demo.token);
		const res = await fetch(`${line.baseUrl}/bot${encodeURIComponent(line.token)}/setWebhook`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ url: 'http://127.0.0.1:1/hook' }),
		});
		expect(await res.json()).toMatchObject({ ok: true, result: true });
	} finally {
		expect(await stopCli(cli)).toBe(0);
	}
	expect(cli.stdout().trim().split('\n')).toHaveLength(1);
});

it('--webhook-timeout-ms: a push left unanswered that long fails with a read timeout and the same update is pushed again', async () => {
	// The receiver never answers the first push; it answers every later one.
	const received: number[] = [];
	const receiver = createServer((req, res) => {
		let body = '';
		req.on('data', (c: Buffer) => {
			body += c.toString('utf8');
		});
		req.on('end', () => {
			received.push((JSON.parse(body) as { update_id: number }).update_id);
			if (received.length > 1) res.end('ok');
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	let cli: Cli | undefined;
	try {
		cli = await startCli(['--port', '0', '--allow-local-webhooks', '--webhook-timeout-ms', '300', '--webhook-retry-base-ms', '10']);
		const { baseUrl, token, demo } = cli.line;
		const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
		const set = await fetch(`${baseUrl}/bot${encodeURIComponent(token)}/setWebhook`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ url: hookUrl }),
		});
		expect(await set.json()).toMatchObject({ ok: true });
		const sent = await fetch(`${baseUrl}/_emulator/messages`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ chatId: demo.privateChatId, userId: demo.userId, text: 'hello' }),
		});
		const update = (await sent.json()) as { update_id: number };
		while (received.length < 2) await new Promise((r) => setTimeout(r, 20));
		expect(received).toEqual([update.update_id, update.update_id]);
		const hook = (await (await fetch(`${baseUrl}/_emulator/webhook`)).json()) as { lastError: { message: string } | null };
		expect(hook.lastError?.message).toBe('Read timeout expired');
	} finally {
		if (cli) await stopCli(cli);
		receiver.closeAllConnections();
		await new Promise((resolve) => receiver.close(resolve));
	}
});

it('--webhook-retry-max-ms and --webhook-retention-ms: a push that keeps failing is retried, then dropped once older than the retention', async () => {
	const received: number[] = [];
	const receiver = createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			received.push(Date.now());
			res.statusCode = 503;
			res.end('down');
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	let cli: Cli | undefined;
	try {
		cli = await startCli(['--port', '0', '--allow-local-webhooks', '--webhook-retry-base-ms', '5', '--webhook-retry-max-ms', '10', '--webhook-retention-ms', '300']);
		const { baseUrl, token, demo } = cli.line;
		const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
		await fetch(`${baseUrl}/bot${encodeURIComponent(token)}/setWebhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: hookUrl }) });
		const queuedBy = Date.now();
		await fetch(`${baseUrl}/_emulator/messages`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ chatId: demo.privateChatId, userId: demo.userId, text: 'hello' }),
		});
		// idle once the update is dropped (the default retention would keep it for a day: idle would time out with 400)
		const idle = await fetch(`${baseUrl}/_emulator/idle?timeoutMs=20000`);
		expect(idle.status).toBe(200);
		expect(Date.now() - queuedBy).toBeGreaterThanOrEqual(299);
		expect(received.length).toBeGreaterThanOrEqual(1);
		const hook = (await (await fetch(`${baseUrl}/_emulator/webhook`)).json()) as { pendingUpdateCount: number; lastError: { message: string } | null };
		expect(hook).toMatchObject({ pendingUpdateCount: 0, lastError: { message: 'Wrong response from the webhook: 503 Service Unavailable' } });
	} finally {
		if (cli) await stopCli(cli);
		receiver.closeAllConnections();
		await new Promise((resolve) => receiver.close(resolve));
	}
});
