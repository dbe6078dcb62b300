import { describe, expect, it } from "vitest";
import { csvRecord, defuseFormula, verbatim } from "./csv.ts";

describe("CSV", () => {
  it("defuses text a spreadsheet would read as a formula (=, +, -, @, tab, CR first) with a leading quote", () => {
    for (const text of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) expect(defuseFormula(text)).toBe(`'${text}`);
    for (const text of ["Yes", "1-2", " =1", "", "'=1"]) expect(defuseFormula(text)).toBe(text);
  });

  it("writes a record: text defused and quoted as RFC 4180 asks, numbers as they are, verbatim text untouched", () => {
    expect(csvRecord(["=A1,B1", -30, 2.5, 'say "hi"', verbatim("-signed,message")])).toBe(
      `"'=A1,B1",-30,2.5,"say ""hi""","-signed,message"\r\n`,
    );
    expect(csvRecord(["\rline"])).toBe(`"'\rline"\r\n`);
  });
});
