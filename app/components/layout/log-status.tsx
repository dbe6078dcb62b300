/** The public log's line in the footer, and the red banner every page shows when it no longer matches (issue 34). */
import { Link } from "react-router";
import { evidenceFile, useLogWitness, type Evidence } from "../../lib/log-witness.ts";

function download(evidence: Evidence) {
  const url = URL.createObjectURL(new Blob([evidenceFile(evidence)], { type: "text/plain" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = "spooks-log-evidence.txt";
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function LogStatus() {
  const witness = useLogWitness();
  const text =
    witness.state === "checked"
      ? `Public log: ${witness.size.toLocaleString("en-US")} entries, checked`
      : witness.state === "unwitnessed"
        ? `Public log: ${witness.size.toLocaleString("en-US")} entries, awaiting witnesses (${witness.cosigned} of ${witness.quorum} cosignatures)`
        : witness.state === "mismatch"
          ? "Public log: does not match"
          : witness.state === "unavailable"
            ? "Public log: not available"
            : "Public log: checking…";
  return (
    <Link to="/log" className="hover:text-violet-300" data-testid="log-status">
      {text}
    </Link>
  );
}

export function LogMismatchBanner() {
  const witness = useLogWitness();
  if (witness.state !== "mismatch") return null;
  return (
    <div role="alert" className="border-b border-red-500/40 bg-red-950/90 px-4 py-3 text-sm text-red-100" data-testid="log-mismatch">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3">
        <p>
          <strong>This site&apos;s public log no longer matches what your browser saw before</strong>{" "}
          <span className="text-red-200">({witness.evidence.reason}). </span>
          <Link to="/log" className="underline">
            What this means
          </Link>
        </p>
        <button
          type="button"
          className="rounded border border-red-300/50 px-3 py-1 hover:bg-red-900"
          onClick={() => download(witness.evidence)}
        >
          Download both signed checkpoints
        </button>
      </div>
    </div>
  );
}
