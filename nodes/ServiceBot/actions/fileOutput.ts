/**
 * The output of a method whose result is a file the service keeps (Output `file`: Get File): the
 * file downloaded into the item's binary data, in the field the options name, or (Download off)
 * only what the service says of it. Its options, checked with the item before any request.
 */
import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ASK_FOR_A_SMALLER_FILE, downloadInto, failureText, serviceFileOf } from '../../shared/files';
import type { At } from '../parameters/errors';
import { inputError } from '../parameters/errors';

/** Where the file goes unless the options say otherwise: the field n8n's nodes read files from by default. */
const DEFAULT_FIELD = 'data';
const FIELD_NAME = 'Put Output File in Field';

export const FILE_OPTIONS: readonly INodeProperties[] = [
	{
		displayName: 'Download',
		name: 'download',
		type: 'boolean',
		default: true,
		description:
			"Whether to download the file into the item's binary data. Off: only what the service says of the file (file_id, file_unique_id, file_size, file_path), nothing downloaded.",
	},
	{
		displayName: FIELD_NAME,
		name: 'binaryPropertyName',
		type: 'string',
		default: DEFAULT_FIELD,
		description: 'The name of the binary field to put the file in',
	},
];

/** How an item's file is output: into the binary field `field`; undefined: not downloaded. */
export interface FileDelivery {
	readonly field: string;
}

/** The options of an item, checked before any request. */
export function readFileDelivery(options: IDataObject, at: At): FileDelivery | undefined {
	if (options.download === false || options.download === 'false') return undefined;
	const field = options.binaryPropertyName ?? DEFAULT_FIELD;
	if (typeof field !== 'string' || field.trim() === '') {
		throw inputError(at, FIELD_NAME, `is required: the name of the binary field for the file, e.g. ${DEFAULT_FIELD}`);
	}
	return { field: field.trim() };
}

/**
 * The file `result` (getFile's answer to `body`) describes, downloaded into the binary field. A
 * failure names the file (never its path) and says what to do; the service's typed failure stays.
 */
export async function downloadedFile(
	ctx: IExecuteFunctions,
	result: unknown,
	body: IDataObject,
	delivery: FileDelivery,
	itemIndex: number,
): Promise<IBinaryKeyData> {
	const fileId = String(body.file_id ?? '');
	return await downloadInto(ctx, serviceFileOf(result), { fileId }, itemIndex).then(
		(binary) => ({ [delivery.field]: binary }),
		async (error: unknown) => {
			const message = failureText(error, { fileId }, ASK_FOR_A_SMALLER_FILE);
			if (!(error instanceof NodeApiError)) throw new NodeOperationError(ctx.getNode(), `${message} [item ${itemIndex}]`, { itemIndex });
			// The service's failure stays with the error (the transport's typed failure); only its words change.
			error.message = message;
			return await Promise.reject(error);
		},
	);
}
