/** The governance calls the page reads through the shared query cache (app/lib/queries.ts). */
export const governancePaths = {
  proposal: (id: number) => `/api/proposals/${id}`,
  votes: (id: number) => `/api/proposals/${id}/votes`,
  catalogue: "/api/catalogue",
  userVotes: (address: string) => `/api/proposals/user/${address}`,
  votingPower: (address: string, proposalId?: number) =>
    proposalId === undefined ? `/api/proposals/voting-power/${address}` : `/api/proposals/voting-power/${address}?proposalId=${proposalId}`,
};
