/** Row ids are Postgres `int4`: the largest a row can have, and whether a number can name one. */
export const MAX_ID = 2_147_483_647;

export function isRowId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= MAX_ID;
}
