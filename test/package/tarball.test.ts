/**
 * What `npm pack` ships is what n8n needs and nothing n8n's verification scanner refuses. Runs on the
 * built package (`npm test` builds before jest).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** n8n's scanner: its messenger-exfiltration rule matches bot-token-shaped strings in shipped files. */
const TOKEN_SHAPED = /\d{8,12}:[A-Za-z0-9_-]{30,40}/;
/** Hosts of real messengers' bot APIs: the package talks only to the base URL in the credential. */
const MESSENGER_HOSTS = ['api.telegram.org', 'discord.com/api/webhooks', 'hooks.slack.com'];

let unpacked: string;
let files: string[];

function walk(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? walk(path) : [path];
	});
}

beforeAll(() => {
	unpacked = mkdtempSync(join(tmpdir(), 'service-bot-pack-'));
	const [{ filename }] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', unpacked], { cwd: ROOT, encoding: 'utf8' })) as Array<{ filename: string }>;
	execFileSync('tar', ['xzf', join(unpacked, filename), '-C', unpacked]);
	files = walk(join(unpacked, 'package')).map((path) => relative(join(unpacked, 'package'), path));
}, 120_000);

afterAll(() => {
	rmSync(unpacked, { recursive: true, force: true });
});

test('the tarball holds package.json, the README, the LICENSE and the built dist/ (code, types, source maps, icons, codex), nothing else', () => {
	const outside = files.filter((file) => !['package.json', 'README.md', 'LICENSE'].includes(file) && !file.startsWith('dist/'));
	expect(outside).toEqual([]);
	const kinds = new Set(files.filter((file) => file.startsWith('dist/')).map((file) => file.replace(/^.*?((\.d)?\.[a-z]+(\.map)?)$/, '$1')));
	expect([...kinds].sort()).toEqual(['.d.ts', '.js', '.js.map', '.json', '.svg']);
	expect(files).toContain('README.md');
	expect(files).toContain('LICENSE');
	expect(files.filter((file) => file.includes('test'))).toEqual([]);
});

test("every node and credential package.json names for n8n is in the tarball, with the icons they point at", () => {
	const manifest = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
	for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) expect(files).toContain(entry);
	const icons = files.filter((file) => file.endsWith('.svg'));
	expect(icons.length).toBeGreaterThanOrEqual(2);
});

test('no shipped file holds a bot-token-shaped string or a real messenger API host', () => {
	const found: string[] = [];
	for (const file of files) {
		const text = readFileSync(join(unpacked, 'package', file), 'utf8');
		const token = TOKEN_SHAPED.exec(text);
		if (token) found.push(`${file}: token-shaped "${token[0]}"`);
		for (const host of MESSENGER_HOSTS) if (text.includes(host)) found.push(`${file}: ${host}`);
	}
	expect(found).toEqual([]);
});
