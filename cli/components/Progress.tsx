/** Progress of long work: a bar with done/total when the total is known, a spinner and a count otherwise. */
import { Spinner } from "@inkjs/ui";
import { Text } from "ink";
import { formatNumber } from "../../app/domain/format.ts";

export type ProgressProps = { label: string; done: number; total?: number; width?: number };

export function Progress({ label, done, total, width = 30 }: ProgressProps) {
  if (total === undefined) return <Spinner label={`${label} ${formatNumber(done)}`} />;
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * width);
  return (
    <Text>
      {label} <Text color="green">{"█".repeat(filled)}</Text>
      <Text dimColor>{"░".repeat(width - filled)}</Text> {formatNumber(done)}/{formatNumber(total)} ({Math.floor(ratio * 100)}%)
    </Text>
  );
}
