/** Median and spread, and plain-text table formatting for the bench report. */

export interface Summary {
	median: number;
	min: number;
	max: number;
	n: number;
}

export function summarize(values: number[]): Summary {
	if (values.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

export function fixed(value: number, digits = 0): string {
	return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

export function spread(summary: Summary, digits = 0): string {
	return `${fixed(summary.median, digits)} (${fixed(summary.min, digits)}–${fixed(summary.max, digits)})`;
}

export function percent(value: number): string {
	return Number.isFinite(value) ? `${Math.round(value * 100)}%` : '—';
}

/** A Markdown table (also readable as plain text). */
export function table(header: string[], rows: string[][]): string {
	const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
	const line = (cells: string[]): string =>
		`| ${cells.map((cell, column) => (cell ?? '').padEnd(widths[column])).join(' | ')} |`;
	return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
