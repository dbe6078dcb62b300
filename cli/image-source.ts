/**
 * `--image FILE|URL`: an existing file is uploaded like the web admin's upload (type from the bytes,
 * png/jpeg/gif/webp, at most 5 MB) and its /uploads/ path is used; anything else is taken as a URL.
 */
import fs from "node:fs";
import path from "node:path";
import { saveImageUpload, type SavedUpload } from "../app/utils/uploads.server.ts";
import type { Queryable, TransactionSql } from "../db/client.server.ts";
import { recordUpload } from "../db/queries/audit.server.ts";
import { inTransaction } from "../db/queries/transaction.server.ts";
import { CLI_ACTOR, CliError } from "./runtime.ts";
import { pictureOrigins } from "../app/domain/image-hosts.ts";
import { imageHostProblem } from "../app/domain/image-url.ts";

type PictureConfig = { imageHosts: readonly string[]; itemImageUrls: readonly string[]; publicUrl?: string };

export type ImageSource = {
  imageUrl: string;
  /** The file saved for it, to remove if the change fails. */
  savedFile?: string;
  upload?: SavedUpload;
};

const URL_LIKE = /^(https?:\/\/|\/)/;

export async function resolveImage(value: string, uploadDir: string): Promise<ImageSource> {
  const given = value.trim();
  if (fs.existsSync(given) && fs.statSync(given).isFile()) {
    const saved = await saveImageUpload(uploadDir, fs.readFileSync(given));
    return { imageUrl: saved.filePath, savedFile: path.join(uploadDir, path.basename(saved.filePath)), upload: saved };
  }
  if (URL_LIKE.test(given)) return { imageUrl: given };
  throw new CliError(`image '${value}' is neither a file nor a URL (give an image file, an http(s) URL or a /uploads/ path)`);
}

/**
 * Runs `change` with the image in one transaction with the upload's audit row; a file saved for it is removed
 * again when the change fails.
 */
export async function withImage<T>(
  value: string,
  { sql, uploadDir, pictures }: { sql: Queryable; uploadDir: string; pictures?: PictureConfig },
  change: (tx: TransactionSql, imageUrl: string) => Promise<T>,
): Promise<T> {
  const image = await resolveImage(value, uploadDir);
  // A URL the site's pages could not show (its host is not in IMAGE_HOSTS) is refused before anything is saved.
  const problem = !image.upload && pictures ? imageHostProblem(image.imageUrl, pictureOrigins(pictures)) : null;
  if (problem) throw new CliError(problem);
  try {
    return await inTransaction(sql, async (tx) => {
      if (image.upload) await recordUpload(tx, CLI_ACTOR, image.upload);
      return change(tx, image.imageUrl);
    });
  } catch (error) {
    if (image.savedFile) fs.rmSync(image.savedFile, { force: true });
    throw error;
  }
}
