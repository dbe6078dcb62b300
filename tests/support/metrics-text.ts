/** Reading Prometheus text (the operations port's /metrics) in tests. */

/** The value of one series (name and labels exactly as printed), or undefined when it is absent. */
export function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (wanted.every(([key, value]) => found[key] === value) && Object.keys(found).length === wanted.length) {
      return match[3] === "+Inf" ? Infinity : Number(match[3]);
    }
  }
  return undefined;
}
