'use strict';
/**
 * What happened to each input row: created at the service (from the simulator's
 * createdByPhone), duplicated, reported as an error item by the node, or lost
 * (neither created nor reported).
 */
const { phoneOf } = require('./workflows');

function isErrorItem(item) {
	return Boolean(
		item &&
		item.json &&
		item.json.error !== undefined &&
		item.json.error !== null &&
		item.json.error !== false,
	);
}

function pairedIndex(item, position) {
	const p = item && item.pairedItem;
	if (typeof p === 'number') return p;
	if (Array.isArray(p)) return p.length ? p[0].item : position;
	if (p && typeof p.item === 'number') return p.item;
	return position;
}

/**
 * rows: how many rows went in; createdByPhone: simulator map phone → times created;
 * items: the node's output items (may be empty when the node failed); nodeFailed: the node
 * ended in an error (n8n then discards its output; the rows are reported by that error).
 */
function account({ rows, createdByPhone, items = [], nodeFailed = false }) {
	const errorRows = new Set();
	const okRows = new Set();
	items.forEach((item, position) => {
		const index = pairedIndex(item, position);
		if (isErrorItem(item)) errorRows.add(index);
		else okRows.add(index);
	});
	let created = 0;
	let duplicated = 0;
	let lost = 0;
	let errorButCreated = 0;
	let okButNotCreated = 0;
	let notCreated = 0;
	for (let i = 0; i < rows; i++) {
		const times = createdByPhone[phoneOf(i)] || 0;
		if (times > 0) created++;
		else notCreated++;
		if (times > 1) duplicated += times - 1;
		if (times > 0 && errorRows.has(i)) errorButCreated++;
		if (times === 0 && okRows.has(i)) okButNotCreated++;
		if (times === 0 && !errorRows.has(i) && !nodeFailed) lost++;
	}
	return {
		rows,
		created,
		notCreated,
		duplicated,
		okItems: okRows.size,
		errorItems: errorRows.size,
		errorButCreated,
		okButNotCreated,
		// includes rows reported OK that the service never created (okButNotCreated)
		lost: nodeFailed ? null : lost,
		nodeFailed,
	};
}

module.exports = { account, isErrorItem, pairedIndex };
