/**
 * `--image FILE|URL`: an existing file is uploaded like the web admin's upload (type from the bytes,
 * png/jpeg/gif/webp, at most 5 MB) and its /uploads/ path is used; anything else is taken as a URL.
 */
import fs from "node:fs";
import path from "node:path";
import { saveImageUpload } from "../app/utils/uploads.server.ts";
import { CliError } from "./runtime.ts";

export type ImageSource = { imageUrl: string; /** The file saved for it, to remove if the change fails. */ savedFile?: string };

const URL_LIKE = /^(https?:\/\/|\/)/;

export async function resolveImage(value: string, uploadDir: string): Promise<ImageSource> {
  const given = value.trim();
  if (fs.existsSync(given) && fs.statSync(given).isFile()) {
    const saved = await saveImageUpload(uploadDir, fs.readFileSync(given));
    return { imageUrl: saved.filePath, savedFile: path.join(uploadDir, path.basename(saved.filePath)) };
  }
  if (URL_LIKE.test(given)) return { imageUrl: given };
  throw new CliError(`image '${value}' is neither a file nor a URL (give an image file, an http(s) URL or a /uploads/ path)`);
}

/** Runs `change` with the image; a file saved for it is removed again when the change fails. */
export async function withImage<T>(value: string, uploadDir: string, change: (imageUrl: string) => Promise<T>): Promise<T> {
  const image = await resolveImage(value, uploadDir);
  try {
    return await change(image.imageUrl);
  } catch (error) {
    if (image.savedFile) fs.rmSync(image.savedFile, { force: true });
    throw error;
  }
}
