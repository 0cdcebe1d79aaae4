/**
 * Which received updates start the workflow: the types chosen in "Trigger On" and the chat and user
 * allow-lists. Both allow-lists cover messages and button clicks, and fail closed: when a list is
 * set, an update whose chat (or user) cannot be told is dropped rather than let through.
 */
import type { ReceivedUpdate } from './update';

export interface Filters {
	/** Update types to run for; empty = all. */
	readonly types: readonly string[];
	/** Normalised chat IDs (see normaliseId); empty = any chat. */
	readonly chatIds: readonly string[];
	/** Normalised user IDs; empty = any user. */
	readonly userIds: readonly string[];
}

/** IDs as compared: UUIDs may arrive in either case. */
export function normaliseId(value: string): string {
	return value.trim().toLowerCase();
}

/** Why the update does not pass, or undefined when it does. */
export function filteredOut(update: ReceivedUpdate, filters: Filters): string | undefined {
	const { type } = update;
	if (filters.types.length > 0 && (type === undefined || !filters.types.includes(type))) {
		return `update type ${type ?? '(unknown)'} is not selected in Trigger On`;
	}
	if (filters.chatIds.length > 0) {
		if (update.chatId === undefined) return 'the chat of the update cannot be resolved';
		if (!filters.chatIds.includes(normaliseId(update.chatId))) return 'the chat is not in Restrict to Chat IDs';
	}
	if (filters.userIds.length > 0) {
		if (update.userId === undefined) return 'the user of the update cannot be resolved';
		if (!filters.userIds.includes(normaliseId(update.userId))) return 'the user is not in Restrict to User IDs';
	}
	return undefined;
}
