/**
 * The one way an action's failure is shown (DECISIONS "Errors holders can act on"): the spec's toast title
 * and text verbatim (its error catalogue), then the server's `message` on its own line and, where there is
 * one, the next step (sign again, reload). `error` is what the action threw; the server's answer is found
 * on it or on any error it wraps.
 */
import { refusalOf } from "../../lib/api.ts";
import { toast, type ToastOptions } from "./toast.tsx";

export function toastFailure(spec: Omit<ToastOptions, "variant" | "reason" | "nextStep">, error: unknown) {
  const refusal = refusalOf(error);
  return toast({ ...spec, variant: "destructive", reason: refusal?.message ?? null, nextStep: refusal?.nextStep ?? null });
}
