import { catalogueOperation } from '../../helpers/operation';

const operation = catalogueOperation('deleteMyCommands');

export const description = operation.description;
export const prepare = operation.prepare;
export const execute = operation.execute;
