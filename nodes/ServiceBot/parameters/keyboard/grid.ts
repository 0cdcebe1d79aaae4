/**
 * The auto grid: a list of labels laid out N buttons per row, each button's text and action made
 * from a template with {label}, {index}, {row} and {column} (all 1-based).
 */
import { LIMITS } from '../../../shared/spec';
import type { Problem } from '../errors';
import { describeValue, quote } from '../errors';
import { textOf } from '../text';

const GRID_PLACEHOLDERS = ['label', 'index', 'row', 'column'] as const;
type Placeholder = (typeof GRID_PLACEHOLDERS)[number];

const PLACEHOLDER = /\{(\w+)\}/g;

export interface GridSettings {
	labels: unknown;
	columns: unknown;
	buttonText: string;
	/** Inline keyboards only: the button field the action template fills, and the template. */
	action?: { field: 'callback_data' | 'url' | 'switch_inline_query'; template: string; fieldName: string };
}

export type Button = Record<string, string>;

type GridResult = { ok: true; rows: Button[][]; labels: string[]; columns: number } | { ok: false; problem: Problem };

/**
 * The labels: an array (from an expression), a JSON array in a string, one label per line, or a
 * comma-separated list. Labels are trimmed and blanks skipped; numbers and booleans count as text.
 */
export function parseLabels(raw: unknown): { ok: true; labels: string[] } | { ok: false; problem: Problem } {
	if (raw === undefined || raw === null) return { ok: true, labels: [] };
	if (Array.isArray(raw)) {
		const labels: string[] = [];
		for (let index = 0; index < raw.length; index++) {
			const item: unknown = raw[index];
			const label = textOf(item)?.trim();
			if (label !== undefined) {
				if (label !== '') labels.push(label);
				continue;
			}
			const hint = typeof item === 'object' && !Array.isArray(item) ? ', e.g. {{ $json.items.map(item => item.name) }}' : '';
			return {
				ok: false,
				problem: { at: 'labels', message: `item ${index + 1} of the list is ${describeValue(item)}, not text; give a list of texts${hint}` },
			};
		}
		return { ok: true, labels };
	}
	if (typeof raw === 'number' || typeof raw === 'boolean') {
		const label = textOf(raw);
		if (label === undefined) return { ok: false, problem: { at: 'labels', message: `must be a list of texts, got ${describeValue(raw)}` } };
		return { ok: true, labels: [label] };
	}
	if (typeof raw !== 'string') return { ok: false, problem: { at: 'labels', message: `must be a list of texts, got ${describeValue(raw)}` } };
	const text = raw.trim();
	if (text.startsWith('[')) {
		// An array that went through a text field, e.g. "{{ $json.list }}" inside other text, arrives as JSON.
		try {
			const parsed: unknown = JSON.parse(text);
			if (Array.isArray(parsed)) return parseLabels(parsed);
		} catch {
			// Not JSON: a label that happens to start with "[", read as a plain list below.
		}
	}
	const separator = text.includes('\n') ? /\r?\n/ : ',';
	return {
		ok: true,
		labels: text
			.split(separator)
			.map((label) => label.trim())
			.filter((label) => label !== ''),
	};
}

/** The first unknown placeholder of a template, e.g. "{lable}", as a problem of its field. */
function templateProblem(template: string, field: string): Problem | undefined {
	const unknown = [...template.matchAll(PLACEHOLDER)]
		.map((match) => match[1])
		.find((name) => !(GRID_PLACEHOLDERS as readonly string[]).includes(name));
	if (unknown === undefined) return undefined;
	return { at: field, message: `unknown placeholder {${unknown}}; use ${GRID_PLACEHOLDERS.map((name) => `{${name}}`).join(', ')}` };
}

/**
 * Fills a template. With `encode` (URL templates), values are percent-encoded, except when the
 * template starts with a placeholder: that placeholder supplies the whole address (labels that are URLs).
 */
function fillTemplate(template: string, values: Record<Placeholder, string>, encode = false): string {
	const raw = !encode || /^\s*\{\w+\}/.test(template);
	return template.replace(PLACEHOLDER, (whole: string, name: string) => {
		if (!(GRID_PLACEHOLDERS as readonly string[]).includes(name)) return whole;
		const value = values[name as Placeholder];
		return raw ? value : encodeURIComponent(value);
	});
}

function checkColumns(columns: unknown): number | Problem {
	const { min, max } = LIMITS.buttonsPerRow;
	const value = typeof columns === 'string' && columns.trim() !== '' ? Number(columns) : columns;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
		const got = typeof value === 'number' ? String(value) : describeValue(columns);
		return { at: 'Buttons per Row', message: `${got}; it must be a whole number from ${min} to ${max}` };
	}
	return value;
}

/** Lays the labels out left to right, `columns` per row; the last row holds the rest. */
export function buildGrid(settings: GridSettings, maxRows?: number): GridResult {
	const columns = checkColumns(settings.columns);
	if (typeof columns !== 'number') return { ok: false, problem: columns };
	const parsed = parseLabels(settings.labels);
	if (!parsed.ok) return parsed;
	const { labels } = parsed;
	if (labels.length === 0) {
		return { ok: false, problem: { at: 'labels', message: 'the list is empty; give at least one label, or choose None for no keyboard' } };
	}
	const rowCount = Math.ceil(labels.length / columns);
	if (maxRows !== undefined && rowCount > maxRows) {
		return {
			ok: false,
			problem: {
				at: 'labels',
				message: `${labels.length} labels at ${columns} per row make ${rowCount} rows, the limit is ${maxRows}; raise Buttons per Row or shorten the list`,
			},
		};
	}
	const { action } = settings;
	const problem = templateProblem(settings.buttonText, 'Button Text') ?? (action && templateProblem(action.template, action.fieldName));
	if (problem) return { ok: false, problem };
	const rows: Button[][] = [];
	labels.forEach((label, index) => {
		const row = Math.floor(index / columns);
		const column = index % columns;
		const values = { label, index: String(index + 1), row: String(row + 1), column: String(column + 1) };
		if (column === 0) rows.push([]);
		const button: Button = { text: fillTemplate(settings.buttonText, values) };
		if (action) button[action.field] = fillTemplate(action.template, values, action.field === 'url');
		rows[row].push(button);
	});
	return { ok: true, rows, labels, columns };
}

/** Adds the label a grid button came from to a problem's place: "row 3, button 1 (label 5 "Blue")". */
export function withLabel(problem: Problem, labels: string[], columns: number): Problem {
	const [, row, button] = problem.path ?? [];
	if (typeof row !== 'number' || typeof button !== 'number') return problem;
	const index = row * columns + button;
	const label = labels[index];
	return label === undefined ? problem : { ...problem, at: `${problem.at} (label ${index + 1} ${quote(label)})` };
}
