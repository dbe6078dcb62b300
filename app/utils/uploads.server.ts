/**
 * Image uploads (DECISIONS "Giveaways"): the type is read from the bytes, never from the name; png, jpeg,
 * gif and webp only, at most 5 MB, saved under a generated name and served from /uploads/.
 */
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { Refusal } from "../domain/errors.ts";
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES } from "../domain/giveaways.ts";

export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export type SavedUpload = { filePath: string; mediaType: ImageMediaType; bytes: number; sha256: string };

const EXTENSIONS: Record<ImageMediaType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/**
 * The image type the bytes really are, or a 415 refusal. file-type (150 KB with its readers) is loaded by the
 * first upload, not by every command of the CLI that shares this module's chunk (`giveaways list`).
 */
export async function sniffImageType(bytes: Uint8Array): Promise<ImageMediaType> {
  const { fileTypeFromBuffer } = await import("file-type");
  const detected = await fileTypeFromBuffer(bytes);
  const mediaType = detected?.mime as ImageMediaType | undefined;
  if (!mediaType || !IMAGE_MEDIA_TYPES.includes(mediaType)) {
    throw new Refusal(415, "Only PNG, JPEG, GIF and WebP images are accepted");
  }
  return mediaType;
}

export async function saveImageUpload(uploadDir: string, bytes: Uint8Array): Promise<SavedUpload> {
  if (bytes.byteLength === 0) throw new Refusal(400, "The image is empty");
  if (bytes.byteLength > MAX_IMAGE_BYTES) throw new Refusal(413, "Image is larger than 5 MB");
  const mediaType = await sniffImageType(bytes);
  const fileName = `${randomUUID()}.${EXTENSIONS[mediaType]}`;
  await fs.mkdir(uploadDir, { recursive: true });
  await fs.writeFile(path.join(uploadDir, fileName), bytes, { flag: "wx" });
  return { filePath: `/uploads/${fileName}`, mediaType, bytes: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** Removes a saved upload again (its audit row could not be written); a file already gone is fine. */
export async function removeUpload(uploadDir: string, saved: SavedUpload): Promise<void> {
  await fs.rm(path.join(uploadDir, path.basename(saved.filePath)), { force: true });
}
