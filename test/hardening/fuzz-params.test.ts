/**
 * Property-based fuzzing of every operation's parameters (model: fuzz-model.ts).
 *
 * For each operation (keyboards in each of their modes):
 * - through the real node (n8n-core WorkflowExecute, expressions resolved by n8n): batches of
 *   generated invalid items with "On Error: Continue" → one paired error item per input item, each a
 *   NodeOperationError message naming its item and field, and the emulator received nothing; one
 *   run without Continue On Fail → the execution fails with a NodeOperationError naming item 1;
 * - the validation layer directly (`readItem`, the phase the node runs for every
 *   item before anything is sent, in a minimal execute context): many more invalid items, each
 *   must throw a NodeOperationError naming item and field and carrying the item index;
 * - generated valid items: accepted by `readItem`, and through the node each is sent exactly once.
 *
 * Sizes: set FUZZ_SCALE (default 1) to multiply every batch, e.g. FUZZ_SCALE=5 for a long run.
 */
import fc from 'fast-check';
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { methodOf } from '../../nodes/ServiceBot/resources';
import { callMethodOperation } from '../../nodes/ServiceBot/actions/callMethod';
import type { ItemOperation } from '../../nodes/ServiceBot/actions/runItems';
import { methodOperation, readItem } from '../../nodes/ServiceBot/actions/runItems';
import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import type { Emulator } from '../emulator';
import { credentialsFor, useEmulator } from '../harness/emulator-suite';
import { executeNode } from '../harness';
import { NEWEST_VERSION } from '../harness/action-node';
import { invalidItem, namesItemAndField, validItem, VARIANTS, type InvalidItem, type Variant } from './fuzz-model';

const SCALE = Math.max(1, Number(process.env.FUZZ_SCALE ?? 1) || 1);
/** Per operation variant: node runs × items per run, direct runs × items per run. */
const NODE_RUNS = 2;
const NODE_ITEMS = 55 * SCALE;
const DIRECT_RUNS = 4;
const DIRECT_ITEMS = 60 * SCALE;
const VALID_NODE_ITEMS = 12;

const counts = { nodeInvalid: 0, directInvalid: 0, nodeValid: 0, directValid: 0, nodeRuns: 0 };
const nodeType = new ServiceBot();
let emu: Emulator;
// Valid getUpdates items may ask for a long poll of up to 50 s: the emulator answers at once.
useEmulator({ emulator: { longPollMaxMs: 10 }, started: (started) => (emu = started) });

afterAll(() => {
	console.log(`parameter fuzzing: ${JSON.stringify(counts)}`);
});

/** Only variants with something to break (Get Webhook Info has no parameters). */
const FUZZED = VARIANTS.filter((variant) => variant.fields.length > 0);

// ------------------------------------------------------------------ the validation layer directly

const EXPRESSION = /^=\{\{ \$json\.(\w+) \}\}$/;

/** What n8n's parameter resolution gives for `={{ $json.key }}`: the item's value, as it is. */
function resolve(value: unknown, json: IDataObject): unknown {
	if (typeof value === 'string') {
		const match = EXPRESSION.exec(value);
		return match ? json[match[1]] : value;
	}
	if (Array.isArray(value)) return value.map((entry) => resolve(entry, json));
	if (value !== null && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, resolve(entry, json)]));
	}
	return value;
}

/** The part of IExecuteFunctions that `readItem` uses: no HTTP helpers at all, so no request can be made. */
function prepareContext(parameters: INodeParameters, items: IDataObject[]): IExecuteFunctions {
	const node: INode = {
		id: 'fuzz',
		name: 'Service Bot',
		type: 'n8n-nodes-service-bot.serviceBot',
		typeVersion: NEWEST_VERSION,
		position: [0, 0],
		parameters,
	};
	const context = {
		getNode: () => node,
		getInputData: (): INodeExecutionData[] => items.map((json) => ({ json })),
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
			const raw = parameters[name];
			return raw === undefined ? fallback : resolve(raw, items[itemIndex]);
		},
		continueOnFail: () => false,
		// A node with nothing before it: no polling trigger whose placeholder a send would replace.
		getParentNodes: () => [],
	};
	return context as unknown as IExecuteFunctions;
}

