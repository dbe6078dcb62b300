/**
 * The "Verify votes" check off the page's main thread: thousands of signature recoveries would otherwise hold
 * it for seconds. The page posts the published results, the receipts and the catalogue's ids; this posts
 * progress after each batch, then the verification (app/domain/vote-receipts.ts, the server's own rules).
 */
import { verifyVotes, type PublishedResults, type VoteReceipt, type VotesVerification } from "../../domain/vote-receipts.ts";

export type VerifyVotesRequest = { published: PublishedResults; votes: VoteReceipt[]; catalogue: string[] };

export type VerifyVotesMessage =
  | { kind: "progress"; checked: number; total: number }
  | { kind: "done"; verification: VotesVerification }
  | { kind: "failed"; message: string };

// The worker's own scope (the DOM typings describe a window's postMessage).
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<VerifyVotesRequest>) => void) | null;
  postMessage(message: VerifyVotesMessage): void;
};

scope.onmessage = ({ data }) => {
  verifyVotes(data.published, data.votes, {
    catalogue: new Set(data.catalogue),
    batchSize: 100,
    onProgress: (checked, total) => scope.postMessage({ kind: "progress", checked, total }),
  })
    .then((verification) => scope.postMessage({ kind: "done", verification }))
    .catch((error: unknown) => scope.postMessage({ kind: "failed", message: error instanceof Error ? error.message : String(error) }));
};
