/**
 * Local emulator of the Service Bot API (see README.md in this folder).
 * Written from /work/shared/spec/bot-api.md only; it must not import anything from nodes/ or credentials/.
 */
export { startEmulator } from './server';
export type { Emulator, EmulatorOptions, FaultKind, FaultSpec, RecordedCall, WebhookView } from './server';
export type { DemoData } from './state';
export { SECRET_HEADER } from './webhook';
export { LIMITS } from './markup';
export { CHAT_ACTIONS, WEBHOOK_PORTS } from './methods';
export type * from './types';
