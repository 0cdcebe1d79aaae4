import { catalogueOperation } from '../../helpers/operation';

const operation = catalogueOperation('deleteMessage');

export const description = operation.description;
export const prepare = operation.prepare;
export const execute = operation.execute;
