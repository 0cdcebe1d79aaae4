/**
 * A list of wire parameters as the editor shows them and as an item reads them: required ones on
 * top in their order, then "Additional Fields" with the optional ones; each read and checked by its
 * kind (kinds.ts) into the request body before anything is sent, then prepared by the kinds' steps.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { At } from './errors';
import { explainEmptyExpression, warnIfEveryExpressionEmpty } from './emptyExpression';
import { checkFixedValue } from './fixed';
import type { Fallback, ReadItem } from './kind';
import { PARAM_KINDS } from './kinds';
import type { ItemContext, Param } from './param';
import { fieldName, isEmpty, isInVersion, nodeParameter, removalFieldName } from './param';

/** Optional parameters live in "Additional Fields", unless their kind has fields of its own (the keyboard). */
function inAdditionalFields(param: Param): boolean {
	return !param.required && PARAM_KINDS[param.kind].ownFields !== true;
}

/** The editor fields of one parameter at a node version. */
export function fieldsOf(param: Param, version: number): INodeProperties[] {
	return PARAM_KINDS[param.kind].fields(param, version);
}

/** A required value whose removal is an explicit choice: the Set / Remove selector, then the value. */
function removableFields(param: Param, noun: string, version: number): INodeProperties[] {
	const selector = removalFieldName(param);
	const set = 'set';
	return [
		{
			displayName: `${noun} Action`,
			name: selector,
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: `Remove ${noun}`, value: 'remove', description: `Remove the current ${noun.toLowerCase()}` },
				{ name: `Set ${noun}`, value: set, description: `Set the ${noun.toLowerCase()} below` },
			],
			default: set,
		},
		...fieldsOf(param, version).map((field) => ({ ...field, displayOptions: { show: { [selector]: [set] } } })),
	];
}

/** The editor fields of the parameters a node version has. */
export function paramFields(params: readonly Param[], version: number): INodeProperties[] {
	const inVersion = params.filter((param) => isInVersion(param, version));
	const top = inVersion
		.filter((param) => !inAdditionalFields(param))
		.flatMap((param) => (param.removable ? removableFields(param, param.removable, version) : fieldsOf(param, version)));
	const optional = inVersion
		.filter(inAdditionalFields)
		.flatMap((param) => fieldsOf(param, version))
		.sort((a, b) => a.displayName.localeCompare(b.displayName));
	if (optional.length === 0) return top;
	return [
		...top,
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: optional,
		},
	];
}

/** Checks a value of one parameter as its kind does; `undefined` sends nothing. */
export function checkValue(item: ReadItem, param: Param, value: unknown): unknown {
	if (!param.required && isEmpty(value)) return undefined;
	return PARAM_KINDS[param.kind].read(value, param, item);
}

/**
 * Reads and checks one parameter of an item; `undefined` sends nothing. A Fixed value that looks like
 * an expression is caught first (fixed.ts), before the kind's check would call it malformed.
 */
export function readParam(item: ReadItem, param: Param, additional: IDataObject = {}): unknown {
	const kind = PARAM_KINDS[param.kind];
	if (kind.ownFields) return kind.read(undefined, param, item);
	if (param.removable && nodeParameter(item.ctx, removalFieldName(param), item.itemIndex, 'set') === 'remove') return '';
	const field = fieldName(param);
	const underAdditional = inAdditionalFields(param);
	const value = underAdditional ? additional[field] : nodeParameter(item.ctx, field, item.itemIndex, '');
	const path = underAdditional ? `additionalFields.${field}` : field;
	checkFixedValue(item, param, path);
	warnIfEveryExpressionEmpty(item, param, path, value);
	try {
		return checkValue(item, param, value);
	} catch (error) {
		throw explainEmptyExpression(item, param, path, value, error);
	}
}

/**
 * Reads and checks the request body of one item. Throws `NodeOperationError` naming the item and
 * the field before anything is sent.
 */
export function readBody(context: ItemContext, params: readonly Param[], version: number): IDataObject {
	const { ctx, itemIndex } = context;
	const at: At = { node: ctx.getNode(), itemIndex };
	const item: ReadItem = { ...context, at, version };
	const inVersion = params.filter((param) => isInVersion(param, version));
	const additional = inVersion.some(inAdditionalFields) ? (nodeParameter(ctx, 'additionalFields', itemIndex, {}) as IDataObject) : {};
	const body: IDataObject = {};
	for (const param of inVersion) {
		const value = readParam(item, param, additional);
		if (value !== undefined) body[param.name] = value as IDataObject[keyof IDataObject];
	}
	return body;
}

/** An item's request body as the kinds' steps made it, and what goes out instead if the service refuses what they did. */
export interface PreparedBody {
	readonly body: IDataObject;
	readonly fallbacks: readonly Fallback[];
}

/** The kinds' steps on an item's checked request body (kind.ts `prepare`), in the order of the parameters. */
export function prepareBody(body: IDataObject, params: readonly Param[], version: number): PreparedBody {
	let prepared = body;
	const fallbacks: Fallback[] = [];
	for (const param of params) {
		const step = isInVersion(param, version) ? PARAM_KINDS[param.kind].prepare?.(prepared, param) : undefined;
		if (!step) continue;
		prepared = step.body;
		if (step.fallback) fallbacks.push(step.fallback);
	}
	return { body: prepared, fallbacks };
}
