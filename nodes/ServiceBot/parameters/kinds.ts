/**
 * Every parameter kind, by name: its editor fields, its reader and its request step (kind.ts). Adding
 * a kind is one module and one line here (and its name in ParamKind, param.ts).
 */
import { chatKind } from './chat';
import { callbackQueryIdKind, messageIdKind } from './clicked';
import { commandsKind } from './commands';
import { entitiesKind } from './entities';
import type { ParamKindDefinition } from './kind';
import { replyMarkupKind } from './keyboard/read';
import { mediaKind } from './media';
import type { ParamKind } from './param';
import { parseModeKind } from './parseMode';
import { textKind } from './text';
import { VALUE_KINDS } from './values';

export const PARAM_KINDS: Record<ParamKind, ParamKindDefinition> = {
	...VALUE_KINDS,
	chat: chatKind,
	messageId: messageIdKind,
	callbackQueryId: callbackQueryIdKind,
	media: mediaKind,
	text: textKind,
	parseMode: parseModeKind,
	entities: entitiesKind,
	commands: commandsKind,
	replyMarkup: replyMarkupKind,
};
