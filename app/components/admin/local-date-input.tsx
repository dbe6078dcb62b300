/**
 * A date-and-time entered in the admin's local time, submitted as UTC: the visible datetime-local input
 * has no name; a hidden input carries the ISO string (UTC) under the field's name.
 */
import { useState } from "react";
import { Input } from "../ui/input.tsx";

/** 'yyyy-MM-ddTHH:mm' in local time → ISO (UTC); '' when empty or invalid. */
export function localToIso(local: string): string {
  if (!local) return "";
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}

export function LocalDateInput({
  id,
  name,
  errorId,
  invalid,
  value,
  onChange,
}: {
  id: string;
  name: string;
  errorId?: string;
  invalid?: boolean;
  value: string;
  onChange: (local: string) => void;
}) {
  return (
    <>
      <Input
        id={id}
        type="datetime-local"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={invalid || undefined}
        aria-describedby={errorId}
        className="min-w-0 [color-scheme:dark]"
      />
      <input type="hidden" name={name} value={localToIso(value)} />
    </>
  );
}

export function useLocalDate(initial = "") {
  const [value, setValue] = useState(initial);
  return { value, setValue, reset: () => setValue(initial) };
}
