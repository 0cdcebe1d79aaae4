import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { startEmulator } from './index';
import type { DemoData } from './index';

const root = join(__dirname, '..', '..');

it('CLI prints one JSON line with baseUrl, token and the deterministic demo data, serves, and exits on SIGTERM', async () => {
	const child = spawn(
		process.execPath,
		[join(root, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '--project', 'test/tsconfig.json', 'test/emulator/cli.ts', '--port', '0', '--allow-local-webhooks'],
		{ cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (c: Buffer) => {
		stdout += c.toString('utf8');
	});
	child.stderr.on('data', (c: Buffer) => {
		stderr += c.toString('utf8');
	});
	try {
		while (!stdout.includes('\n')) {
			if (child.exitCode !== null) throw new Error(`CLI did not start: ${stderr}`);
			await new Promise((r) => setTimeout(r, 50));
		}
		const line = JSON.parse(stdout.trim()) as { baseUrl: string; token: string; demo: DemoData };
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
		child.kill('SIGTERM');
	}
	const [code] = (await once(child, 'exit')) as [number | null];
	expect(code).toBe(0);
	expect(stdout.trim().split('\n')).toHaveLength(1);
});
