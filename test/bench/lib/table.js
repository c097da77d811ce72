'use strict';
/** Markdown tables and number formats for the bench's report. */

function table(columns, rows) {
	const head = columns.map((c) => c.title);
	const body = rows.map((r) =>
		columns.map((c) => {
			const v = typeof c.value === 'function' ? c.value(r) : r[c.value];
			return v === undefined || v === null || v === '' ? '–' : String(v);
		}),
	);
	const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
	const line = (cells) =>
		`| ${cells.map((cell, i) => (columns[i].align === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join(' | ')} |`;
	const rule = `| ${widths.map((w, i) => (columns[i].align === 'right' ? `${'-'.repeat(Math.max(1, w - 1))}:` : '-'.repeat(w))).join(' | ')} |`;
	return [line(head), rule, ...body.map(line)].join('\n');
}

const sec = (ms) => (ms === null || ms === undefined ? null : (ms / 1000).toFixed(2));
const mb = (bytes) => (bytes ? Math.round(bytes / (1024 * 1024)) : null);
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : null);

module.exports = { table, sec, mb, ratio };
