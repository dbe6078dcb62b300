/** /log: the public log in plain words: what is in it, what the footer's check means, how to check it yourself. */
import { Link } from "react-router";
import { Card } from "../components/ui/card.tsx";
import { useLogWitness } from "../lib/log-witness.ts";
import type { Route } from "./+types/log";

export const meta: Route.MetaFunction = () => [{ title: "Public log | Spooks" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const { latestCheckpoint, logVerifierKey } = await import("../../db/queries/log.server.ts");
  const [checkpoint, verifierKey] = await Promise.all([latestCheckpoint(context.sql), logVerifierKey(context.sql)]);
  return {
    size: checkpoint?.size ?? 0,
    verifierKey,
    witnesses: context.config.log.witnesses.map((w) => w.key),
    quorum: context.config.log.quorum,
    // The same on the server and in the browser (a page rendered with one and hydrated with another breaks).
    origin: context.config.publicUrl ? new URL(context.config.publicUrl).origin : new URL(request.url).origin,
  };
}

export default function LogPage({ loaderData }: Route.ComponentProps) {
  const witness = useLogWitness();
  const { origin } = loaderData;
  return (
    <div className="mx-auto max-w-3xl space-y-6 text-zinc-300">
      <h1 className="text-2xl font-semibold text-zinc-100">Public log</h1>
      <Card className="space-y-3 p-5">
        <p>
          Every number on this site is written to a public, append-only log the moment it is made: every points change (each hourly credit,
          each admin change, each giveaway ticket and refund), every stake and unstake with the message its wallet signed, every vote, every
          giveaway&apos;s commitment, close and draw, every prize claim, every boost schedule and every admin action.
        </p>
        <p>
          The log is a Merkle tree, like Certificate Transparency and Go&apos;s checksum database. Every few seconds the site signs a{" "}
          <em>checkpoint</em>: the number of entries and one hash that stands for all of them. A later checkpoint can be proven to contain
          an earlier one unchanged. So nobody, the operator included, can change or remove a past entry without the signed checkpoints you
          already saw giving it away.
        </p>
        <p data-testid="log-page-status">
          {witness.state === "checked"
            ? `Your browser checked this site's log: ${witness.size.toLocaleString("en-US")} entries, consistent with everything it saw here before.`
            : witness.state === "mismatch"
              ? `Your browser found that this site's log no longer matches what it saw before: ${witness.evidence.reason}. Keep the evidence (the button in the red banner) and tell the community.`
              : witness.state === "unwitnessed"
                ? `This site's latest checkpoint (${witness.size.toLocaleString("en-US")} entries) is not cosigned by enough witnesses yet (${witness.cosigned} of ${witness.quorum}): your browser keeps the one before until it is.`
                : witness.state === "unavailable"
                  ? "The log could not be read just now."
                  : "Your browser is checking the log…"}
        </p>
      </Card>
      <Card className="space-y-3 p-5">
        <h2 className="text-lg font-semibold text-zinc-100">How your browser checks</h2>
        <p>
          The first time you visit, your browser remembers the log&apos;s key. On every visit it fetches the newest checkpoint, checks its
          signature with that key, and proves (from the log&apos;s own files, off the main page) that it contains the checkpoint it kept
          from before. It then keeps the newer one. If the signature is wrong, the log got smaller, or the proof fails, every page shows a
          red warning and offers both signed checkpoints as evidence. The kept checkpoint is never replaced by one that does not match.
        </p>
      </Card>
      <Card className="space-y-3 p-5">
        <h2 className="text-lg font-semibold text-zinc-100">How to check it yourself</h2>
        <p>
          A page can only check what the site&apos;s own JavaScript lets it check. To check without trusting this site, use the command
          line, which reads the log&apos;s files and this site&apos;s public API and recomputes every balance, every draw and every vote
          tally from the entries alone:
        </p>
        <pre className="overflow-x-auto rounded bg-zinc-900 p-3 text-xs">
          npx spooks-admin log verify --url {origin} --key {loaderData.verifierKey ?? "<verifier key>"} --state spooks-log.state
        </pre>
        <p>
          The log follows published formats (C2SP signed notes, checkpoints and tiles; RFC 9162 hashing), so any tool that knows them can
          read it: <code>/log/checkpoint</code>, <code>/log/key</code>, <code>/log/tile/…</code>. Independent witnesses can cosign each
          checkpoint (<code>spooks-admin log witness</code>)
          {loaderData.witnesses.length > 0
            ? `; this site sends its checkpoints to ${loaderData.witnesses.length} and requires ${loaderData.quorum} cosignature(s)`
            : ""}
          .
        </p>
        <p className="break-all text-sm">
          Verifier key: <code data-testid="log-verifier-key">{loaderData.verifierKey ?? "not yet made"}</code>
        </p>
        <p className="text-sm">
          The details: <Link to="/api/docs">the API</Link> (<code>/api/log/proof/&#123;index&#125;</code>, <code>/api/log/consistency</code>
          ) and the project&apos;s docs/transparency.md.
        </p>
      </Card>
    </div>
  );
}