/** The operation a variant runs, as the node's router finds it (Call Method is not a row of the table). */
function operationOfVariant(variant: Variant): ItemOperation {
	if (variant.resource === 'other' && variant.operation === 'callMethod') return callMethodOperation;
	const method = methodOf(variant.resource, variant.operation);
	if (!method) throw new Error(`no operation ${variant.resource}.${variant.operation}`);
	return methodOperation(method, NEWEST_VERSION);
}

function shown(value: unknown): string {
	try {
		const text = JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'number' && !Number.isFinite(inner) ? String(inner) : inner));
		return text.length > 300 ? `${text.slice(0, 300)}…` : text;
	} catch {
		return String(value);
	}
}

async function expectRejected(variant: Variant, cases: readonly InvalidItem[]): Promise<void> {
	const method = operationOfVariant(variant);
	const context = prepareContext(
		variant.parameters,
		cases.map((item) => item.json),
	);
	for (let itemIndex = 0; itemIndex < cases.length; itemIndex++) {
		const { json, label } = cases[itemIndex];
		let thrown: unknown;
		try {
			readItem(context, method, itemIndex);
		} catch (error) {
			thrown = error;
		}
		if (!(thrown instanceof NodeOperationError)) {
			throw new Error(
				`${variant.name}: item ${itemIndex} with a bad ${label} was ${thrown ? `met with ${String(thrown)}` : 'accepted'}: ${shown(json)}`,
			);
		}
		if (!namesItemAndField(thrown.message, itemIndex, label) || thrown.context.itemIndex !== itemIndex) {
			throw new Error(`${variant.name}: the error for a bad ${label} in item ${itemIndex} was "${thrown.message}": ${shown(json)}`);
		}
	}
	counts.directInvalid += cases.length;
}

async function expectAccepted(variant: Variant, items: IDataObject[]): Promise<void> {
	const method = operationOfVariant(variant);
	const context = prepareContext(variant.parameters, items);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const prepared = readItem(context, method, itemIndex);
			expect(prepared.requests).toHaveLength(1);
		} catch (error) {
			throw new Error(`${variant.name}: valid item ${itemIndex} was refused: ${String(error)}: ${shown(items[itemIndex])}`);
		}
	}
	counts.directValid += items.length;
}

// ------------------------------------------------------------------ through the real node

async function runNode(variant: Variant, items: IDataObject[], continueOnFail: boolean) {
	counts.nodeRuns++;
	return await executeNode({
		nodeType,
		parameters: variant.parameters,
		items,
		credentials: credentialsFor(emu),
		continueOnFail,
	});
}

