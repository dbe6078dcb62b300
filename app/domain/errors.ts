/**
 * A refused request: bad input or a broken rule, with the HTTP status it maps to. Services throw it;
 * API routes answer `{ message }` with `status`, the CLI prints `message` and exits 1.
 */
export type RefusalStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 502;

export class Refusal extends Error {
  constructor(
    readonly status: RefusalStatus,
    message: string,
  ) {
    super(message);
    this.name = "Refusal";
  }
}

export const badRequest = (message: string) => new Refusal(400, message);
export const unauthorized = (message: string) => new Refusal(401, message);
export const forbidden = (message: string) => new Refusal(403, message);
export const notFound = (message: string) => new Refusal(404, message);
export const conflict = (message: string) => new Refusal(409, message);
