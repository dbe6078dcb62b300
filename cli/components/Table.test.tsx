import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
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
});
