/**
 * Admin request bodies built from the admin forms' own schemas (app/domain/validation.ts), so the API, the
 * /admin page and the CLI apply one set of rules with one set of texts, and the docs show the real body.
 */
import { z } from "zod";

/**
 * A date and time in a request body: ISO 8601 text on the wire, a Date once parsed; text that names no
 * date fails with `message` (the form's own text).
 */
export function dateInput(message: string) {
  return z
    .string({ error: message })
    .pipe(z.coerce.date({ error: message }))
    .meta({ description: "ISO 8601 date and time; UTC unless it names an offset." });
}

/**
 * A body read by `wire` (what JSON carries: dates as ISO text), then checked by the form's schema `rules`,
 * whose messages are the ones answered. The docs show `wire`; the handler gets `rules`' output.
 */
export function formBody<W extends z.ZodObject, R extends z.ZodType>(wire: W, rules: R) {
  // A form schema coerces its input (a form sends text), so its declared input is looser than `wire`'s
  // output though it accepts it: zod's pipe typing wants them equal.
  return wire.pipe(rules as unknown as z.ZodType<z.output<R>, z.output<W>>);
}
