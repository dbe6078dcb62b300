/** POST /api/upload-image (admin), multipart field `image`: checked by content, saved under a generated name. */
import { uploadImage } from "../../api/giveaways.ts";
import { badRequest } from "../../domain/errors.ts";
import { MAX_IMAGE_BYTES } from "../../domain/giveaways.ts";
import { apiMethods, endpoint, onlyMethods, readBodyBytes } from "../../utils/api.server.ts";
import { removeUpload, saveImageUpload } from "../../utils/uploads.server.ts";
import { recordUpload } from "../../../db/queries/audit.server.ts";
import type { Route } from "./+types/upload-image";

/** Room for the multipart framing around a 5 MB image; the image itself is checked on its own. */
const MULTIPART_LIMIT = MAX_IMAGE_BYTES + 64 * 1024;

async function imageBytes(request: Request): Promise<Uint8Array> {
  // The admin check (the contract's multipart body) has refused any other content type (415).
  const contentType = request.headers.get("content-type") ?? "";
  const body = await readBodyBytes(request, MULTIPART_LIMIT);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw badRequest("Malformed multipart body");
  }
  const image = form.get("image");
  if (!image || typeof image === "string") throw badRequest("Send the image as multipart/form-data in the field 'image'");
  return new Uint8Array(await image.arrayBuffer());
}

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(uploadImage, async ({ request, context, actor }) => {
    const saved = await saveImageUpload(context.config.uploadDir, await imageBytes(request));
    await recordUpload(context.sql, actor, saved).catch(async (error: unknown) => {
      await removeUpload(context.config.uploadDir, saved);
      throw error;
    });
    return { success: true, filePath: saved.filePath, message: "Image uploaded successfully" };
  }),
});

export const loader = onlyMethods("POST");
