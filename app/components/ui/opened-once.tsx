import { Suspense, useState, type ReactNode } from "react";

/**
 * Renders `children` - a dialog whose code loads on demand (React.lazy) - from the first time `open` is
 * true, so a page does not ship it for its first paint; it stays mounted afterwards and closes like any
 * dialog (focus back to its opener).
 */
export function OpenedOnce({ open, children }: { open: boolean; children: ReactNode }) {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened ? <Suspense fallback={null}>{children}</Suspense> : null;
}
