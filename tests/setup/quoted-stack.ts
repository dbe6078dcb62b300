/**
 * A failure message may quote another process's output, stack frames included (a CLI's or a server's
 * stderr). Vitest reads every `    at file:line` line of an error's stack as a frame of this process and
 * opens that file for its source map; some files (tsx's own dist) hold a source-map comment that is not
 * one, and the run then ends in an unhandled error that hides which test failed. The quoted lines are
 * marked where the stack is written, so no report ever sees them as frames.
 */
const FRAME_LINE = /^(\s*)at /gm;

export function markQuotedFrames(text: string): string {
  return text.replace(FRAME_LINE, "$1│ at ");
}

/** `stack` with the frame-like lines of its message marked; the real frames after the message are kept. */
export function stackWithQuotedFramesMarked(stack: string, message: unknown): string {
  if (typeof message !== "string" || message === "") return stack;
  const at = stack.indexOf(message);
  if (at < 0) return stack;
  return stack.slice(0, at) + markQuotedFrames(message) + stack.slice(at + message.length);
}

const frameLine = (frame: NodeJS.CallSite) =>
  `    at ${frame.getFunctionName() ?? "<anonymous>"} (${frame.getFileName()}:${frame.getLineNumber()}:${frame.getColumnNumber()})`;

type PrepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => unknown;

/**
 * Writes every stack of this process with its quoted frames marked. V8 writes an error's stack when it is
 * first read, through `Error.prepareStackTrace`; the one in place (vitest's source maps) still writes it.
 */
export function markQuotedFramesInEveryStack(): void {
  if ((Error.prepareStackTrace as { marksQuotedFrames?: boolean } | undefined)?.marksQuotedFrames) return;
  const inPlace = Error.prepareStackTrace?.bind(Error);
  const writeStack: PrepareStackTrace =
    inPlace ?? ((error, frames) => [`${error.name}: ${error.message}`, ...frames.map(frameLine)].join("\n"));
  const marking: PrepareStackTrace = (error, frames) => {
    const stack = writeStack(error, frames);
    return typeof stack === "string" ? stackWithQuotedFramesMarked(stack, error?.message) : stack;
  };
  Error.prepareStackTrace = Object.assign(marking, { marksQuotedFrames: true });
}
