/** The header's external links (open in a new tab). Set the real addresses of the community here. */
export const SOCIAL_LINKS = [
  { label: "Spooks website", href: "https://spooks.io", icon: "globe" },
  { label: "Spooks on X", href: "https://x.com/spooksdoge", icon: "x" },
  { label: "Spooks Discord community", href: "https://discord.gg/spooks", icon: "chat" },
] as const;

export const NAV_LINKS = [
  { label: "Stake", to: "/" },
  { label: "Rewards", to: "/rewards" },
  { label: "Vote", to: "/governance" },
] as const;

export const TAGLINE = "Stake Spooks, Earn Rewards";
