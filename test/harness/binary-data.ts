/**
 * n8n's binary data, as n8n 2.x keeps it by default: in filesystem mode (files under a storage folder,
 * items carrying an `id` and the size in `bytes`). Files for input items are stored through n8n-core's
 * own BinaryDataService, so the node under test reads them with n8n's real helpers (getBinaryStream).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BinaryDataConfig, BinaryDataService } from 'n8n-core';
// n8n-core keeps its own copy of @n8n/di: the container its helpers look the service up in.
import { Container } from 'n8n-core/node_modules/@n8n/di';
import type { IBinaryData, IBinaryKeyData } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY } from '../../nodes/shared/transport/client';

export interface TestFile {
	readonly data: Buffer;
	readonly fileName?: string;
	readonly mimeType?: string;
}

let ready: Promise<BinaryDataService> | undefined;
let storagePath: string | undefined;

/** n8n-core's BinaryDataService in filesystem mode, in a throw-away folder (once per test process). */
async function service(): Promise<BinaryDataService> {
	ready ??= (async () => {
		storagePath = mkdtempSync(join(tmpdir(), 'service-bot-binary-'));
		const config = Container.get(BinaryDataConfig);
		config.mode = 'filesystem';
		config.localStoragePath = storagePath;
		const binaryData = Container.get(BinaryDataService);
		await binaryData.init();
		return binaryData;
	})();
	return await ready;
}

/** Stores files as an item's binary data, keyed by property (`{data: file}`), as n8n stores a node's output. */
export async function storeFiles(files: Record<string, TestFile>, executionId = 'harness-input'): Promise<IBinaryKeyData> {
	const binaryData = await service();
	const out: IBinaryKeyData = {};
	for (const [property, file] of Object.entries(files)) {
		const fileExtension = file.fileName?.includes('.') ? file.fileName.split('.').pop() : undefined;
		const meta: IBinaryData = { data: '', mimeType: file.mimeType ?? 'application/octet-stream', fileName: file.fileName, fileExtension };
		out[property] = await binaryData.store({ type: 'execution', workflowId: 'harness-workflow', executionId }, file.data, meta);
	}
	return out;
}

/** Removes the storage folder (afterAll). */
export function removeStoredFiles(): void {
	if (storagePath) rmSync(storagePath, { recursive: true, force: true });
	ready = undefined;
	storagePath = undefined;
}

/**
 * Starts n8n-core's binary data store in filesystem mode (once per test process), as n8n 2.x runs by
 * default: a file a node makes with `prepareBinaryData` is then streamed to disk and its item
 * carries an `id`, not the bytes. Without it n8n-core keeps files in the item (base64).
 */
export async function useBinaryDataStore(): Promise<void> {
	await service();
}

/** The bytes of a file a node put on an item, read back through n8n-core's BinaryDataService. */
export async function readBinary(binary: IBinaryData): Promise<Buffer> {
	return await (await service()).getAsBuffer(binary);
}

/** The metadata n8n-core stored beside a file (the store's own record of its name and type). */
export async function storedMetadata(binary: IBinaryData): Promise<{ fileName?: string; mimeType?: string; fileSize: number } | undefined> {
	return binary.id === undefined ? undefined : await (await service()).getMetadata(binary.id);
}

/** The folder n8n-core's binary data store writes to (the files and their metadata), once it was started. */
export function binaryStorageFolder(): string | undefined {
	return storagePath;
}

/**
 * The set-up of a test file whose triggers download files: n8n's binary data store for the file,
 * the download's retries waiting less between attempts (a download is retried as every read is),
 * and the stored files removed after the last test.
 */
export function useFileDownloads(): void {
	beforeAll(useBinaryDataStore);
	beforeEach(() => {
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'backoffBaseMs', 10);
	});
	afterEach(() => {
		jest.restoreAllMocks();
	});
	afterAll(removeStoredFiles);
}
