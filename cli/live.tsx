/**
 * Live Ink drawing on the terminal's stderr: the confirmation prompt and progress. Loaded only when a
 * terminal is there to see it (see runtime.ts).
 */
import { render } from "ink";
import { ConfirmPrompt } from "./components/ConfirmPrompt.tsx";
import { Progress } from "./components/Progress.tsx";

const onStderr = { stdout: process.stderr, stdin: process.stdin, patchConsole: false } as const;

/** Resolves true on "y", false on "n", Enter or Ctrl-C; the answer stays on screen. */
export function askConfirmation(question: string): Promise<boolean> {
  let answer = false;
  const instance = render(
    <ConfirmPrompt
      question={question}
      onAnswer={(confirmed) => {
        answer = confirmed;
        // Let the answered frame be drawn before leaving.
        setTimeout(() => instance.unmount(), 50);
      }}
    />,
    { ...onStderr, exitOnCtrlC: true },
  );
  return instance.waitUntilExit().then(
    () => answer,
    () => false,
  );
}

const REDRAW_MS = 100;

/** A progress line that redraws at most every 100 ms and is cleared when the work is done. */
export function showProgress(label: string): { update: (done: number, total?: number) => void; done: () => void } {
  let state: { done: number; total?: number } = { done: 0 };
  const instance = render(<Progress label={label} done={0} total={state.total} />, onStderr);
  let last = 0;
  const draw = () => instance.rerender(<Progress label={label} done={state.done} total={state.total} />);
  return {
    update: (done, total) => {
      state = { done, total };
      const at = Date.now();
      if (at - last >= REDRAW_MS || (total !== undefined && done >= total)) {
        last = at;
        draw();
      }
    },
    done: () => {
      instance.clear();
      instance.unmount();
    },
  };
}
