/**
 * The scenario table of .github/CONTRIBUTING.md ("End-to-end tests") stays true to the runner:
 * `npm run test:e2e` runs SCENARIOS (test/e2e/scenarios.ts) in order and numbers them from 1, and
 * `npm run test:e2e -- <number or words>` selects by that number or by words of a scenario's name.
 * So the rows are numbered 1..N in order, N is the number of scenarios, and each row's Scenario
 * column is a phrase of the name of the scenario at its number and of no other: the row's number
 * and its phrase select the same one scenario. The scenario counts written in the prose agree.
 *
 * Importing the scenarios only defines them: nothing starts before a scenario's run() is called.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { selectScenarios } from '../e2e/lib/runner';
import { SCENARIOS } from '../e2e/scenarios';

const CONTRIBUTING = readFileSync(join(__dirname, '..', '..', '.github', 'CONTRIBUTING.md'), 'utf8');

/** The "## End-to-end tests" section, up to the next heading of its level or above. */
function e2eSection(): string {
	const start = CONTRIBUTING.indexOf('\n## End-to-end tests\n');
	expect(start).toBeGreaterThan(-1);
	const end = CONTRIBUTING.slice(start + 1).search(/\n#{1,2} /);
	return CONTRIBUTING.slice(start, end === -1 ? undefined : start + 1 + end);
}

/** The rows of the table headed `| # | Scenario | Proves |`: number, the Scenario column without its Markdown code marks. */
function tableRows(): Array<{ number: number; phrase: string }> {
	const lines = e2eSection().split('\n');
	const header = lines.findIndex((line) => /^\|\s*#\s*\|\s*Scenario\s*\|\s*Proves\s*\|\s*$/.test(line));
	expect(header).toBeGreaterThan(-1);
	const rows = [];
	for (const line of lines.slice(header + 2)) {
		if (!line.startsWith('|')) break;
		const cells = /^\|\s*(\d+)\s*\|([^|]+)\|(.+)\|\s*$/.exec(line);
		expect(cells).not.toBeNull();
		rows.push({ number: Number(cells?.[1]), phrase: String(cells?.[2]).replace(/`/g, '').trim() });
	}
	return rows;
}

/** The numbers of the scenarios `npm run test:e2e -- <filter>` runs (none when it refuses the filter). */
function selected(filter: string): number[] {
	try {
		return selectScenarios(SCENARIOS, [filter]).map((chosen) => chosen.index);
	} catch {
		return [];
	}
}

test('the rows are numbered 1, 2, 3 … in order, one row per scenario the runner has', () => {
	const numbers = tableRows().map((row) => row.number);
	expect(SCENARIOS.length).toBeGreaterThan(20);
	expect(numbers).toEqual(SCENARIOS.map((_, index) => index + 1));
});

test("each row's Scenario phrase selects exactly the scenario its number selects", () => {
	const mismatched = tableRows()
		.map((row) => ({
			row: `${row.number} ${row.phrase}`,
			byNumber: selected(String(row.number)),
			byPhrase: selected(row.phrase),
		}))
		.filter((row) => row.byNumber.length !== 1 || row.byPhrase.join() !== row.byNumber.join());
	expect(mismatched).toEqual([]);
});

test('the scenario counts in the prose ("N passed", "the N scenarios") are the number of scenarios', () => {
	const passed = [...e2eSection().matchAll(/`e2e on n8n [\d.]+: (\d+) passed, 0 failed`/g)].map((match) => Number(match[1]));
	const counted = [...CONTRIBUTING.matchAll(/\bthe (\d+) scenarios\b/g)].map((match) => Number(match[1]));
	expect(passed).toHaveLength(1);
	expect(counted.length).toBeGreaterThanOrEqual(2);
	expect([...passed, ...counted]).toEqual([...passed, ...counted].map(() => SCENARIOS.length));
});
