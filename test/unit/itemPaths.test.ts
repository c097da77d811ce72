import {
	ASK_N8N,
	fieldAt,
	itemPathValue,
	sameJson,
} from '../../nodes/CisAutoCall/helpers/itemPaths';

const item = {
	phone: '79990000001',
	name: 'Ann',
	crm: { id: 42, tags: ['a', 'b'] },
	'full name': 'Ann Lee',
	list: [{ x: 1 }],
};

test.each([
	['={{ $json.phone }}', '79990000001'],
	['={{$json.phone}}', '79990000001'],
	['={{ [$json.phone] }}', ['79990000001']],
	['={{ { name: $json.name } }}', { name: 'Ann' }],
	[
		'={{ { crmId: $json.crm.id, "tag list": $json.crm.tags } }}',
		{ crmId: 42, 'tag list': ['a', 'b'] },
	],
	['={{ $json["full name"] }}', 'Ann Lee'],
	["={{ $json['crm'].tags[1] }}", 'b'],
	['={{ $json.list[0].x }}', 1],
	['={{ {} }}', {}],
	['={{ [] }}', []],
])('%s is read from the item', (raw, expected) => {
	const read = itemPathValue(raw);
	expect(read).toBeDefined();
	expect(read!(item)).toEqual(expected);
});

test.each([
	'={{ $json.phone.toString() }}',
	'={{ "7" + $json.phone }}',
	'=7{{ $json.phone }}',
	'={{ $json.phone }} ',
	'={{ $json.phone }}{{ $json.name }}',
	'={{ $input.item.json.phone }}',
	'={{ $json.__proto__ }}',
	'={{ $json.constructor }}',
	'={{ { __proto__: $json.name } }}',
	'={{ { a: $json.name, a: $json.phone } }}',
	'={{ { a: { b: $json.name }} }}',
	'={{ [$json.phone,] }}',
	'={{ $json["a\\"b"] }}',
	'={{ $json. phone }}',
	'={{ $fromAI("phone") }}',
	'=79990000001',
])('%s is left to n8n', (raw) => {
	expect(itemPathValue(raw)).toBeUndefined();
});

test('constants and expressions of a collection are read together; constants stay as saved', () => {
	const read = itemPathValue({
		timezone: '+03:00',
		callbackData: '={{ { crmId: $json.crm.id } }}',
		checkPhone: true,
	});
	expect(read!(item)).toEqual({
		timezone: '+03:00',
		callbackData: { crmId: 42 },
		checkPhone: true,
	});
});

test('a value that is missing, inherited or not plain JSON asks n8n', () => {
	const read = itemPathValue('={{ $json.value }}')!;
	expect(read({})).toBe(ASK_N8N);
	expect(read(Object.create({ value: 'inherited' }))).toBe(ASK_N8N);
	expect(read({ value: undefined })).toBe(ASK_N8N);
	expect(read({ value: new Date(0) })).toBe(ASK_N8N);
	expect(read({ value: { when: new Date(0) } })).toBe(ASK_N8N);
	expect(read({ value: Number.NaN })).toBe(ASK_N8N);
	expect(read(undefined)).toBe(ASK_N8N);
	expect(itemPathValue('={{ $json.a.b }}')!({ a: 'text' })).toBe(ASK_N8N);
	expect(itemPathValue('={{ $json.a[0] }}')!({ a: { 0: 'x' } })).toBe(ASK_N8N);
});

test('objects are copies: changing the result leaves the item alone', () => {
	const source = { crm: { id: 1 } };
	const value = itemPathValue('={{ $json.crm }}')!(source) as { id: number };
	value.id = 2;
	expect(source.crm.id).toBe(1);
});

test('sameJson compares plain JSON values', () => {
	expect(sameJson({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
	expect(sameJson({ a: 1 }, { a: '1' })).toBe(false);
	expect(sameJson(['a'], 'a')).toBe(false);
	expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
});

test('fieldAt: a field by the name a user typed: the key as it is first, then a dotted path, never the prototype', () => {
	const json = {
		'crm.id': 'literal',
		crm: { id: 42, tags: ['a', 'b'] },
		phones: ['7999', '7888'],
		'full name': 'Ann Lee',
	};
	expect(fieldAt(json, 'crm.id')).toBe('literal');
	expect(fieldAt({ crm: { id: 42 } }, 'crm.id')).toBe(42);
	expect(fieldAt(json, 'full name')).toBe('Ann Lee');
	expect(fieldAt(json, 'phones.1')).toBe('7888');
	expect(fieldAt(json, 'crm.tags.0')).toBe('a');
	expect(fieldAt(json, 'crm.missing')).toBeUndefined();
	expect(fieldAt(json, 'phones.x')).toBeUndefined();
	for (const name of ['constructor', 'toString', '__proto__', 'crm.constructor', 'phones.length']) {
		expect([name, fieldAt(json, name)]).toEqual([name, undefined]);
	}
	// An item's own field of that name is data (the node then refuses the name where it matters).
	expect(fieldAt(JSON.parse('{"constructor": "x"}'), 'constructor')).toBe('x');
});
