/** A GitHub table, which the service has no HTML for: shown monospaced, in aligned columns. */
import { escapeHtml } from './html';
import { inlineText } from './inline';

/** A table's delimiter row: cells of `:?-+:?` between pipes, the outer pipes optional. */
export function isTableDelimiter(line: string): boolean {
	let row = line.trim();
	if (row.startsWith('|')) row = row.slice(1);
	if (row.endsWith('|')) row = row.slice(0, -1);
	for (const cell of row.split('|')) {
		const trimmed = cell.trim();
		const from = trimmed.startsWith(':') ? 1 : 0;
		const to = trimmed.length - (trimmed.length > from && trimmed.endsWith(':') ? 1 : 0);
		if (to <= from) return false;
		for (let index = from; index < to; index++) if (trimmed[index] !== '-') return false;
	}
	return true;
}

/** Whether a line may still become a delimiter row as more of it is written: only `|`, `:`, `-` and spaces. */
export function mayBecomeDelimiter(line: string): boolean {
	return MAY_BECOME_DELIMITER.test(line);
}

const MAY_BECOME_DELIMITER = /^[ \t|:-]*$/;

function tableCells(line: string): string[] {
	let row = line.trim();
	if (row.startsWith('|')) row = row.slice(1);
	if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
	const cells: string[] = [];
	let start = 0;
	for (let index = 0; index <= row.length; index++) {
		if (index < row.length && (row[index] !== '|' || row[index - 1] === '\\')) continue;
		cells.push(inlineText(row.slice(start, index).trim().replace(/\\\|/g, '|')));
		start = index + 1;
	}
	return cells;
}

/** Aligned columns may pad a table up to this many times its own length; beyond, cells are not padded. */
const TABLE_PADDING_FACTOR = 4;

/** A table in aligned columns, monospaced: the service has no table. */
export function renderTable(header: string, rows: string[]): string {
	const lines = [tableCells(header), ...rows.map(tableCells)];
	const widths: number[] = [];
	let written = header.length;
	for (const row of rows) written += row.length;
	for (const cells of lines) {
		for (let column = 0; column < cells.length; column++) widths[column] = Math.max(widths[column] ?? 0, Array.from(cells[column]).length);
	}
	let lineWidth = 0;
	for (const width of widths) lineWidth += width + 3;
	// A few wide columns over many short rows would pad the text to the square of its length.
	const aligned = lineWidth * lines.length <= TABLE_PADDING_FACTOR * written + 1024;
	const format = (cells: string[]): string =>
		aligned
			? widths
					.map((width, column) => {
						const cell = cells[column] ?? '';
						return cell + ' '.repeat(width - Array.from(cell).length);
					})
					.join(' | ')
					.trimEnd()
			: cells.join(' | ');
	const rule = (aligned ? widths : lines[0].map((cell) => Array.from(cell).length)).map((width) => '-'.repeat(Math.max(width, 1))).join('-+-');
	return `<pre>${escapeHtml([format(lines[0]), rule, ...lines.slice(1).map(format)].join('\n'))}</pre>`;
}
