import { catalogueOperation } from '../../helpers/operation';

const operation = catalogueOperation('getChatMemberCount');

export const description = operation.description;
export const prepare = operation.prepare;
export const execute = operation.execute;
