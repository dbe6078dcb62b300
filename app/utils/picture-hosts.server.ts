/**
 * A giveaway picture URL the page could not show (its host is outside the Content-Security-Policy's img-src:
 * IMAGE_HOSTS and the item image hosts) is refused with 400 naming the setting, where it is given (API,
 * admin form, CLI), instead of being saved and then blocked in every browser.
 */
import { badRequest } from "../domain/errors.ts";
import { pictureOrigins } from "../domain/image-hosts.ts";
import { imageHostProblem } from "../domain/image-url.ts";
import type { Config } from "./env.server.ts";

type PictureConfig = Pick<Config, "imageHosts" | "itemImageUrls" | "publicUrl">;

export function refusePictureHost(imageUrl: string | undefined, config: PictureConfig): void {
  const problem = imageUrl === undefined ? null : imageHostProblem(imageUrl, pictureOrigins(config));
  if (problem) throw badRequest(problem);
}
