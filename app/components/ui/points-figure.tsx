import type { HTMLAttributes } from "react";
import { formatPoints, formatPointsExact } from "../../domain/format.ts";
import { cn } from "./cn.ts";

/**
 * A whole-point figure (DECISIONS "Points"): rounded down, so it never shows points not yet had, with the
 * exact value (two decimals) on hover (its title) and on focus (shown under it by the `points-figure` rule
 * of app.css). Every page that shows points whole uses it, so no two places can disagree.
 */
export function PointsFigure({ value, className, ...rest }: { value: number } & Omit<HTMLAttributes<HTMLSpanElement>, "children">) {
  const exact = formatPointsExact(value);
  return (
    <span
      {...rest}
      // Focusable so a keyboard (or a tap) shows the exact value too: what hover shows must show on focus.
      // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a figure with a focus tooltip, not a control
      tabIndex={0}
      title={`${exact} points`}
      data-points-exact={exact}
      className={cn("points-figure", className)}
    >
      {formatPoints(value)}
    </span>
  );
}
