/**
 * Newer/Older paging over a keyset-paged admin list (the audit trail, the notification deliveries): a stack
 * of the cursors of the pages before this one (Newer goes back one) and this page's own, last.
 */
import { useState } from "react";
import { Button } from "../ui/button.tsx";

export function useCursorPages() {
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  return {
    cursor: cursors[cursors.length - 1],
    hasNewer: cursors.length > 1,
    newer: () => setCursors((stack) => stack.slice(0, -1)),
    older: (next: number) => setCursors((stack) => [...stack, next]),
    reset: () => setCursors([null]),
  };
}

export function CursorPager({ pages, nextCursor }: { pages: ReturnType<typeof useCursorPages>; nextCursor: number | null | undefined }) {
  return (
    <div className="flex gap-2">
      <Button variant="outline" size="sm" disabled={!pages.hasNewer} onClick={pages.newer}>
        Newer
      </Button>
      <Button variant="outline" size="sm" disabled={!nextCursor} onClick={() => nextCursor && pages.older(nextCursor)}>
        Older
      </Button>
    </div>
  );
}
