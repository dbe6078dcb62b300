/**
 * Picks an image, uploads it at once to POST /api/upload-image (admin session), and previews the stored
 * file. The server checks the content and size; the page only pre-checks type and the 5MB limit. A
 * preview that cannot be shown falls back to a placeholder ('Image preview error'). The field's error
 * follows the control as a sibling.
 */
import { useId, useRef, useState } from "react";
import { useRouteLoaderData } from "react-router";
import { imageHostProblem, isGiveawayImageUrl } from "../../domain/image-url.ts";
import type { loader as rootLoader } from "../../root.tsx";
import { Input } from "../ui/input.tsx";
import { MAX_IMAGE_BYTES } from "../../domain/giveaways.ts";
import { api, ApiError } from "../../lib/api.ts";
import { ImageOffIcon } from "../icons.tsx";
import { Spinner } from "../ui/button.tsx";
import { cn } from "../ui/cn.ts";
import { toast } from "../ui/toast.tsx";
import { FieldError, HiddenField, type FieldMeta } from "./form-field.tsx";

export const FALLBACK_IMAGE =
  "data:image/svg+xml;charset=utf-8," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300"><rect width="400" height="300" fill="#18181b"/>` +
      `<path d="M170 190v-50a30 30 0 0 1 60 0v50l-10-8-10 8-10-8-10 8-10-8z" fill="#3f3f46"/>` +
      `<text x="200" y="240" font-family="sans-serif" font-size="16" fill="#71717a" text-anchor="middle">Image Not Available</text></svg>`,
  );

const ACCEPT = "image/png,image/jpeg,image/gif,image/webp";

type Props = {
  /** The uploaded file's path (/uploads/…), or '' before an upload. */
  value: string;
  onChange: (filePath: string) => void;
  /** The conform field the stored path goes in (its name), and whose error shows under the control. */
  field: FieldMeta;
  label: string;
  className?: string;
};

/** The origins the page may show pictures from (the CSP's img-src, from the root loader). */
export function usePictureOrigins(): string[] {
  return useRouteLoaderData<typeof rootLoader>("root")?.pictureOrigins ?? [];
}

export function ImageUpload({ value, onChange, field, label, className }: Props) {
  const inputId = useId();
  const urlId = useId();
  const origins = usePictureOrigins();
  // A URL typed instead of an upload; refused as typed when the page could not show it (IMAGE_HOSTS).
  const [typed, setTyped] = useState("");
  if (value === "" && typed.trim() !== "") setTyped("");
  const typedProblem = typed.trim() ? imageHostProblem(typed.trim(), origins) : null;
  const showable = value.startsWith("/") || (isGiveawayImageUrl(value) && imageHostProblem(value, origins) === null);
  const fileRef = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const [broken, setBroken] = useState<string | null>(null);

  async function upload(file: File) {
    if (!file.type.startsWith("image/")) {
      toast({
        title: "Upload Failed",
        description: "Please choose an image file (PNG, JPEG, GIF or WebP).",
        variant: "destructive",
      });
      return;
    }
    if (file.size > MAX_IMAGE_BYTES) {
      toast({ title: "Upload Failed", description: "The image must be 5MB or smaller.", variant: "destructive" });
      return;
    }
    const body = new FormData();
    body.append("image", file);
    setUploading(true);
    try {
      const result = await api<{ success: boolean; filePath?: string; message?: string }>("/api/upload-image", {
        method: "POST",
        body,
      });
      if (!result?.success || !result.filePath) {
        toast({ title: "Upload failed", description: result?.message || "Failed to upload image", variant: "destructive" });
        return;
      }
      setBroken(null);
      setTyped("");
      onChange(result.filePath);
    } catch (error) {
      if (error instanceof ApiError) {
        toast({ title: "Upload failed", description: error.message || "Failed to upload image", variant: "destructive" });
      } else {
        toast({ title: "Upload error", description: "An error occurred during image upload", variant: "destructive" });
      }
    } finally {
      setUploading(false);
      if (fileRef.current) fileRef.current.value = "";
    }
  }

  const showFallback = value !== "" && broken === value;

  return (
    <>
      <div className={cn("grid min-w-0 grid-cols-1 gap-2", className)}>
        <label htmlFor={inputId} className="text-sm font-medium text-zinc-300">
          {label}
        </label>
        <div className="flex min-w-0 items-center gap-3">
          <div className="grid h-20 w-28 shrink-0 place-items-center overflow-hidden rounded-lg border border-zinc-700 bg-zinc-900">
            {value && showable ? (
              <img
                src={showFallback ? FALLBACK_IMAGE : value}
                alt="Preview of the uploaded file"
                className="h-full w-full object-cover"
                data-testid="image-preview"
                onError={() => {
                  if (broken === value) return;
                  setBroken(value);
                  toast({ title: "Image preview error", description: "Cannot display image preview", variant: "destructive" });
                }}
              />
            ) : (
              <ImageOffIcon className="h-6 w-6 text-zinc-600" />
            )}
          </div>
          {/* min-w-0 and w-full: the file input's own width (~450 px) must not push a phone's page wider. */}
          <div className="grid min-w-0 flex-1 grid-cols-1 gap-1">
            <input
              ref={fileRef}
              id={inputId}
              type="file"
              accept={ACCEPT}
              disabled={uploading}
              aria-invalid={!!field.errors?.length || undefined}
              aria-describedby={field.errorId}
              onChange={(event) => {
                const file = event.target.files?.[0];
                if (file) void upload(file);
              }}
              className="w-full max-w-full min-w-0 cursor-pointer text-sm text-zinc-400 file:mr-3 file:cursor-pointer file:rounded-md file:border-0 file:bg-violet-600 file:px-3 file:py-1.5 file:text-sm file:font-medium file:text-white hover:file:bg-violet-500"
            />
            <p className="text-xs text-zinc-400">
              {uploading ? (
                <span className="inline-flex items-center gap-2">
                  <Spinner className="h-3 w-3" label="Uploading" /> Uploading...
                </span>
              ) : value ? (
                <span className="break-all">Uploaded: {value}</span>
              ) : (
                "PNG, JPEG, GIF or WebP, up to 5MB"
              )}
            </p>
          </div>
        </div>
        <div className="grid gap-1">
          <label htmlFor={urlId} className="text-xs text-zinc-400">
            Or an image URL
          </label>
          <Input
            id={urlId}
            type="url"
            inputMode="url"
            placeholder="https://…"
            value={typed}
            onChange={(event) => {
              setTyped(event.target.value);
              setBroken(null);
              onChange(event.target.value.trim());
            }}
            aria-invalid={!!typedProblem || !!field.errors?.length || undefined}
            aria-describedby={field.errorId}
          />
        </div>
        <HiddenField name={field.name} value={value} />
      </div>
      {typedProblem && !field.errors?.length ? (
        <p id={field.errorId} className="text-xs text-red-300" role="alert" data-field-error={field.name}>
          {typedProblem}
        </p>
      ) : (
        <FieldError field={field} />
      )}
    </>
  );
}
