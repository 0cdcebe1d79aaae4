import { LIMITS } from '../../../shared/catalogue';
import type { InlineButton, KeyboardKind, Problem, ReplyButton } from './types';
import { describeValue, isRecord, quote } from './types';

/** Placeholders of the auto grid's templates. All numbers are 1-based. */
export const GRID_PLACEHOLDERS = ['label', 'index', 'row', 'column'] as const;
type Placeholder = (typeof GRID_PLACEHOLDERS)[number];

const PLACEHOLDER = /\{(\w+)\}/g;

export type GridAction = 'callbackData' | 'url' | 'switchInlineQuery';

export const GRID_ACTION_FIELDS: Record<GridAction, 'callback_data' | 'url' | 'switch_inline_query'> = {
	callbackData: 'callback_data',
	url: 'url',
	switchInlineQuery: 'switch_inline_query',
};

export interface GridSettings {
	labels: unknown;
	columns: unknown;
	buttonText: string;
	/** Inline keyboards only: what a click does, and the template of its value. */
	action?: GridAction;
	actionTemplate?: string;
}

type LabelsResult = { ok: true; labels: string[] } | { ok: false; problem: Problem };

/**
 * The labels of the auto grid: an array (from an expression), a JSON array in a string, one label per
 * line, or a comma-separated list. Labels are trimmed and blanks skipped; numbers and booleans count as
 * text.
 */
export function parseLabels(raw: unknown): LabelsResult {
	if (raw === undefined || raw === null) return { ok: true, labels: [] };
	if (Array.isArray(raw)) {
		const labels: string[] = [];
		for (let index = 0; index < raw.length; index++) {
			const item: unknown = raw[index];
			if (item === undefined || item === null) continue;
			if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') {
				const label = String(item).trim();
				if (label !== '') labels.push(label);
				continue;
			}
			const hint = isRecord(item) ? ', e.g. {{ $json.items.map(item => item.name) }}' : '';
			return {
				ok: false,
				problem: {
					path: 'labels',
					message: `item ${index + 1} of the list is ${describeValue(item)}, not text; give a list of texts${hint}`,
				},
			};
		}
		return { ok: true, labels };
	}
	if (typeof raw === 'number' || typeof raw === 'boolean') return { ok: true, labels: [String(raw)] };
	if (typeof raw !== 'string') {
		return { ok: false, problem: { path: 'labels', message: `must be a list of texts, got ${describeValue(raw)}` } };
	}
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

/** The unknown placeholders of a template, e.g. "{lable}", as a problem of the field it is in. */
export function templateProblem(template: string, field: string): Problem | undefined {
	const unknown = [...template.matchAll(PLACEHOLDER)]
		.map((match) => match[1])
		.filter((name) => !(GRID_PLACEHOLDERS as readonly string[]).includes(name));
	if (unknown.length === 0) return undefined;
	const known = GRID_PLACEHOLDERS.map((name) => `{${name}}`).join(', ');
	return { path: field, message: `unknown placeholder {${unknown[0]}}; use ${known}` };
}

/**
 * Fills a template. With `encode` (URL templates), values are percent-encoded, except when the template
 * starts with a placeholder: that placeholder supplies the whole address (labels that are URLs).
 */
export function fillTemplate(template: string, values: Record<Placeholder, string>, encode = false): string {
	const raw = !encode || /^\s*\{\w+\}/.test(template);
	return template.replace(PLACEHOLDER, (whole: string, name: string) => {
		if (!(GRID_PLACEHOLDERS as readonly string[]).includes(name)) return whole;
		const value = values[name as Placeholder];
		return raw ? value : encodeURIComponent(value);
	});
}

type GridResult = { ok: true; rows: Array<Array<InlineButton | ReplyButton>>; labels: string[]; columns: number } | { ok: false; problem: Problem };

function checkColumns(columns: unknown): number | Problem {
	const { min, max } = LIMITS.buttonsPerRow;
	const value = typeof columns === 'string' && columns.trim() !== '' ? Number(columns) : columns;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
		const got = typeof value === 'number' ? String(value) : describeValue(columns);
		return { path: 'Buttons per Row', message: `${got}; it must be a whole number from ${min} to ${max}` };
	}
	return value;
}

/** Lays the labels out left to right, `columns` per row; the last row holds the rest. */
export function buildGrid(kind: KeyboardKind, settings: GridSettings): GridResult {
	const columns = checkColumns(settings.columns);
	if (typeof columns !== 'number') return { ok: false, problem: columns };
	const parsed = parseLabels(settings.labels);
	if (!parsed.ok) return parsed;
	const { labels } = parsed;
	if (labels.length === 0) {
		return { ok: false, problem: { path: 'labels', message: 'the list is empty; give at least one label, or choose None for no keyboard' } };
	}
	const rowCount = Math.ceil(labels.length / columns);
	if (kind === 'inline' && rowCount > LIMITS.inlineKeyboardRows.max) {
		return {
			ok: false,
			problem: {
				path: 'labels',
				message: `${labels.length} labels at ${columns} per row make ${rowCount} rows, the limit is ${LIMITS.inlineKeyboardRows.max}; raise Buttons per Row or shorten the list`,
			},
		};
	}
	const textProblem = templateProblem(settings.buttonText, 'Button Text');
	if (textProblem !== undefined) return { ok: false, problem: textProblem };
	const action = settings.action ?? 'callbackData';
	const actionTemplate = settings.actionTemplate ?? '{label}';
	if (kind === 'inline') {
		const problem = templateProblem(actionTemplate, action === 'url' ? 'URL' : action === 'callbackData' ? 'Callback Data' : 'Switch Inline Query');
		if (problem !== undefined) return { ok: false, problem };
	}
	const rows: Array<Array<InlineButton | ReplyButton>> = [];
	labels.forEach((label, index) => {
		const row = Math.floor(index / columns);
		const column = index % columns;
		const values = { label, index: String(index + 1), row: String(row + 1), column: String(column + 1) };
		const text = fillTemplate(settings.buttonText, values);
		if (column === 0) rows.push([]);
		if (kind === 'reply') {
			rows[row].push({ text });
		} else {
			rows[row].push({ text, [GRID_ACTION_FIELDS[action]]: fillTemplate(actionTemplate, values, action === 'url') });
		}
	});
	return { ok: true, rows, labels, columns };
}

/** Adds the label a grid button came from to a problem's path: "row 3, button 1 (label 5 "Blue")". */
export function withLabel(problem: Problem, labels: string[], columns: number): Problem {
	if (problem.row === undefined || problem.button === undefined) return problem;
	const index = problem.row * columns + problem.button;
	const label = labels[index];
	if (label === undefined) return problem;
	return { ...problem, path: `${problem.path} (label ${index + 1} ${quote(label)})` };
}
