/** Runs the release scripts under .github/scripts/ as the publish workflow runs them (node <script> <args>). */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const SCRIPTS_DIR = join(ROOT, '.github', 'scripts');
export const WORKFLOW = join(ROOT, '.github', 'workflows', 'publish.yml');

export interface ScriptRun {
	status: number | null;
	stdout: string;
	stderr: string;
}

export function runScript(script: string, args: string[]): ScriptRun {
	const result = spawnSync(process.execPath, [join(SCRIPTS_DIR, script), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A package folder in the temporary directory with the given files (path → content; objects as JSON). */
export function plantPackage(files: Record<string, string | object>): string {
	const dir = mkdtempSync(join(tmpdir(), 'service-bot-release-'));
	for (const [path, content] of Object.entries(files)) {
		mkdirSync(dirname(join(dir, path)), { recursive: true });
		writeFileSync(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
	}
	return dir;
}