describe.each(FUZZED.map((variant) => [variant.name, variant] as const))('%s', (_name, variant) => {
	it('invalid items through the node: a paired error naming item and field each, nothing sent', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(invalidItem(variant), { minLength: NODE_ITEMS, maxLength: NODE_ITEMS }), async (cases) => {
				emu.calls.length = 0;
				const result = await runNode(
					variant,
					cases.map((item) => item.json),
					true,
				);
				expect(result.error).toBeUndefined();
				expect(emu.calls).toHaveLength(0);
				expect(result.output).toHaveLength(cases.length);
				result.output.forEach((item, itemIndex) => {
					const error = String(item.json.error ?? '');
					if (!namesItemAndField(error, itemIndex, cases[itemIndex].label) || (item.pairedItem as { item: number }).item !== itemIndex) {
						throw new Error(`item ${itemIndex} (bad ${cases[itemIndex].label}) gave ${shown(item)} for ${shown(cases[itemIndex].json)}`);
					}
				});
				counts.nodeInvalid += cases.length;
			}),
			{ numRuns: NODE_RUNS, endOnFailure: true },
		);
	});

	it('without Continue On Fail: the execution fails with a NodeOperationError naming item 1, nothing sent', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(invalidItem(variant), { minLength: 3, maxLength: 3 }), async (cases) => {
				emu.calls.length = 0;
				const result = await runNode(
					variant,
					cases.map((item) => item.json),
					false,
				);
				expect(result.error?.name).toBe('NodeOperationError');
				if (!namesItemAndField(String(result.error?.message), 0, cases[0].label)) {
					throw new Error(`"${result.error?.message}" for a bad ${cases[0].label} in ${shown(cases[0].json)}`);
				}
				expect(emu.calls).toHaveLength(0);
				counts.nodeInvalid += 1;
			}),
			{ numRuns: 2, endOnFailure: true },
		);
	});

	it('invalid items in the validation layer: NodeOperationError naming item and field, with its index', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(invalidItem(variant), { minLength: DIRECT_ITEMS, maxLength: DIRECT_ITEMS }), async (cases) => {
				await expectRejected(variant, cases);
			}),
			{ numRuns: DIRECT_RUNS },
		);
	});

	it('valid items are accepted by the validation layer', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(validItem(variant), { minLength: 1, maxLength: 40 }), async (items) => {
				await expectAccepted(variant, items);
			}),
			{ numRuns: 5 },
		);
	});

	it('valid items through the node: each sent exactly once, none refused as input', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(validItem(variant), { minLength: VALID_NODE_ITEMS, maxLength: VALID_NODE_ITEMS }), async (items) => {
				emu.calls.length = 0;
				const result = await runNode(variant, items, true);
				expect(result.error).toBeUndefined();
				const refused = result.output.filter((item) => String(item.json.error ?? '').startsWith('Item '));
				if (refused.length > 0) throw new Error(`valid input refused: ${shown(refused[0].json)}`);
				expect(emu.calls).toHaveLength(items.length);
				counts.nodeValid += items.length;
			}),
			{ numRuns: 1, endOnFailure: true },
		);
	});
});

describe('findings of the fuzzing, pinned', () => {
	const variant = (name: string): Variant => {
		const found = VARIANTS.find((candidate) => candidate.name === name);
		if (!found) throw new Error(`no variant ${name}`);
		return found;
	};

	it('NaN and Infinity from an expression are refused as text (they used to be sent as "NaN", "Infinity")', async () => {
		const cases: InvalidItem[] = [
			{ json: { languageCode: Number.NaN }, label: 'Language Code' },
			{ json: { languageCode: Number.POSITIVE_INFINITY }, label: 'Language Code' },
		];
		await expectRejected(variant('getMyName'), cases);
		const method = operationOfVariant(variant('callMethod'));
		for (const value of [Number.NaN, Number.NEGATIVE_INFINITY]) {
			expect(() => readItem(prepareContext(variant('callMethod').parameters, [{ method: value, body: '{}' }]), method, 0)).toThrow(
				`Method: expected text, got ${String(value)} [item 0]`,
			);
		}
	});

	it('a NaN is shown as NaN in the error, not as null', async () => {
		const method = operationOfVariant(variant('getUpdates'));
		expect(() => readItem(prepareContext(variant('getUpdates').parameters, [{ offset: Number.NaN }]), method, 0)).toThrow(
			'Offset: NaN is not a whole number [item 0]',
		);
	});
});

describe('totals', () => {
	it('covers every operation and at least 10,000 invalid inputs, a substantial share through the node', () => {
		const operations = new Set(FUZZED.map((variant) => `${variant.resource}.${variant.operation}`));
		// The 33 methods of the spec + Call Method, minus Get Webhook Info (no parameters).
		expect(operations.size).toBe(33);
		expect(counts.nodeInvalid + counts.directInvalid).toBeGreaterThanOrEqual(10_000);
		expect(counts.nodeInvalid).toBeGreaterThanOrEqual(5_000);
		expect(counts.nodeValid + counts.directValid).toBeGreaterThanOrEqual(1_000);
	});
});
