/**
 * A message the wallet is asked to sign, exactly as it is signed (the spec's texts never change), with what
 * it means beside it: the signed text names things by number ("Spook #1", "Option: 9"), which a holder
 * cannot read without knowing which item or option that is.
 */
export function SignedMessage({
  message,
  meaning,
  label = "Message to sign",
  testId,
}: {
  message: string;
  /** One line each, e.g. "Spook Society #1" or "Option: Yes". */
  meaning: string[];
  label?: string;
  /** The signed text's test id; its meaning's is `{testId}-meaning`. */
  testId?: string;
}) {
  return (
    <div className="grid min-w-0 gap-1.5">
      <p className="text-xs font-medium tracking-wide text-zinc-400 uppercase">{label}</p>
      <pre
        data-testid={testId}
        className="rounded-lg border border-violet-500/20 bg-black/50 p-3 font-mono text-xs wrap-anywhere whitespace-pre-wrap text-violet-100"
      >
        {message}
      </pre>
      {meaning.length > 0 && (
        <div className="text-xs text-zinc-300">
          <p className="text-zinc-400">What it means:</p>
          <ul
            aria-label="What the message means"
            className="list-disc pl-5 wrap-anywhere"
            data-testid={testId ? `${testId}-meaning` : undefined}
          >
            {meaning.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
