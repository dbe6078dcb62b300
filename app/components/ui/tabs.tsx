import { Tabs as TabsPrimitive } from "radix-ui";
import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

export const Tabs = TabsPrimitive.Root;

/** A strip of tabs that always fits: on a narrow screen its tabs wrap onto more rows, never out of sight (issue 33, item 6). */
export function TabsList({ className, ...props }: ComponentProps<typeof TabsPrimitive.List>) {
  return (
    <TabsPrimitive.List
      className={cn("inline-flex max-w-full flex-wrap items-center gap-1 rounded-lg border border-zinc-800 bg-zinc-900/80 p-1", className)}
      {...props}
    />
  );
}

export function TabsTrigger({ className, ...props }: ComponentProps<typeof TabsPrimitive.Trigger>) {
  return (
    <TabsPrimitive.Trigger
      className={cn(
        "cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium whitespace-nowrap text-zinc-400 transition-colors",
        "hover:text-zinc-100 focus-visible:outline-2 focus-visible:outline-violet-400",
        "data-[state=active]:bg-violet-600 data-[state=active]:text-white data-[state=active]:shadow",
        className,
      )}
      {...props}
    />
  );
}

export function TabsContent({ className, ...props }: ComponentProps<typeof TabsPrimitive.Content>) {
  return (
    <TabsPrimitive.Content
      className={cn("mt-4 rounded-lg focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-violet-400", className)}
      {...props}
    />
  );
}
