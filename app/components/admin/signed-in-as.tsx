/** Who the panel is signed in as, and with which role (issue 35): a shared screen never leaves it in doubt. */
import { shortenAddress } from "../../domain/format.ts";
import { useAdminRole } from "./role-context.tsx";

const ROLE_WORDS = {
  owner: "owner: everything, and the team",
  admin: "admin: everything but the team",
  moderator: "moderator: giveaways and proposals",
  viewer: "viewer: reads every tab, changes nothing",
} as const;

export function SignedInAs() {
  const { address, role } = useAdminRole();
  return (
    <p className="text-sm text-zinc-400" data-testid="signed-in-as">
      Signed in as{" "}
      <span className="font-mono text-zinc-200" title={address}>
        {shortenAddress(address, 6, 4)}
      </span>{" "}
      ({ROLE_WORDS[role]})
    </p>
  );
}
