/**
 * One admin form: conform + the form's zod schema on both sides. Client validation failures show the
 * spec's validation toast (section 5) and inline errors; the submission goes to the route action
 * through a fetcher, whose answer carries the outcome toast (section 8).
 */
import { useForm, type DefaultValue } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import type { z } from "zod";
import { toast } from "../ui/toast.tsx";
import { validationTitle, type AdminActionData } from "./schemas.ts";

/** The form data field conform adds for its own intents (revalidation on input, list changes). */
const INTENT = "__intent__";

export function firstError(errors: Record<string, string[] | null> | null | undefined): string | null {
  for (const messages of Object.values(errors ?? {})) {
    if (messages && messages.length > 0) return messages[0];
  }
  return null;
}

type Options<S extends z.ZodType> = {
  id: string;
  schema: S;
  /** A schema to read the fields' constraints from, when `schema` has a transform conform cannot walk. */
  constraintSchema?: z.ZodType;
  defaultValue?: DefaultValue<z.input<S>>;
  /** Called once per successful answer (e.g. to close a dialog or clear local state). */
  onSuccess?: () => void;
  /** Called when the server says the admin session is gone. */
  onUnauthorized?: () => void;
};

export function useAdminForm<S extends z.ZodType>({ id, schema, constraintSchema, defaultValue, onSuccess, onUnauthorized }: Options<S>) {
  const fetcher = useFetcher<AdminActionData>({ key: `admin-form:${id}` });
  const handled = useRef<AdminActionData | undefined>(undefined);
  // The error toast on screen (a refused submit's): it goes once the fields are fixed.
  const errorToast = useRef<{ dismiss: () => void } | null>(null);
  const showError = (options: Parameters<typeof toast>[0]) => {
    errorToast.current?.dismiss();
    errorToast.current = toast(options);
  };
  const [form, fields] = useForm<z.input<S> & Record<string, unknown>, z.output<S>>({
    id,
    lastResult: fetcher.state === "idle" ? fetcher.data?.result : undefined,
    defaultValue: defaultValue as never,
    constraint: getZodConstraint(constraintSchema ?? schema),
    // Validate first on submit; from then on a field is checked again as it is typed in, so its error
    // clears as soon as the field is fixed.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate({ formData }) {
      const submission = parseWithZod(formData, { schema });
      // The validation toast is for a submit only, not for each keystroke's revalidation (conform's intent).
      const isSubmit = !formData.has(INTENT);
      if (submission.status === "error" && isSubmit) {
        const message = firstError(submission.error);
        if (message) showError({ title: validationTitle(message), description: message, variant: "destructive" });
      }
      // Revalidating as the admin types: with every field valid again, the error toast has nothing left to say.
      if (!isSubmit && !firstError("error" in submission ? submission.error : null)) {
        errorToast.current?.dismiss();
        errorToast.current = null;
      }
      return submission;
    },
    onSubmit(event, { formData }) {
      event.preventDefault();
      void fetcher.submit(formData, { method: "post" });
    },
  });

  useEffect(() => {
    const data = fetcher.data;
    if (!data || data === handled.current) return;
    handled.current = data;
    if (data.toast) {
      if (data.ok) {
        errorToast.current?.dismiss();
        errorToast.current = null;
        toast(data.toast);
      } else showError(data.toast);
    }
    if (data.ok) onSuccess?.();
    if (data.unauthorized) onUnauthorized?.();
  }, [fetcher.data, onSuccess, onUnauthorized]);

  return { form, fields, busy: fetcher.state !== "idle" };
}
