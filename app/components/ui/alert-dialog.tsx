import { AlertDialog as AlertDialogPrimitive } from "radix-ui";
import type { ReactNode } from "react";
import { buttonClasses } from "./button.tsx";
import { cn } from "./cn.ts";
import { overlayClasses, panelClasses, useReturnFocus } from "./dialog.tsx";

export type ConfirmDialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  destructive?: boolean;
  onConfirm: () => void;
  /** What confirming costs or changes (a lost hour, a tier change), on its own line under the description. */
  note?: string | null;
};

/** A yes/no confirmation (radix AlertDialog): focus trapped, Escape cancels, nothing happens until confirmed. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel = "Confirm",
  cancelLabel = "Cancel",
  destructive,
  onConfirm,
  note,
}: ConfirmDialogProps) {
  const returnFocus = useReturnFocus({});
  return (
    <AlertDialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <AlertDialogPrimitive.Portal>
        <AlertDialogPrimitive.Overlay className={overlayClasses} />
        <AlertDialogPrimitive.Content className={cn(panelClasses, "max-w-md")} {...returnFocus}>
          <AlertDialogPrimitive.Title className="text-lg font-semibold text-zinc-50">{title}</AlertDialogPrimitive.Title>
          {description ? (
            <AlertDialogPrimitive.Description className="text-sm text-zinc-400">{description}</AlertDialogPrimitive.Description>
          ) : (
            <AlertDialogPrimitive.Description className="sr-only">Please confirm</AlertDialogPrimitive.Description>
          )}
          {note ? (
            <p className="text-sm font-medium text-amber-200" data-testid="confirm-note">
              {note}
            </p>
          ) : null}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogPrimitive.Cancel className={buttonClasses("secondary")}>{cancelLabel}</AlertDialogPrimitive.Cancel>
            <AlertDialogPrimitive.Action className={buttonClasses(destructive ? "destructive" : "default")} onClick={onConfirm}>
              {confirmLabel}
            </AlertDialogPrimitive.Action>
          </div>
        </AlertDialogPrimitive.Content>
      </AlertDialogPrimitive.Portal>
    </AlertDialogPrimitive.Root>
  );
}
