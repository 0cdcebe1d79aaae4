/**
 * The media parameter of Send Photo / Video / Document / Voice: where the file comes from, and the
 * reader of each source.
 * - **Media ID** (saved workflows have it): the UUID of a file already in the service's media storage.
 * - **Binary File**: a file of the input item (n8n's binary data), uploaded with the request. A file
 *   n8n keeps outside the item (it has an `id`: filesystem mode, tested, and n8n's other storage
 *   modes through the same helper) is read from n8n's stream while the request goes out, not loaded
 *   whole first; one kept in the item is sent from its buffer. Checked before anything is sent:
 *   present, not empty, within the upload limit, an image where the method sends images.
 */
import type { IBinaryData, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { megabytes } from '../../shared/files';
import { LIMITS } from '../../shared/spec';
import { FileUpload } from '../../shared/transport/upload';
import type { At } from './errors';
import { inputError, listWords, quote } from './errors';
import { checkFixedValue } from './fixed';
import type { ParamKindDefinition, ReadItem } from './kind';
import { baseField } from './kind';
import type { Param } from './param';
import { fieldName, nodeParameter } from './param';
import { checkUuid } from './values';

/** The field names of the source choice, shared by the four media methods (a value stays when the operation changes). */
const MEDIA_FIELDS = {
	source: 'mediaSource',
	binaryProperty: 'binaryPropertyName',
	fileName: 'fileName',
	mimeType: 'mimeType',
} as const;

const MEDIA_ID = 'mediaId';
const BINARY_FILE = 'binaryFile';

const BINARY_FIELD = 'Input Binary Field';
const MIME_TYPE_FIELD = 'MIME Type';

/**
 * A MIME type as a Content-Type carries it: `type/subtype` (RFC 6838's names), with parameters such
 * as `; charset=utf-8`. Anything else would be sent mangled (line breaks are dropped from a part's
 * header), so it is refused before any request.
 */
const MIME_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(?:[ \t]*;[ \t]*[\w!#$&^.+-]+=[\w!#$&^.+-]+)*$/;

/** Chunks of n8n's binary data stream while a file is uploaded. */
const READ_CHUNK_BYTES = 256 * 1024;

const UPLOAD_LIMIT = LIMITS.uploadBytes.max;

/** The exact size of a file: newer n8n records it (`bytes`); in memory, its base64 says it; else unknown. */
function sizeOf(binary: IBinaryData): number | undefined {
	if (typeof binary.bytes === 'number') return binary.bytes;
	if (binary.id || typeof binary.data !== 'string') return undefined;
	const base64 = binary.data.replace(/\s/g, '');
	const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
	return (base64.length / 4) * 3 - padding;
}

/** The input item's file in `property`, or the error that says which files the item has. */
function binaryOf(ctx: IExecuteFunctions, at: At, property: string): IBinaryData {
	const binaries = ctx.getInputData()[at.itemIndex]?.binary ?? {};
	const file = binaries[property];
	if (file) return file;
	const present = Object.keys(binaries);
	if (present.length === 0) {
		throw inputError(
			at,
			BINARY_FIELD,
			`the item has no binary data: the node before must output a file (e.g. Read/Write Files from Disk, or HTTP Request with Response Format "File")`,
		);
	}
	throw inputError(at, BINARY_FIELD, `the item has no binary property ${quote(property)}; it has ${listWords(present.map((name) => quote(name)))}`);
}

function readBinaryFile(param: Param, { ctx, itemIndex, at }: ReadItem): FileUpload {
	const property = String(nodeParameter(ctx, MEDIA_FIELDS.binaryProperty, itemIndex, '') ?? '').trim();
	if (property === '') throw inputError(at, BINARY_FIELD, "is required: the name of the item's binary property that holds the file (usually data)");
	const binary = binaryOf(ctx, at, property);
	const ownName = String(nodeParameter(ctx, MEDIA_FIELDS.fileName, itemIndex, '') ?? '').trim();
	const ownType = String(nodeParameter(ctx, MEDIA_FIELDS.mimeType, itemIndex, '') ?? '').trim();
	if (ownType !== '' && !MIME_TYPE.test(ownType)) {
		const own = binary.mimeType ? ` (${quote(binary.mimeType)})` : '';
		throw inputError(
			at,
			MIME_TYPE_FIELD,
			`${quote(ownType, 60)} is not a MIME type: write it as type/subtype, e.g. application/pdf or text/csv, or leave it empty to send the binary data's own${own}`,
		);
	}
	const extension = binary.fileExtension ? `.${binary.fileExtension}` : '';
	const fileName = ownName || binary.fileName || `${param.name}${extension}`;
	const mimeType = ownType || binary.mimeType || 'application/octet-stream';
	const size = sizeOf(binary);
	const file = `the file ${quote(fileName)} in ${quote(property)}`;
	if (size === 0) throw inputError(at, BINARY_FIELD, `${file} is empty: the service refuses empty files`);
	if (size !== undefined && size > UPLOAD_LIMIT) {
		throw inputError(
			at,
			BINARY_FIELD,
			`${file} is ${megabytes(size)}; the service takes uploads up to ${megabytes(UPLOAD_LIMIT)}: make it smaller, or send a link to it in a message`,
		);
	}
	const only = param.onlyMimeTypes;
	if (only && !mimeType.toLowerCase().startsWith(only.prefix)) {
		throw inputError(
			at,
			ownType ? MIME_TYPE_FIELD : BINARY_FIELD,
			`${file} is ${quote(mimeType)}, not ${only.noun}: send it with ${only.otherwise} instead`,
		);
	}
	const { id } = binary;
	const read = id
		? async function* (): AsyncGenerator<Uint8Array> {
				yield* await ctx.helpers.getBinaryStream(id, READ_CHUNK_BYTES);
			}
		: async function* (): AsyncGenerator<Uint8Array> {
				yield await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
			};
	return new FileUpload(fileName, mimeType, size, read);
}

export const mediaKind: ParamKindDefinition = {
	ownFields: true,
	fields(param) {
		const from = (source: string): INodeProperties['displayOptions'] => ({ show: { [MEDIA_FIELDS.source]: [source] } });
		return [
			{
				displayName: 'Source',
				name: MEDIA_FIELDS.source,
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Media ID', value: MEDIA_ID, description: "A file already in the service's media storage, by its UUID (file_id)" },
					{ name: 'Binary File', value: BINARY_FILE, description: 'A file of the input item, e.g. from Read/Write Files from Disk or HTTP Request' },
				],
				default: MEDIA_ID,
			},
			{ ...baseField(param, true), type: 'string', default: '', placeholder: 'e.g. 3f2b9c1e-6d4a-4f8b-9a1c-2e7d5b8f0a64', displayOptions: from(MEDIA_ID) },
			{
				displayName: BINARY_FIELD,
				name: MEDIA_FIELDS.binaryProperty,
				type: 'string',
				default: 'data',
				required: true,
				hint: 'The name of the input field containing the binary file to be sent',
				description: `Binary property of the input item that holds the file, up to ${megabytes(UPLOAD_LIMIT)}. The output's file_id sends the same file again without uploading it.`,
				displayOptions: from(BINARY_FILE),
			},
			{
				displayName: 'File Name',
				name: MEDIA_FIELDS.fileName,
				type: 'string',
				default: '',
				placeholder: 'e.g. report.pdf',
				description: "Name the chat shows for the file; empty uses the binary data's own",
				displayOptions: from(BINARY_FILE),
			},
			{
				displayName: MIME_TYPE_FIELD,
				name: MEDIA_FIELDS.mimeType,
				type: 'string',
				default: '',
				placeholder: 'e.g. application/pdf',
				description: "Type of the file; empty uses the binary data's own",
				displayOptions: from(BINARY_FILE),
			},
		];
	},
	read(_value, param, item) {
		const source = nodeParameter(item.ctx, MEDIA_FIELDS.source, item.itemIndex, MEDIA_ID);
		if (source === BINARY_FILE) return readBinaryFile(param, item);
		checkFixedValue(item, param, fieldName(param));
		return checkUuid(item.at, param.displayName, nodeParameter(item.ctx, fieldName(param), item.itemIndex, ''), 'media file');
	},
};
