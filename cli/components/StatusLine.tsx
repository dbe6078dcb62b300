/** One line saying how an action went: a symbol and colour per status, then the text. */
import { Text } from "ink";
import type { ReactNode } from "react";
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";

export type Status = "success" | "error" | "warning" | "info";

const LOOK: Record<Status, { symbol: string; color: string }> = {
  success: { symbol: "✔", color: "green" },
  error: { symbol: "✖", color: "red" },
  warning: { symbol: "⚠", color: "yellow" },
  info: { symbol: "ℹ", color: "blue" },
};

export function StatusLine({ status, children }: { status: Status; children: ReactNode }) {
  const { symbol, color } = LOOK[status];
  return (
    <Text>
      <Text color={color}>{symbol}</Text> {typeof children === "string" ? withoutControlCharacters(children) : children}
    </Text>
  );
}
