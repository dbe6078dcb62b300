/** Label/value pairs, labels padded to one width (a record's fields, a result's figures). */
import { Box, Text } from "ink";
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";

export type DetailsProps = { rows: readonly (readonly [label: string, value: string])[] };

export function Details({ rows }: DetailsProps) {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return (
    <Box flexDirection="column">
      {rows.map(([label, value]) => (
        <Text key={label}>
          <Text dimColor>{`${label}:`.padEnd(width + 2)}</Text>
          {withoutControlCharacters(value)}
        </Text>
      ))}
    </Box>
  );
}
