/**
 * What a parameter kind is: the editor fields of a parameter of that kind and the reader of its
 * value. One module per kind (or per family of small kinds) defines both, so a kind's field and its
 * check change together; kinds.ts registers them.
 */
import type { INodeProperties } from 'n8n-workflow';

import type { At } from './errors';
import type { ItemContext, Param } from './param';
import { fieldName } from './param';

/** An item being read, and where its problems are reported. */
export interface ReadItem extends ItemContext {
	readonly at: At;
}

export interface ParamKindDefinition {
	/** The editor fields of a parameter of this kind (the keyboard and the commands bring several). */
	readonly fields: (param: Param) => INodeProperties[];
	/**
	 * The checked wire value of one item, from `value` (the field's value; kinds with fields of their
	 * own read those from `item`); `undefined` sends nothing. Throws the input error naming the field.
	 */
	readonly read: (value: unknown, param: Param, item: ReadItem) => unknown;
	/**
	 * The kind reads fields of its own (`value` is not used): they stay on top, never in "Additional
	 * Fields", and are read even when optional.
	 */
	readonly ownFields?: boolean;
}

/** The name, texts and editor requirement every kind's main field starts from. */
export function baseField(param: Param, required = param.required) {
	return {
		displayName: param.displayName,
		name: fieldName(param),
		description: param.description,
		...(required ? { required: true } : {}),
		...(param.placeholder ? { placeholder: param.placeholder } : {}),
		...(param.hint ? { hint: param.hint } : {}),
	};
}
