/**
 * Toasts (spec section 9): at most one visible, shown 5000 ms unless told otherwise, a swipe of more than
 * 50 px dismisses, F8 focuses the notification area, a dismissed toast is removed after 1,000,000 ms.
 * `toast()` can be called from anywhere in the browser (event handlers, the wallet); <Toaster /> renders them.
 */
import { Toast as ToastPrimitive } from "radix-ui";
import { useSyncExternalStore, type ReactNode } from "react";
import { CloseIcon } from "../icons.tsx";
import { cn } from "./cn.ts";

export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY = 1_000_000;
export const TOAST_DURATION = 5000;

export type ToastVariant = "default" | "destructive" | "success";

export type ToastOptions = {
  title: ReactNode;
  description?: ReactNode;
  variant?: ToastVariant;
  /** Milliseconds before it closes by itself (default 5000). */
  duration?: number;
  /** The server's reason for a refusal, on its own line under the description (see toastFailure). */
  reason?: string | null;
  /** What the holder can do next ("Sign again to retry."), on its own line under the reason. */
  nextStep?: string | null;
  /** What the action about to be signed costs (an unstake's lost hour, a tier drop), on its own line. */
  note?: string | null;
};

export type ToastItem = ToastOptions & { id: string; open: boolean };

let toasts: ToastItem[] = [];
let counter = 0;
const listeners = new Set<() => void>();
const removeTimers = new Map<string, ReturnType<typeof setTimeout>>();

function emit(next: ToastItem[]) {
  toasts = next;
  for (const listener of listeners) listener();
}

function scheduleRemoval(id: string) {
  if (removeTimers.has(id)) return;
  removeTimers.set(
    id,
    setTimeout(() => {
      removeTimers.delete(id);
      emit(toasts.filter((t) => t.id !== id));
    }, TOAST_REMOVE_DELAY),
  );
}

/** Closes one toast, or all of them. */
export function dismissToast(id?: string) {
  emit(toasts.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t)));
  for (const t of toasts) if (!t.open) scheduleRemoval(t.id);
}

/** Shows a toast; the newest replaces the one on screen. */
export function toast(options: ToastOptions) {
  const id = String(++counter);
  emit([{ ...options, id, open: true }, ...toasts].slice(0, TOAST_LIMIT));
  return {
    id,
    dismiss: () => dismissToast(id),
    update: (next: Partial<ToastOptions>) => emit(toasts.map((t) => (t.id === id ? { ...t, ...next } : t))),
  };
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const EMPTY: ToastItem[] = [];

export function useToast() {
  const current = useSyncExternalStore(
    subscribe,
    () => toasts,
    () => EMPTY,
  );
  return { toasts: current, toast, dismiss: dismissToast };
}

const VARIANT_CLASSES: Record<ToastVariant, string> = {
  default: "border-violet-500/30 bg-zinc-900 text-zinc-100",
  destructive: "border-red-500/50 bg-red-950 text-red-50",
  success: "border-emerald-500/50 bg-emerald-950 text-emerald-50",
};

export function Toaster() {
  const { toasts: items } = useToast();
  return (
    <ToastPrimitive.Provider duration={TOAST_DURATION} swipeDirection="right" swipeThreshold={50}>
      {items.map((item) => (
        <ToastPrimitive.Root
          key={item.id}
          open={item.open}
          duration={item.duration}
          type={item.variant === "destructive" ? "foreground" : "background"}
          onOpenChange={(open) => {
            if (!open) dismissToast(item.id);
          }}
          data-variant={item.variant ?? "default"}
          className={cn(
            "group pointer-events-auto relative flex w-full items-start gap-3 overflow-hidden rounded-lg border p-4 pr-9 shadow-2xl",
            "data-[state=open]:animate-[slide-in_180ms_ease-out] data-[state=closed]:animate-[fade-out_120ms_ease-in]",
            "data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[swipe=cancel]:translate-x-0 data-[swipe=end]:animate-[swipe-out_120ms_ease-out]",
            VARIANT_CLASSES[item.variant ?? "default"],
          )}
        >
          <div className="grid gap-1">
            <ToastPrimitive.Title className="text-sm font-semibold">{item.title}</ToastPrimitive.Title>
            {item.description || item.reason || item.note ? (
              <ToastPrimitive.Description className="grid gap-1 text-sm opacity-90">
                {item.description ? <span className="block">{item.description}</span> : null}
                {item.note ? (
                  <span className="block font-medium text-amber-200" data-testid="toast-note">
                    {item.note}
                  </span>
                ) : null}
                {item.reason ? (
                  <span className="block font-medium opacity-100" data-testid="toast-reason">
                    {item.reason}
                  </span>
                ) : null}
                {item.nextStep ? (
                  <span className="block" data-testid="toast-next-step">
                    {item.nextStep}
                  </span>
                ) : null}
              </ToastPrimitive.Description>
            ) : null}
          </div>
          <ToastPrimitive.Close
            aria-label="Close"
            className="absolute top-2 right-2 cursor-pointer rounded-md p-1 opacity-70 hover:opacity-100 focus-visible:outline-2 focus-visible:outline-violet-400"
          >
            <CloseIcon />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-[100] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none sm:right-2 sm:bottom-2" />
    </ToastPrimitive.Provider>
  );
}
