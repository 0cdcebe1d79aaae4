/**
 * Local emulator of the Service Bot API (see README.md in this folder).
 * Written from /work/shared/spec/bot-api.md only; it must not import anything from nodes/ or credentials/.
 * Its tables (limits, chat actions, ports, …) are the tests' transcription of the spec, ../spec.ts.
 */
export { startEmulator } from './server';
export type { Emulator, EmulatorOptions, FaultKind, FaultSpec, RecordedCall, WebhookView } from './server';
export type { DemoData, UserMedia, UserMessage } from './state';
export { SECRET_HEADER } from './webhook';
export type * from './types';
