/**
 * What a parameter kind is: the editor fields of a parameter of that kind, the reader of its value,
 * and, where the kind makes more of a request than its value, the step that prepares the request and
 * what to send if the service refuses what it prepared. One module per kind (or per family of small
 * kinds) defines them, so a kind's field, its check and its effect change together; kinds.ts
 * registers them.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { At } from './errors';
import type { ItemContext, Param } from './param';
import { fieldName } from './param';

/** An item being read, and where its problems are reported. */
export interface ReadItem extends ItemContext {
	readonly at: At;
	/** The node's version: a kind's check may be stricter in a newer one (saved workflows keep theirs). */
	readonly version: number;
}

export interface ParamKindDefinition {
	/**
	 * The editor fields of a parameter of this kind (the keyboard and the commands bring several), at a
	 * node version (the fields differ between versions only where `followsTrigger` says so, param.ts).
	 */
	readonly fields: (param: Param, version: number) => INodeProperties[];
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
	/**
	 * The kind's step on an item's checked request body, before its requests are made from it (so a long
	 * text is split as it is sent); undefined when the kind has nothing to do for this body.
	 */
	readonly prepare?: (body: IDataObject, param: Param) => Preparation | undefined;
}

/** A request body as a kind's step made it, and what to send instead if the service refuses what the step did. */
export interface Preparation {
	readonly body: IDataObject;
	readonly fallback?: Fallback;
}

/**
 * What a request goes out as when the service refuses it for what a kind prepared: such a refusal sent
 * nothing, so the request is sent once more in the fallback's form rather than not at all.
 */
export interface Fallback {
	/** Whether the service's error is the refusal this fallback answers. */
	readonly answers: (error: unknown) => boolean;
	/** The body sent instead of the refused one (each part of a split text falls back on its own). */
	readonly body: (refused: IDataObject) => IDataObject;
	/** The warning logged when the fallback was sent, saying what was refused and what went out instead. */
	readonly warning: (error: unknown, itemIndex: number) => string;
	/** The field set to `true` on the output items of a request that went out as the fallback. */
	readonly flag: string;
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
