import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { hasControlCharacters } from "../../app/domain/terminal-text.ts";
import { Table, type Column } from "./Table.tsx";

type Row = { address: string; points: string };
const columns: Column<Row>[] = [
  { header: "Wallet Address", value: (row) => row.address },
  { header: "Points", value: (row) => row.points, align: "right" },
];

describe("Table", () => {
  it("pads every column to its widest cell and right-aligns numbers", () => {
    const { lastFrame } = render(
      <Table
        columns={columns}
        rows={[
          { address: "DAbc", points: "1,250" },
          { address: "DLongerAddress", points: "7" },
        ]}
        empty="none"
      />,
    );
    expect(lastFrame()).toBe(
      ["Wallet Address  Points", "──────────────  ──────", "DAbc             1,250", "DLongerAddress       7"].join("\n"),
    );
  });

  it("shows the empty text when there are no rows", () => {
    const { lastFrame } = render(<Table columns={columns} rows={[]} empty="No users with points found" />);
    expect(lastFrame()).toBe("No users with points found");
  });

  it("prints no escape sequence or control character a cell brought (a receiver's answer): OSC title, OSC 52, colours", () => {
    const hostile = [
      "\u001b]0;spooks-admin: all good\u0007",
      "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007",
      "\u001b[31mHTTP 500\u001b[0m",
      "\u009b2J",
      "line\r\nbreak",
    ].join("");
    const { lastFrame } = render(<Table columns={columns} rows={[{ address: hostile, points: "\u001b[32m7\u001b[0m" }]} empty="none" />);
    const frame = lastFrame() ?? "";
    expect(frame.split("\n").some(hasControlCharacters)).toBe(false);
    expect(frame.split("\n")[2]).toBe(`HTTP 500line break  ${"7".padStart(6)}`);
  });
});
