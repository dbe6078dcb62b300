/**
 * Sign-in: the admin signs a one-time challenge (laid out as Sign-In With Ethereum, "Dogecoin" for
 * "Ethereum") and gets a session cookie; holders never sign in (each of their actions is signed instead).
 */
import { z } from "zod";
import { MEMBER_ROLES } from "../domain/team.ts";
import {
  addressSchema,
  defineRoute,
  errorBody,
  signedFields,
  successTrue,
  timestamp,
  type ClientAnswer,
  type RequestBody,
  errorAnswer,
} from "./kit.ts";

const TAG = "Sign-in";

const ADMIN_ADDRESS = "DHy2eGMWsFUmjur4GVeafrioGdHj7HGDyj";
const EXAMPLE_CHALLENGE = [
  "spooks.example wants you to sign in with your Dogecoin account:",
  ADMIN_ADDRESS,
  "",
  "Sign in to Spooks.",
  "",
  "URI: https://spooks.example",
  "Nonce: Q7mZ4kTn2xRb9WcH5pLd3sVe",
  "Issued At: 2026-10-31T18:00:00.000Z",
  "Expiration Time: 2026-10-31T18:10:00.000Z",
].join("\n");

const COOKIE =
  "The session cookie: `spooks_session` over http, `__Host-spooks_session` with Secure over https; always HttpOnly, " +
  "SameSite=Strict, Path=/.";

const notAdmin = errorAnswer(
  "The address is not on the admin team (the owner, ADMIN_ADDRESS, and the members the owner added): only they sign in.",
  "Only the admin wallet can sign in",
);

/** The same-site check every cookie-authorized change passes before its body is read. */
const crossSite = errorAnswer(
  "The request does not come from this site's pages (its Origin, or Referer, names another site, or neither is sent).",
  "Cross-site request refused: Origin https://evil.example is not https://spooks.example",
);

const notJson = errorAnswer(
  "The request's Content-Type is not application/json (even without a body).",
  "Send the body as application/json (got text/plain)",
);

export const challengeQuery = z.object({ address: addressSchema });

export const signInChallengeSchema = z
  .object({
    message: z.string().meta({ description: "The exact text to sign (the sign-in message format)." }),
    expiresAt: timestamp.meta({ description: "When the challenge stops being accepted: 10 minutes after it was issued." }),
  })
  .meta({ id: "SignInChallenge" });

export const authChallenge = defineRoute({
  operationId: "getSignInChallenge",
  method: "GET",
  path: "/api/auth/challenge",
  tag: TAG,
  summary: "A one-time sign-in message for the admin to sign",
  description:
    "Issues a sign-in message naming this site (PUBLIC_URL's host and origin), the address, a fresh nonce and a " +
    "10-minute validity. It is accepted once, by POST /api/auth/session, signed by the same address. Only a member of " +
    "the admin team (the owner, ADMIN_ADDRESS, or a member the owner added) gets one: any other is 403 and nothing is stored.",
  auth: "none",
  rateLimit: "signIn",
  query: challengeQuery,
  responses: {
    200: {
      description: "The challenge to sign.",
      schema: signInChallengeSchema,
      example: { message: EXAMPLE_CHALLENGE, expiresAt: "2026-10-31T18:10:00.000Z" },
    },
    400: errorAnswer("`address` is missing or not a Dogecoin address.", "Invalid Dogecoin address"),
    403: notAdmin,
  },
});

export const sessionSchema = z
  .object({
    address: z.string().nullable().meta({ description: "The signed-in address; null without a (live) session." }),
    isAdmin: z.boolean().meta({
      description: "Whether that address is on the admin team now (ADMIN_ADDRESS may have changed, or the member been removed, since).",
    }),
    role: z.enum(MEMBER_ROLES).nullable().meta({ description: "Its role on the admin team; null when it is no member." }),
  })
  .meta({ id: "Session" });

export const getSession = defineRoute({
  operationId: "getSession",
  method: "GET",
  path: "/api/auth/session",
  tag: TAG,
  summary: "Who is signed in",
  description: `Reads the session cookie, if any. ${COOKIE}`,
  auth: "none",
  responses: {
    200: {
      description: "The session's address, or null.",
      schema: sessionSchema,
      example: { address: ADMIN_ADDRESS, isAdmin: true, role: "owner" },
    },
  },
});

export const signInBody = z.object(signedFields);

export const signedInSchema = z
  .object({
    address: z.string().meta({ description: "The member's address." }),
    isAdmin: z.boolean().meta({ description: "Always true: only members of the admin team sign in." }),
    role: z.enum(MEMBER_ROLES).meta({ description: "The member's role: owner (ADMIN_ADDRESS), admin, moderator or viewer." }),
  })
  .meta({ id: "SignedIn" });

export const signIn = defineRoute({
  operationId: "signIn",
  method: "POST",
  path: "/api/auth/session",
  tag: TAG,
  summary: "Sign in as the admin with a signed challenge",
  description:
    "Opens an admin session for the challenge from GET /api/auth/challenge, signed by the admin's wallet, and sets " +
    `its cookie (valid SESSION_TTL_HOURS, default 12 h). ${COOKIE} The request must come from this site's pages (403) and ` +
    "be sent as JSON (415); both are checked before the body is read. Refused with 401, nothing stored and the " +
    "challenge left usable: a message for another site, another address, a nonce the server did not issue, any " +
    "changed field or time, an expired or used challenge, a bad signature.",
  auth: "signature",
  rateLimit: "signIn",
  signedMessage: "sign-in",
  body: {
    kind: "json",
    schema: signInBody,
    example: {
      address: ADMIN_ADDRESS,
      message: EXAMPLE_CHALLENGE,
      signature: "IELlQpLyJwivrbG04Eo4PovJr5MqGaEQdbOkHxGBgwrWVuvdFyxpx1fG5KjE9rJZ04jEiDXZ+g6UKHXrqCs5uIs=",
    },
  },
  responses: {
    200: {
      description: "Signed in: the session cookie is set.",
      schema: signedInSchema,
      example: { address: ADMIN_ADDRESS, isAdmin: true, role: "owner" },
      headers: {
        "Set-Cookie":
          "The session cookie, as `__Host-spooks_session={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={seconds}; Secure` " +
          "over https.",
      },
    },
    401: {
      description:
        "The message is not a challenge this server issued to this address for this site, it expired or was used, or the " +
        "signature is not the address's.",
      schema: errorBody,
      example: { message: "This sign-in challenge is unknown, expired or already used" },
    },
    403: { ...notAdmin, description: "The address is not the admin's, or the request comes from another site." },
    415: notJson,
  },
});

export const signOut = defineRoute({
  operationId: "signOut",
  method: "DELETE",
  path: "/api/auth/session",
  tag: TAG,
  summary: "Sign out",
  description:
    "Revokes the session the cookie names (if any) and clears the cookie; answers the same without a session. Like " +
    "every cookie-authorized change it must come from this site's pages (403) with Content-Type application/json (415), " +
    "though it has no body.",
  auth: "none",
  rateLimit: "signIn",
  responses: {
    200: {
      description: "Signed out.",
      schema: z.object({ success: successTrue }),
      example: { success: true },
      headers: { "Set-Cookie": "Clears the session cookie (`Max-Age=0`)." },
    },
    403: crossSite,
    415: notJson,
  },
});

export type SignInChallenge = ClientAnswer<typeof authChallenge>;
export type Session = ClientAnswer<typeof getSession>;
export type SignInRequest = RequestBody<typeof signIn>;
