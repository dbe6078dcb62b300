/** Rarity colours (spec): Legendary yellow, Epic purple, Rare blue, Common or other grey. */
export function rarityClasses(label: string): string {
  switch (label) {
    case "Legendary":
      return "border-yellow-400/50 bg-yellow-400/15 text-yellow-300";
    case "Epic":
      return "border-purple-400/50 bg-purple-500/15 text-purple-300";
    case "Rare":
      return "border-blue-400/50 bg-blue-500/15 text-blue-300";
    default:
      return "border-zinc-500/50 bg-zinc-500/15 text-zinc-300";
  }
}
