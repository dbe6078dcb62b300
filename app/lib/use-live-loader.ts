/**
 * A page whose list comes from its route loader (server-rendered) stays true while it is open (issue 27, rule
 * 3): the loader runs again every `intervalMs` while the page is shown, never in a hidden tab, and when the
 * window regains focus or the tab is shown again, as the TanStack queries of LIVE_REFRESH do.
 */
import { useEffect, useRef } from "react";
import { useRevalidator } from "react-router";
import { LIVE_POLL_MS } from "./queries.ts";

export function useLiveLoader(intervalMs: number = LIVE_POLL_MS): void {
  const revalidator = useRevalidator();
  const latest = useRef(revalidator);
  useEffect(() => {
    latest.current = revalidator;
  });
  useEffect(() => {
    const revalidate = () => {
      if (document.visibilityState === "visible" && latest.current.state === "idle") void latest.current.revalidate();
    };
    const timer = setInterval(revalidate, intervalMs);
    window.addEventListener("focus", revalidate);
    document.addEventListener("visibilitychange", revalidate);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", revalidate);
      document.removeEventListener("visibilitychange", revalidate);
    };
  }, [intervalMs]);
}
