import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

export function Skeleton({ className, ...props }: ComponentProps<"div">) {
  return <div aria-hidden="true" data-skeleton className={cn("animate-pulse rounded-md bg-zinc-800/80", className)} {...props} />;
}
