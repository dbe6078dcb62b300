/**
 * A date-and-time entered in the admin's local time, submitted as UTC: the visible datetime-local input
 * has no name; a hidden input carries the ISO string (UTC) under the field's name.
 */
import { useState } from "react";
import { Input } from "../ui/input.tsx";
import { FormField, HiddenField, type FieldMeta } from "./form-field.tsx";

/** 'yyyy-MM-ddTHH:mm' in local time → ISO (UTC); '' when empty or invalid. */
export function localToIso(local: string): string {
  if (!local) return "";
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}

export function useLocalDate(initial = "") {
  const [value, setValue] = useState(initial);
  return { value, setValue, reset: () => setValue(initial) };
}

/** A labelled date field of a conform form; `date` (from useLocalDate) holds what the admin typed. */
export function DateField({
  label,
  field,
  date,
}: {
  label: string;
  field: FieldMeta;
  date: Pick<ReturnType<typeof useLocalDate>, "value" | "setValue">;
}) {
  return (
    <FormField label={label} field={field} hint="Your local time">
      <Input
        id={field.id}
        type="datetime-local"
        value={date.value}
        onChange={(event) => date.setValue(event.target.value)}
        aria-invalid={!!field.errors?.length || undefined}
        aria-describedby={field.errorId}
        className="min-w-0 [color-scheme:dark]"
      />
      <HiddenField name={field.name} value={localToIso(date.value)} />
    </FormField>
  );
}
