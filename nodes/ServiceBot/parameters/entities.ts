/**
 * The entities kind: formatting entities as a JSON array, used instead of a parse mode. The spec
 * does not show their fields; Telegram's type, offset and length are required, the rest passes.
 */
import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod/v4';

import { inputError } from './errors';
import type { At } from './errors';
import { readJson } from './json';
import type { ParamKindDefinition } from './kind';
import { baseField } from './kind';
import { checkList } from './schema';

/** Message entities (spec: fields "not shown"): Telegram's type, offset and length at least. */
const entityList = z.array(
	z.looseObject(
		{
			type: z.string({ error: 'needs "type" (text), "offset" and "length" (whole numbers)' }),
			offset: z.int({ error: 'needs "type" (text), "offset" and "length" (whole numbers)' }),
			length: z.int({ error: 'needs "type" (text), "offset" and "length" (whole numbers)' }),
		},
		{ error: 'is not an object' },
	),
	{ error: 'must be a JSON array of entity objects' },
);

/** Entities as a JSON array; an empty one sends nothing. */
function checkEntityList(at: At, field: string, value: unknown): IDataObject[] | undefined {
	const parsed = readJson(at, field, value);
	if (parsed === undefined || parsed === null) return undefined;
	const checked = checkList(entityList, parsed, 'entry');
	if (!checked.ok) throw inputError(at, field, checked.problems);
	return checked.value.length === 0 ? undefined : (checked.value as IDataObject[]);
}

export const entitiesKind: ParamKindDefinition = {
	fields: (param) => [{ ...baseField(param), type: 'json', default: '[]' }],
	read: (value, param, { at }) => checkEntityList(at, param.displayName, value),
};
