/** The page's main content: the skip link's target. */
export const MAIN_ID = "main-content";

/**
 * "Skip to content": the first stop of the keyboard on every page, hidden until focused, so a keyboard or
 * screen-reader user passes the header's logo, navigation, social links and wallet button in one step.
 */
export function SkipLink() {
  return (
    <a
      href={`#${MAIN_ID}`}
      className="sr-only z-[60] rounded-lg bg-violet-600 px-4 py-2 font-medium text-white focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus-visible:outline-2 focus-visible:outline-white"
    >
      Skip to content
    </a>
  );
}
